package contracts

import _ "embed"

// RelayConnectors is contracts/relay/connectors.json, the registry of
// connectors Relay's continue_journey can carry a journey into, and
// RelayConnectorsSchema its JSON Schema (relay/connectors.schema.json).
// Package server/relay/journey parses and checks them. They live in their own
// file so that the rest of contracts/relay/ can be embedded on its own.
var (
	//go:embed relay/connectors.json
	RelayConnectors []byte
	//go:embed relay/connectors.schema.json
	RelayConnectorsSchema []byte
)

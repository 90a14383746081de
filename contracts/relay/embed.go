// Package relay is the Relay rides endpoint's contract folder (/mcp/rides),
// embedded on its own: its tool manifest, schemas, samples, error rows, the
// provider registry and the connector registry, each with its schema. Read
// it through [Set].
package relay

import (
	"embed"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// FS holds the folder's files, with paths relative to it ("tools.json",
// "providers.json", "schemas/search_rides.input.json").
//
//go:embed tools.json errors.json schemas samples providers.json providers.schema.json connectors.json connectors.schema.json
var FS embed.FS

// Set is the folder as a contract set.
var Set = contracts.NewSet("relay", FS)

package relay

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// Connectors is connectors.json, the registry of connectors Relay's
// continue_journey can carry a journey into, and ConnectorsSchema its JSON
// Schema (connectors.schema.json). Package server/relay/journey parses and
// checks them.
var (
	//go:embed connectors.json
	Connectors []byte
	//go:embed connectors.schema.json
	ConnectorsSchema []byte
)

// Connector is one entry of the connector registry: Relay's journeys, the
// conformance specs and the collections' journey walk all read it so.
type Connector struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// EntryTool is the target's tool that next_action names.
	EntryTool string `json:"entry_tool"`
	// Enabled is the operator's switch: false makes the connector
	// unavailable whatever the host reports.
	Enabled   bool                `json:"enabled"`
	Arguments []ConnectorArgument `json:"arguments"`
	// Fallbacks are the connectors the operator permits in its place, in
	// order of preference (ids of the same registry).
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// ConnectorArgument maps one shared journey field to one argument of the
// connector's entry tool.
type ConnectorArgument struct {
	// Name is the argument's name in the entry tool.
	Name string `json:"name"`
	// From is the shared journey field it takes, unchanged.
	From string `json:"from"`
	// Required: without the field, the status is proposal.
	Required bool `json:"required"`
}

// Required lists the journey fields the connector cannot be entered without.
func (c Connector) Required() []string {
	var out []string
	for _, a := range c.Arguments {
		if a.Required {
			out = append(out, a.From)
		}
	}
	return out
}

// DecodeConnectors reads the connectors of a registry document. It checks
// only that the document decodes: server/relay/journey holds a registry to
// its schema and its uniqueness rules before Relay serves it.
func DecodeConnectors(doc []byte) ([]Connector, error) {
	var file struct {
		Connectors []Connector `json:"connectors"`
	}
	if err := json.Unmarshal(doc, &file); err != nil {
		return nil, fmt.Errorf("connector registry: %w", err)
	}
	return file.Connectors, nil
}

package journey

import (
	"bytes"
	"encoding/json"
	"fmt"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/server/draft2020"
)

// Registry is the connector registry (contracts/relay/connectors.json): the
// connectors continue_journey knows, each with its entry tool and how its
// arguments come from the shared journey fields.
type Registry struct {
	connectors []Connector
	byID       map[string]int
}

// Connector is one registry entry, and Argument one of its argument
// mappings, as package contracts reads them.
type (
	Connector = relaycontracts.Connector
	Argument  = relaycontracts.ConnectorArgument
)

// DefaultRegistry parses the shipped registry, embedded in the binary.
func DefaultRegistry() (*Registry, error) { return ParseRegistry(relaycontracts.Connectors) }

// ParseRegistry reads a registry document: it must satisfy
// connectors.schema.json, name each connector once, name each argument of
// a connector once, and name as fallbacks only other connectors of itself.
func ParseRegistry(doc []byte) (*Registry, error) {
	schema, err := draft2020.Compile("connectors.schema.json", relaycontracts.ConnectorsSchema)
	if err != nil {
		return nil, fmt.Errorf("connector registry schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("connector registry: %w", err)
	}
	if err := schema.Validate(v); err != nil {
		return nil, fmt.Errorf("connector registry does not satisfy connectors.schema.json: %w", err)
	}
	connectors, err := relaycontracts.DecodeConnectors(doc)
	if err != nil {
		return nil, err
	}
	r := &Registry{connectors: connectors, byID: map[string]int{}}
	for i, c := range connectors {
		if _, dup := r.byID[c.ID]; dup {
			return nil, fmt.Errorf("connector registry: connector %q listed twice", c.ID)
		}
		r.byID[c.ID] = i
		names := map[string]bool{}
		for _, a := range c.Arguments {
			if names[a.Name] {
				return nil, fmt.Errorf("connector registry: connector %q maps argument %q twice", c.ID, a.Name)
			}
			names[a.Name] = true
		}
	}
	for _, c := range connectors {
		for _, fb := range c.Fallbacks {
			if _, ok := r.byID[fb]; !ok || fb == c.ID {
				return nil, fmt.Errorf("connector registry: connector %q names %q as a fallback, which is not another connector of the registry", c.ID, fb)
			}
		}
	}
	return r, nil
}

// Connector looks a connector up by id.
func (r *Registry) Connector(id string) (Connector, bool) {
	i, ok := r.byID[id]
	if !ok {
		return Connector{}, false
	}
	return r.connectors[i], true
}

// Connectors lists the registry in file order.
func (r *Registry) Connectors() []Connector {
	return append([]Connector(nil), r.connectors...)
}

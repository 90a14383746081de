// Package endpoints opens an endpoint's contract folder by name, for the
// generators and the checks that walk every endpoint ("trident", "relay").
// Servers import the one folder they serve instead.
package endpoints

import (
	"fmt"
	"sort"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// sets are the endpoints' contract folders by name; a new endpoint is one
// more line.
var sets = map[string]*contracts.Set{
	"trident": tridentcontracts.Set,
	"relay":   relaycontracts.Set,
}

// Open returns the contract folder of the endpoint named name.
func Open(name string) (*contracts.Set, error) {
	if s, ok := sets[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("contracts: no endpoint named %q (have %v)", name, Names())
}

// Names lists the endpoints' names, sorted.
func Names() []string {
	var out []string
	for n := range sets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

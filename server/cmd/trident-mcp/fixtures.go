package main

import (
	"log/slog"

	"github.com/tridenttaxis/trident-mcp/server/conformancefixtures"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// fixturesHelp is CONFORMANCE_FIXTURES' line of -h.
var fixturesHelp = "also mount the conformance fixtures endpoint at " + conformancefixtures.Path +
	" (fake tools for the official MCP conformance suite: tests only, never in production)"

// withFixtures is the endpoints to mount: those given, and the conformance
// fixtures endpoint when CONFORMANCE_FIXTURES asks for it, which is logged
// as a warning so that no one runs it unawares.
func (c *config) withFixtures(logger *slog.Logger, endpoints ...*mcphttp.Endpoint) ([]*mcphttp.Endpoint, error) {
	if !c.fixtures {
		return endpoints, nil
	}
	ep, err := conformancefixtures.New(nil)
	if err != nil {
		return nil, err
	}
	logger.Warn("conformance fixtures mounted: fake tools for the MCP conformance suite, never for production",
		slog.String("path", conformancefixtures.Path))
	return append(endpoints, ep), nil
}

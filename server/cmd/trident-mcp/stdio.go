package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// stdioHelp is the -stdio flag's help line.
const stdioHelp = "serve the Trident tools over stdio (MCP's stdio transport: JSON-RPC on stdin and stdout, logs on stderr) instead of HTTP, for clients that launch a local server"

// serveStdio serves the Trident endpoint's tools to the client that
// launched the process, on stdin and stdout, until it closes stdin or the
// process is signalled. The HTTP settings (ADDR, PUBLIC_BASE_URL, origins,
// limits) do not apply; OAuth is refused rather than ignored, since a
// stdio server has no bearer token to check and an operator who asked for
// OAuth should not get an open server by surprise.
func serveStdio(ctx context.Context, c *config, logger *slog.Logger) error {
	if c.host.Auth != nil {
		return errors.New("-stdio takes no OAuth (MCP authorization is for HTTP; a stdio server is the user's own process): unset MCP_REQUIRE_OAUTH")
	}
	ep, err := trident.New(&c.trident)
	if err != nil {
		return err
	}
	if ep.Close != nil {
		defer ep.Close()
	}
	logger.Info("trident-mcp serving on stdio", slog.String("endpoint", ep.Path))
	return mcphttp.ServeStdio(ctx, ep, mcphttp.Config{Logger: logger, ProtocolVersions: c.host.ProtocolVersions}, &mcp.StdioTransport{})
}

package mcphttp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// ServeStdio serves ep's tools to one client over t — in the binary the
// go-sdk's [mcp.StdioTransport], newline-delimited JSON-RPC on stdin and
// stdout, for clients that launch a local server — until the client closes
// its end or ctx ends; either is a clean stop (nil).
//
// The tools, their handlers and their answers are those of the HTTP front
// door ([New]): the same [ToolError] results, the same [ArgumentError]
// policy (over stdio the revision is the one the client's initialize
// negotiated), -32603 for a panic. What only HTTP has does not apply: the
// session is the client's own, so there is no Origin, Accept or size check,
// no OAuth (MCP's authorization is for HTTP; a stdio server is the user's
// own process) and no rate limit. Nothing but JSON-RPC is written to t.
//
// Of cfg, Logger (required) receives the log records, ProtocolVersions
// narrows the revisions as over HTTP, and Metrics counts the calls; with
// none (nil), since there is no /metrics to read over stdio, they are
// counted in a registry of the session's own. The HTTP fields are unused.
func ServeStdio(ctx context.Context, ep *Endpoint, cfg Config, t mcp.Transport) error {
	if cfg.Metrics == nil {
		m, err := metrics.New(prometheus.NewRegistry())
		if err != nil {
			return err
		}
		cfg.Metrics = m
	}
	_, srv, err := newServer(ep, cfg)
	if err != nil {
		return err
	}
	err = srv.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

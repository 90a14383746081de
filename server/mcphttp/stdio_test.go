package mcphttp_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// TestServeStdio serves an endpoint over an in-memory pair of transports
// (the binary passes the SDK's stdio transport) and checks that a session
// answers as its initialize negotiated (argument errors by revision, as
// over HTTP), and that ending the context is a clean stop.
func TestServeStdio(t *testing.T) {
	for _, tt := range []struct {
		revision string
		rpcError bool
	}{{mcphttp.Revision20250618, true}, {mcphttp.Revision20251125, false}} {
		t.Run(tt.revision, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			serverT, clientT := mcp.NewInMemoryTransports()
			served := make(chan error, 1)
			go func() {
				served <- mcphttp.ServeStdio(ctx, echoEndpoint(mcphttp.ArgumentErrorsByRevision), mcphttp.Config{Logger: slog.New(slog.DiscardHandler)}, serverT)
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
				Connect(ctx, clientT, &mcp.ClientSessionOptions{ProtocolVersion: tt.revision})
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != tt.revision {
				t.Errorf("negotiated %q", got)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "ok" {
				t.Errorf("echo: %v, %+v", err, res)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			var je *jsonrpc.Error
			switch {
			case tt.rpcError && (!errors.As(err, &je) || je.Code != -32602):
				t.Errorf("invalid arguments at %s: %v, %+v; want -32602", tt.revision, err, res)
			case !tt.rpcError && (err != nil || !res.IsError):
				t.Errorf("invalid arguments at %s: %v, %+v; want an isError result", tt.revision, err, res)
			}
			cs.Close()
			cancel()
			if err := <-served; err != nil {
				t.Errorf("ServeStdio returned %v, want nil", err)
			}
		})
	}
}

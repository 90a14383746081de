package mcphttp_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestServeStdio serves an endpoint over an in-memory pair of transports
// (the binary passes the SDK's stdio transport) and checks that a session
// answers as its initialize negotiated (argument errors by revision, as
// over HTTP), answers refusals and panics as over HTTP and keeps serving,
// and that ending the context is a clean stop.
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
				served <- mcphttp.ServeStdio(ctx, kit.New("/mcp/kit").Endpoint, mcphttp.Config{Logger: slog.New(slog.DiscardHandler)}, serverT)
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
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hi" {
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
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: kit.ToolRefuse, Arguments: map[string]any{}})
			if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != kit.RefusedText {
				t.Errorf("a refusal: %v, %+v; want the isError result", err, res)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: kit.ToolPanic, Arguments: map[string]any{}})
			if !errors.As(err, &je) || je.Code != -32603 {
				t.Errorf("a panic: %v; want -32603", err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: kit.ToolEcho, Arguments: map[string]any{"text": "hi"}}); err != nil {
				t.Errorf("a call after the panic: %v", err)
			}
			// No front door over stdio: the backstop answers a tool the
			// endpoint does not serve, in the catalogue's code.
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			if !errors.As(err, &je) || je.Code != -32601 {
				t.Errorf("an unknown tool: %v; want -32601", err)
			}
			cs.Close()
			cancel()
			if err := <-served; err != nil {
				t.Errorf("ServeStdio returned %v, want nil", err)
			}
		})
	}
}

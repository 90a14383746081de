package mcphttp_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestToolAnswers holds the front door to what it makes of each way a
// handler answers, on both paths (the fast path and the go-sdk's): a
// result as it is (content [] when the handler gives none); a ToolError as
// an isError result with its text and structuredContent; a JSON-RPC error
// as it is; any other error and a panic as -32603, the cause logged and
// never sent, the process still serving. Every call is counted under the
// endpoint, its tool and its outcome: ok, the code the handler returned,
// or the catalogue code of the error.
func TestToolAnswers(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(map[bool]string{true: "fast path", false: "go-sdk"}[fast], func(t *testing.T) {
			ep := kit.New("/mcp/kit")
			ep.Tools = append(ep.Tools, mcphttp.Tool{
				Def: &mcp.Tool{Name: "reject", InputSchema: map[string]any{"type": "object"}},
				Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return nil, mcphttp.RPCError(errcodes.InvalidRequest, mcphttp.Message(errcodes.InvalidRequest, "reason", "rejected"))
				},
			})
			cfg, reg := kit.Config(t)
			logs := &kit.Records{}
			cfg.Logger = slog.New(logs)
			cfg.DisableFastPath = !fast
			url := kit.Serve(t, ep.Endpoint, cfg).URL
			for _, tt := range []struct {
				tool, args, want string
			}{
				{kit.ToolEcho, `{"text":"a&b <c> é"}`,
					`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a&b <c> é"}],"structuredContent":{"text":"a&b <c> é"}}}`},
				{kit.ToolStructured, `{}`,
					`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":62.4,"url":"https://example.test/a?b=1&c=<2>"}}}`},
				{kit.ToolRefuse, `{}`,
					`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + kit.RefusedText + `"}],"structuredContent":{"code":"test_refused"},"isError":true}}`},
				{kit.ToolEcho, `{}`,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: text: Required"}}`},
				{kit.ToolFail, `{}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
				{kit.ToolPanic, `{}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
				{"reject", `{}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: rejected"}}`},
				{kit.ToolEcho, `{"text":"still serving"}`, // after the panic
					`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"still serving"}],"structuredContent":{"text":"still serving"}}}`},
				{"nope", `{}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: no tool named 'nope'"}}`},
			} {
				r := kit.Post(t, url, kit.Headers(), kit.CallBody("1", tt.tool, tt.args))
				if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s: %d %q, want 200 application/json", tt.tool, r.Status, r.Header.Get("Content-Type"))
				}
				// Byte for byte: the reply is not HTML-escaped (links read
				// "&c=", not "\u0026c=", as the specification shows them).
				if got := strings.TrimSpace(string(r.Body)); got != tt.want {
					t.Errorf("%s %s:\n got %s\nwant %s", tt.tool, tt.args, got, tt.want)
				}
				if bytes.Contains(r.Body, []byte(kit.SecretCause)) {
					t.Errorf("%s: the reply carries the cause: %s", tt.tool, r.Body)
				}
			}
			want := map[string]float64{
				"{endpoint=/mcp/kit,outcome=ok,tool=echo}":                  2,
				"{endpoint=/mcp/kit,outcome=ok,tool=structured}":            1,
				"{endpoint=/mcp/kit,outcome=test_refused,tool=refuse}":      1,
				"{endpoint=/mcp/kit,outcome=invalid_arguments,tool=echo}":   1,
				"{endpoint=/mcp/kit,outcome=internal_error,tool=fail}":      1,
				"{endpoint=/mcp/kit,outcome=internal_error,tool=panic}":     1,
				"{endpoint=/mcp/kit,outcome=invalid_request,tool=reject}":   1,
				"{endpoint=/mcp/kit,outcome=method_not_found,tool=unknown}": 1,
			}
			series := promtest.Series(t, reg)
			for _, name := range []string{"mcp_tool_calls_total", "mcp_tool_call_duration_seconds"} {
				got := map[string]float64{}
				for k, v := range series {
					if labels, ok := strings.CutPrefix(k, name); ok {
						got[labels] = v
					}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s (-want +got):\n%s", name, d)
				}
			}
			log := logs.String()
			for _, line := range []string{
				"tool refused endpoint=/mcp/kit tool=refuse code=TEST_REFUSED cause=" + kit.SecretCause,
				"tool failed endpoint=/mcp/kit tool=fail error=fail: " + kit.SecretCause,
				"panic in tool handler endpoint=/mcp/kit tool=panic panic=the panic tool panicked",
			} {
				if !strings.Contains(log, line) {
					t.Errorf("the log lacks %q:\n%s", line, log)
				}
			}
		})
	}
}

// TestRemoteHost: a tool finds the address of the peer that sent the call
// on its context, on both paths, with and without a host's CallInfo, never
// a client's X-Forwarded-For; outside an HTTP call there is none.
func TestRemoteHost(t *testing.T) {
	for _, tc := range []struct{ fast, info bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
		fast := tc.fast
		ep := kit.New("/mcp/kit")
		ep.Tools = append(ep.Tools, mcphttp.Tool{
			Def: &mcp.Tool{Name: "whereami", InputSchema: map[string]any{"type": "object"}},
			Handler: func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "at " + mcphttp.RemoteHost(ctx)}}}, nil
			},
		})
		cfg, _ := kit.Config(t)
		cfg.DisableFastPath = !fast
		h := kit.Headers()
		h.Set("X-Forwarded-For", "203.0.113.9")
		url := kit.Serve(t, ep.Endpoint, cfg).URL
		if tc.info { // as the host mounts a front door: with a CallInfo of its own
			door, err := mcphttp.New(ep.Endpoint, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				door.ServeHTTP(w, r.WithContext(mcphttp.WithCallInfo(r.Context(), &mcphttp.CallInfo{})))
			}))
			t.Cleanup(ts.Close)
			url = ts.URL
		}
		r := kit.Post(t, url, h, kit.CallBody("1", "whereami", `{}`))
		if !strings.Contains(string(r.Body), `"text":"at 127.0.0.1"`) {
			t.Errorf("fast=%v, CallInfo=%v: %s, want the peer's address", fast, tc.info, r.Body)
		}
	}
	if got := mcphttp.RemoteHost(context.Background()); got != "" {
		t.Errorf("RemoteHost outside a call = %q", got)
	}
}

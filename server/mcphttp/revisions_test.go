package mcphttp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestArgumentErrorPolicy checks that the answer to arguments a tool
// refuses follows the endpoint's policy and, under the default policy, the
// request's revision; and that every such call is counted under
// invalid_arguments.
func TestArgumentErrorPolicy(t *testing.T) {
	const rpcError = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: text: Required"}}`
	const result = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid params: text: Required"}],` +
		`"structuredContent":{"code":"invalid_arguments"},"isError":true}}`
	tests := []struct {
		policy   mcphttp.ArgumentErrorPolicy
		revision string // MCP-Protocol-Version; "" sends none
		want     string
	}{
		{mcphttp.ArgumentErrorsByRevision, "", rpcError},
		{mcphttp.ArgumentErrorsByRevision, "2025-03-26", rpcError},
		{mcphttp.ArgumentErrorsByRevision, mcphttp.Revision20250618, rpcError},
		{mcphttp.ArgumentErrorsByRevision, mcphttp.Revision20251125, result},
		{mcphttp.ArgumentErrorsAsResult, "", result},
		{mcphttp.ArgumentErrorsAsResult, mcphttp.Revision20250618, result},
		{mcphttp.ArgumentErrorsAsResult, mcphttp.Revision20251125, result},
	}
	for _, tt := range tests {
		ep := kit.New("/mcp/kit")
		ep.ArgumentErrors = tt.policy
		cfg, reg := kit.Config(t)
		url := kit.Serve(t, ep.Endpoint, cfg).URL
		h := kit.Headers()
		h.Del("Mcp-Protocol-Version")
		if tt.revision != "" {
			h.Set("MCP-Protocol-Version", tt.revision)
		}
		r := kit.Post(t, url, h, kit.CallBody("1", kit.ToolEcho, `{}`))
		if d := cmp.Diff(tt.want, strings.TrimSpace(string(r.Body))); d != "" {
			t.Errorf("policy %d, revision %q (-want +got):\n%s", tt.policy, tt.revision, d)
		}
		if got := promtest.Series(t, reg)["mcp_tool_calls_total{endpoint=/mcp/kit,outcome=invalid_arguments,tool=echo}"]; got != 1 {
			t.Errorf("policy %d, revision %q: counted %v times under invalid_arguments, want 1", tt.policy, tt.revision, got)
		}
	}
}

// TestProtocolVersions lists the revisions newest first, the stateless one
// included, and hands out a copy.
func TestProtocolVersions(t *testing.T) {
	want := []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	got := mcphttp.ProtocolVersions()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got[0] = "changed"
	if mcphttp.ProtocolVersions()[0] != want[0] {
		t.Error("ProtocolVersions returned the package's own slice")
	}
}

// TestProtocolVersionsNarrowed serves only the specification's revision and
// older: a 2025-11-25 client's initialize negotiates 2025-06-18, a
// 2025-11-25 header is refused with the served list, and discover is gone
// with 2026-07-28; a revision the front door does not speak is refused at
// construction.
func TestProtocolVersionsNarrowed(t *testing.T) {
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	cfg.ProtocolVersions = []string{"2024-11-05", mcphttp.Revision20250618}
	url := kit.Serve(t, ep.Endpoint, cfg).URL
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: mcphttp.Revision20251125})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != mcphttp.Revision20250618 {
		t.Errorf("a 2025-11-25 initialize negotiated %q, want 2025-06-18", got)
	}
	cs.Close()

	h := kit.Headers()
	h.Set("MCP-Protocol-Version", mcphttp.Revision20251125)
	r := kit.Post(t, url, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Unsupported protocol version: 2025-11-25",` +
		`"data":{"supported":["2025-06-18","2024-11-05"],"requested":"2025-11-25"}}}`
	if r.Status != http.StatusBadRequest || strings.TrimSpace(string(r.Body)) != want {
		t.Errorf("a served-elsewhere revision: %d %s\nwant 400 %s", r.Status, r.Body, want)
	}

	cfg.ProtocolVersions = []string{"2025-13-01"}
	if _, err := mcphttp.New(ep.Endpoint, cfg, nil); err == nil || !strings.Contains(err.Error(), "2025-13-01") {
		t.Errorf("an unknown revision: %v, want an error naming it", err)
	}
}

// TestRevisionsThroughSDKClient connects the go-sdk's client at each
// revision the front door serves, as a client of that era would (the 2025
// handshake, or 2026-07-28's server/discover and per-request _meta), and
// checks that each negotiates its own revision, lists and calls the tools,
// and sees invalid arguments as its revision has them: -32602 up to
// 2025-06-18, an isError result from 2025-11-25 (contracts/README.md).
func TestRevisionsThroughSDKClient(t *testing.T) {
	_, url := serveKit(t)
	ctx := context.Background()
	for _, rev := range []string{mcphttp.Revision20250618, mcphttp.Revision20251125, mcphttp.Revision20260728} {
		t.Run(rev, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "revisions-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Errorf("negotiated %q, want %q", got, rev)
			}
			lt, err := cs.ListTools(ctx, nil)
			if err != nil || len(lt.Tools) != len(kit.Tools) {
				t.Fatalf("ListTools: %v, %+v", err, lt)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: kit.ToolEcho, Arguments: map[string]any{"text": "£62.40 & more"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if res.IsError || res.Content[0].(*mcp.TextContent).Text != "£62.40 & more" {
				t.Errorf("result: %+v", res.Content[0])
			}

			const want = "Invalid params: text: Required"
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: kit.ToolEcho, Arguments: map[string]any{"other": 1}})
			if rev == mcphttp.Revision20250618 {
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != -32602 || je.Message != want {
					t.Errorf("invalid arguments at %s: got %v, %+v; want JSON-RPC -32602 %q", rev, err, res, want)
				}
				return
			}
			if err != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want {
				t.Errorf("invalid arguments at %s: got %v, %+v; want an isError result %q", rev, err, res, want)
			}
		})
	}
}

// modernHeaders are the headers of a 2026-07-28 request: the revision, and
// the method (and tool) repeated from the body, as SEP-2243 asks.
func modernHeaders(method, name string) http.Header {
	h := kit.Headers()
	h.Set("MCP-Protocol-Version", mcphttp.Revision20260728)
	h.Set("Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return h
}

// requestMeta is the per-request _meta of SEP-2575.
const requestMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"8"}}`

// serverInfo is the _meta every 2026-07-28 result carries: the endpoint's
// Implementation.
const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit-kit","title":"Test endpoint /mcp/kit","version":"1.0.0"}}`

// TestStatelessRevisionOverHTTP sends the 2026-07-28 wire by hand: no
// initialize, every request with its _meta, and checks each answer as that
// revision specifies it, against the 2025 answers to the same requests.
func TestStatelessRevisionOverHTTP(t *testing.T) {
	_, url := serveKit(t)
	legacy := kit.Headers()
	v1125 := kit.Headers()
	v1125.Set("MCP-Protocol-Version", mcphttp.Revision20251125)
	invalid := func(meta string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"other":1}` + meta + `}}`
	}
	tests := []struct {
		name       string
		header     http.Header
		body       string
		wantStatus int
		wantBody   string
	}{
		{"server/discover", modernHeaders("server/discover", ""),
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + requestMeta + `}}`, 200,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfo + `,"ttlMs":0,"cacheScope":"public",` +
				`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
				`"capabilities":{"completions":{},"logging":{},"prompts":{},"resources":{},"tools":{}}}}`},
		{"server/discover is not a 2025 method", legacy,
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"server/discover\""}}`},
		{"tools/call with its _meta", modernHeaders("tools/call", "echo"),
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + requestMeta + `}}`, 200,
			`{"jsonrpc":"2.0","id":2,"result":{` + serverInfo + `,"content":[{"type":"text","text":"hi"}],"structuredContent":{"text":"hi"},"resultType":"complete"}}`},
		{"invalid arguments are a result", modernHeaders("tools/call", "echo"), invalid("," + requestMeta), 200,
			`{"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `,"content":[{"type":"text","text":"Invalid params: text: Required"}],` +
				`"structuredContent":{"code":"invalid_arguments"},"isError":true,"resultType":"complete"}}`},
		{"invalid arguments are a result at 2025-11-25", v1125, invalid(""), 200,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid params: text: Required"}],"structuredContent":{"code":"invalid_arguments"},"isError":true}}`},
		{"invalid arguments are -32602 at 2025-06-18", legacy, invalid(""), 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: text: Required"}}`},
		{"missing _meta", modernHeaders("tools/list", ""),
			`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`, 400,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"missing or invalid _meta field \"io.modelcontextprotocol/protocolVersion\""}}`},
		{"header and _meta disagree", func() http.Header {
			h := modernHeaders("tools/list", "")
			h.Set("MCP-Protocol-Version", "2025-11-25")
			return h
		}(),
			`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{` + requestMeta + `}}`, 400,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32020,"message":"Mcp-Protocol-Version header \"2025-11-25\" does not match request io.modelcontextprotocol/protocolVersion \"2026-07-28\""}}`},
		{"unknown method is 404", modernHeaders("tools/delete", ""),
			`{"jsonrpc":"2.0","id":6,"method":"tools/delete","params":{` + requestMeta + `}}`, 404,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found: no method named 'tools/delete'"}}`},
		{"initialize is gone", modernHeaders("initialize", ""),
			`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"},` + requestMeta + `}}`, 404,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found: \"initialize\""}}`},
		{"unsupported revision in _meta", func() http.Header {
			h := modernHeaders("tools/list", "")
			h.Set("MCP-Protocol-Version", "v999.0.0")
			return h
		}(),
			`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`, 400,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32022,"message":"Bad Request: Unsupported protocol version: v999.0.0",` +
				`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := kit.Post(t, url, tt.header, tt.body)
			if r.Status != tt.wantStatus {
				t.Errorf("status = %d, want %d: %s", r.Status, tt.wantStatus, r.Body)
			}
			if d := kit.JSONDiff(t, []byte(tt.wantBody), r.Body); d != "" {
				t.Errorf("body (-want +got):\n%s", d)
			}
		})
	}
}

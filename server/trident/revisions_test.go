package trident_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// TestRevisionsThroughSDKClient connects the go-sdk's client at each
// revision the server serves, as a client of that era would (the 2025
// handshake, or 2026-07-28's server/discover and per-request _meta), and
// checks that each negotiates its own revision, lists and calls the tools,
// and sees invalid arguments as its revision has them: -32602 up to
// 2025-06-18, an isError result from 2025-11-25 (contracts/README.md).
func TestRevisionsThroughSDKClient(t *testing.T) {
	ts := start(t, nil)
	ctx := context.Background()
	for _, rev := range []string{mcphttp.Revision20250618, mcphttp.Revision20251125, mcphttp.Revision20260728} {
		t.Run(rev, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "revisions-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Errorf("negotiated %q, want %q", got, rev)
			}
			lt, err := cs.ListTools(ctx, nil)
			if err != nil || len(lt.Tools) != 3 {
				t.Fatalf("ListTools: %v, %+v", err, lt)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "estimate_fare", Arguments: map[string]any{
				"pickup": "Helensburgh Central Station", "dropoff": "Glasgow Airport", "vehicleType": "executive",
			}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if res.IsError || res.Content[0].(*mcp.TextContent).Text != "£62.40 · 22 miles · 33 min · day tariff" {
				t.Errorf("result: %+v", res.Content[0])
			}

			const want = "Invalid params: pickup: Required"
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "estimate_fare", Arguments: map[string]any{"dropoff": "Glasgow Airport"}})
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
	h := mcpHeaders()
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

// serverInfo is the _meta every 2026-07-28 result carries.
const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"trident-taxis-mcp","title":"Trident Taxis MCP tools","version":"0.1.0"}}`

// TestStatelessRevisionOverHTTP sends the 2026-07-28 wire by hand: no
// initialize, every request with its _meta, and checks each answer as that
// revision specifies it, against the 2025 answers to the same requests.
func TestStatelessRevisionOverHTTP(t *testing.T) {
	ts := start(t, nil)
	legacy := mcpHeaders()
	v1125 := mcpHeaders()
	v1125.Set("MCP-Protocol-Version", mcphttp.Revision20251125)
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
		{"tools/call with its _meta", modernHeaders("tools/call", "get_service_info"),
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_service_info","arguments":{},` + requestMeta + `}}`, 200, ""},
		{"invalid arguments are a result", modernHeaders("tools/call", "estimate_fare"),
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"dropoff":"Glasgow Airport"},` + requestMeta + `}}`, 200,
			`{"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `,"content":[{"type":"text","text":"Invalid params: pickup: Required"}],"isError":true,"resultType":"complete"}}`},
		{"invalid arguments are a result at 2025-11-25", v1125,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"dropoff":"Glasgow Airport"}}}`, 200,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid params: pickup: Required"}],"isError":true}}`},
		{"invalid arguments are -32602 at 2025-06-18", legacy,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"dropoff":"Glasgow Airport"}}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: pickup: Required"}}`},
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
			r := post(t, ts.URL+"/mcp", tt.header, tt.body)
			if r.status != tt.wantStatus {
				t.Errorf("status = %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if tt.wantBody == "" {
				return
			}
			if d := jsonDiff(t, []byte(tt.wantBody), r.body); d != "" {
				t.Errorf("body (-want +got):\n%s", d)
			}
		})
	}
}

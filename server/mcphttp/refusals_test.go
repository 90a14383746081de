package mcphttp_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// serveKit serves the kit's endpoint alone with the host's defaults.
func serveKit(t *testing.T) (*kit.Endpoint, string) {
	t.Helper()
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	return ep, kit.Serve(t, ep.Endpoint, cfg).URL
}

const notAcceptable = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`

// TestRefusals holds every refusal the front door answers before a tool
// runs to the error catalogue's status and body, word for word, in the
// order the checks run: Accept, Content-Type, protocol version, JSON,
// envelope, method, tool name. None of them reaches a tool.
func TestRefusals(t *testing.T) {
	ep, url := serveKit(t)
	call := kit.CallBody("5", kit.ToolEcho, `{"text":"hi"}`)
	tests := []struct {
		name       string
		header     func(h http.Header)
		body       string
		wantStatus int
		wantBody   string
	}{
		{"accept json only", func(h http.Header) { h.Set("Accept", "application/json") }, call, 406, notAcceptable},
		{"accept sse only", func(h http.Header) { h.Set("Accept", "text/event-stream") }, call, 406, notAcceptable},
		{"no accept", func(h http.Header) { h.Del("Accept") }, call, 406, notAcceptable},
		{"wildcard accept (curl's and fetch's default) is neither", func(h http.Header) { h.Set("Accept", "*/*") }, call, 406, notAcceptable},
		{"type wildcards are neither", func(h http.Header) { h.Set("Accept", "application/*, text/*") }, call, 406, notAcceptable},
		{"json named, the stream only by wildcard", func(h http.Header) { h.Set("Accept", "application/json, */*") }, call, 406, notAcceptable},
		{"both named beside a wildcard", func(h http.Header) { h.Set("Accept", "text/event-stream, application/json, */*;q=0.1") },
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200, `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"wrong content type", func(h http.Header) { h.Set("Content-Type", "text/plain") }, call, 415,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: Content-Type must be application/json"}}`},
		{"content type with parameters", func(h http.Header) { h.Set("Content-Type", "application/json; charset=utf-8") },
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200, `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"unsupported protocol version", func(h http.Header) { h.Set("MCP-Protocol-Version", "1999-01-01") }, call, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Unsupported protocol version: 1999-01-01",` +
				`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1999-01-01"}}}`},
		{"future protocol version: SEP-2575's code", func(h http.Header) { h.Set("MCP-Protocol-Version", "2099-01-01") }, call, 400,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Bad Request: Unsupported protocol version: 2099-01-01",` +
				`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}`},
		{"older protocol version accepted", func(h http.Header) { h.Set("MCP-Protocol-Version", "2025-03-26") }, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200,
			`{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"no protocol version header accepted", func(h http.Header) { h.Del("MCP-Protocol-Version") }, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200,
			`{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"parse error", nil, `{"jsonrpc":"2.0",`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		{"not json", nil, `hello`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'h' looking for beginning of value"}}`},
		{"trailing data", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: trailing data after the JSON value"}}`},
		{"empty body", nil, ``, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: empty request body"}}`},
		{"not an object", nil, `"ping"`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the body must be a JSON-RPC 2.0 object"}}`},
		{"wrong version", nil, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{"no method", nil, `{"jsonrpc":"2.0","id":1}`, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: method is required"}}`},
		{"empty method", nil, `{"jsonrpc":"2.0","id":1,"method":""}`, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: method must be a non-empty string"}}`},
		{"null id", nil, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{"array params", nil, `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":[]}`, 400,
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"Invalid Request: params must be an object"}}`},
		{"batch", nil, `[` + call + `]`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported by protocol 2025-06-18"}}`},
		{"unknown method", nil, `{"jsonrpc":"2.0","id":9,"method":"tools/delete"}`, 200,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found: no method named 'tools/delete'"}}`},
		{"unknown tool", nil, kit.CallBody("3", "book_now", `{}`), 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: no tool named 'book_now'"}}`},
		{"tool name missing", nil, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: name: Required"}}`},
		{"tool name not a string", nil, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: name: Expected string, received number"}}`},
		{"foreign origin", func(h http.Header) { h.Set("Origin", "http://evil.example.com") }, call, 403,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: origin not allowed"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := kit.Headers()
			if tt.header != nil {
				tt.header(h)
			}
			r := kit.Post(t, url, h, tt.body)
			if r.Status != tt.wantStatus {
				t.Errorf("status = %d, want %d", r.Status, tt.wantStatus)
			}
			if d := kit.JSONDiff(t, []byte(tt.wantBody), r.Body); d != "" {
				t.Errorf("body (-want +got):\n%s", d)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
		})
	}
	if n := ep.Calls(); n != 0 {
		t.Errorf("tools ran %d times for refused requests", n)
	}
}

// TestNotificationsAccepted: a notification is answered 202 with no body,
// whether the server knows it or not (JSON-RPC lets a receiver ignore what
// it does not know).
func TestNotificationsAccepted(t *testing.T) {
	_, url := serveKit(t)
	for _, m := range []string{"notifications/initialized", "notifications/whatever"} {
		r := kit.Post(t, url, kit.Headers(), `{"jsonrpc":"2.0","method":"`+m+`"}`)
		if r.Status != http.StatusAccepted || len(r.Body) != 0 {
			t.Errorf("%s: status %d body %q, want 202 and no body", m, r.Status, r.Body)
		}
	}
}

// TestMethodNotAllowed: stateless, the endpoint takes POST only; GET (a
// stream) and DELETE (a session) get 405 with Allow.
func TestMethodNotAllowed(t *testing.T) {
	_, url := serveKit(t)
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		r := kit.Do(t, m, url, kit.Headers(), "")
		if r.Status != 405 || r.Header.Get("Allow") != "POST, OPTIONS" || !strings.Contains(string(r.Body), `"code":-32000`) {
			t.Errorf("%s: %d Allow=%q %s, want 405 with Allow: POST, OPTIONS and a JSON-RPC error", m, r.Status, r.Header.Get("Allow"), r.Body)
		}
	}
}

// TestBodyLimit: a body over MaxBodyBytes gets 413 in the catalogue's
// words, and its connection closed; a small one is served.
func TestBodyLimit(t *testing.T) {
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	cfg.MaxBodyBytes = 512
	url := kit.Serve(t, ep.Endpoint, cfg).URL
	big := kit.CallBody("1", kit.ToolEcho, `{"text":"`+strings.Repeat("a", 600)+`"}`)
	r := kit.Post(t, url, kit.Headers(), big)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Payload Too Large: request body exceeds 512 bytes"}}`
	if r.Status != 413 || !r.Close {
		t.Errorf("status %d, close %v; want 413 and the connection closed", r.Status, r.Close)
	}
	if d := kit.JSONDiff(t, []byte(want), r.Body); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	// A body of unknown length is held to the limit as it is read.
	req, _ := http.NewRequest(http.MethodPost, url, io.MultiReader(strings.NewReader(big)))
	req.Header = kit.Headers()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || kit.JSONDiff(t, []byte(want), body) != "" {
		t.Errorf("chunked: %d %s, want 413", resp.StatusCode, body)
	}
	if r := kit.Post(t, url, kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.Status != 200 {
		t.Errorf("small request: status %d", r.Status)
	}
	if n := ep.Calls(); n != 0 {
		t.Errorf("tools ran %d times for refused bodies", n)
	}
}

// TestSlowBodyTimesOut: a client that sends headers and then trickles (or
// stalls) its body gets 408 once BodyReadTimeout passes, and the connection
// is closed, instead of holding it open for ever.
func TestSlowBodyTimesOut(t *testing.T) {
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	cfg.BodyReadTimeout = 50 * time.Millisecond
	addr := strings.TrimPrefix(kit.Serve(t, ep.Endpoint, cfg).URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A guard against hanging if the deadline never fires, not a timing.
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(conn, "POST / HTTP/1.1\r\nHost: "+addr+"\r\n"+
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("status %d, close %v, want 408 and the connection closed", resp.StatusCode, resp.Close)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the request body did not arrive within 50ms"}}`
	if d := kit.JSONDiff(t, []byte(want), body); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
}

// TestResponsesToServerRequestsAreDropped: a JSON-RPC response posted by a
// client (to a request a stateless server never sends) is acknowledged
// without an answer and runs nothing.
func TestResponsesToServerRequestsAreDropped(t *testing.T) {
	ep, url := serveKit(t)
	r := kit.Post(t, url, kit.Headers(), `{"jsonrpc":"2.0","id":4,"result":{}}`)
	if r.Status != http.StatusAccepted || len(r.Body) != 0 || ep.Calls() != 0 {
		t.Errorf("a response: %d %q (tools ran %d times), want 202 and no body", r.Status, r.Body, ep.Calls())
	}
}

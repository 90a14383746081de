package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/tridenttaxis/trident-mcp/server"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// fuzzPaths are the host's routes; the fuzzer picks one, or its own path.
var fuzzPaths = []string{kitPath, otherPath, "/healthz", "/readyz", "/metrics", server.DocsPath,
	"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp/other", "/"}

var fuzzMethods = []string{http.MethodPost, http.MethodGet, http.MethodOptions, http.MethodDelete, http.MethodHead, http.MethodPut}

// FuzzHandler sends arbitrary requests (method, path, headers, body)
// through the whole host in process: two endpoints behind the front door,
// the host's routes, the access log. Whatever arrives, the host must not
// panic (nor recover from one: the kit's panic tool is left out of the
// seeds' reach by name), must answer a status net/http can send, and every
// JSON reply of an MCP endpoint must be one well-formed JSON-RPC response
// (every SSE event too).
func FuzzHandler(f *testing.F) {
	call := kit.CallBody("1", kit.ToolEcho, `{"text":"Helensburgh & <Glasgow>"}`)
	std := "Content-Type: application/json\nAccept: application/json, text/event-stream\n"
	for _, s := range []struct {
		method, path uint8
		raw, headers string
		body         string
	}{
		{0, 0, "", std, call},
		{0, 0, "", std + "MCP-Protocol-Version: 2025-06-18\n", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`},
		{0, 0, "", std, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","_meta":{"progressToken":7}},"_meta":{"progressToken":7}}}`},
		{0, 0, "", std, `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`},
		{0, 0, "", std, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{0, 0, "", std, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`},
		{0, 1, "", std, kit.CallBody("1", kit.ToolRefuse, `{}`)},
		{0, 1, "", std + "MCP-Protocol-Version: 2026-07-28\nMcp-Method: server/discover\n", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{0, 0, "", "Content-Type: text/plain\n", "{"},
		{0, 0, "", std + "Origin: https://evil.example\n", call},
		{0, 0, "", std + "Authorization: Bearer x.y.z\nMcp-Session-Id: s\n", `{"jsonrpc":"1.0","id":null}`},
		{2, 0, "", "Origin: http://localhost:8080\nAccess-Control-Request-Method: POST\n", ""},
		{1, 2, "", "", ""}, {1, 4, "", "", ""}, {1, 5, "", "", ""}, {1, 6, "", "", ""},
		{0, 255, "/mcp/../mcp/kit?x=%zz", std, call},
	} {
		f.Add(s.method, s.path, s.raw, s.headers, []byte(s.body))
	}
	panics := &kit.PanicLog{}
	a, b := kits()
	// The panic tool's recovered panic is the front door's to answer
	// (mcphttp's tests); here a recovered panic is a bug, so no endpoint
	// offers it.
	for _, ep := range []*kit.Endpoint{a, b} {
		for i, tool := range ep.Tools {
			if tool.Def.Name == kit.ToolPanic {
				ep.Tools = append(ep.Tools[:i:i], ep.Tools[i+1:]...)
				break
			}
		}
	}
	a.Release() // the slow tool answers at once
	b.Release()
	srv, err := server.New(&server.Options{Logger: slog.New(panics)}, a.Endpoint, b.Endpoint)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { srv.Close() })
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, method, path uint8, rawPath, headers string, body []byte) {
		req := &http.Request{
			Method: fuzzMethods[int(method)%len(fuzzMethods)], Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Host: "localhost:8080", RemoteAddr: "127.0.0.1:40000",
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		}
		target := fuzzPaths[int(path)%len(fuzzPaths)]
		if path == 255 {
			target = rawPath
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return // net/http answers 400 before any handler
		}
		req.URL, req.RequestURI = u, target
		// Only headers net/http would deliver: valid names and values.
		for _, line := range strings.Split(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			value = strings.TrimSpace(value)
			if !ok || !httpguts.ValidHeaderFieldName(name) || !httpguts.ValidHeaderFieldValue(value) {
				continue
			}
			if http.CanonicalHeaderKey(name) == "Host" {
				req.Host = value
				continue
			}
			req.Header.Add(name, value)
		}
		before := panics.Panics()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if panics.Panics() != before {
			t.Fatalf("%s %s: the host recovered a panic (HTTP %d)", req.Method, target, rec.Code)
		}
		if rec.Code < 100 || rec.Code > 599 || rec.Code == http.StatusInternalServerError {
			t.Fatalf("%s %s: HTTP %d %s", req.Method, target, rec.Code, rec.Body)
		}
		ct := rec.Header().Get("Content-Type")
		switch mt, _, _ := mime.ParseMediaType(ct); {
		case req.Method == http.MethodHead:
		case u.Path == kitPath || u.Path == otherPath:
			kit.CheckReplies(t, ct, rec.Body.Bytes())
		case mt == "application/json" && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()):
			t.Fatalf("%s %s: HTTP %d, JSON reply that is not JSON: %q", req.Method, target, rec.Code, rec.Body)
		}
	})
}

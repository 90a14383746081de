package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// fuzzPaths are the host's routes; the fuzzer picks one, or its own path.
var fuzzPaths = []string{"/mcp", "/mcp/echo", "/healthz", "/readyz", "/metrics", "/mcp-docs",
	"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/"}

var fuzzMethods = []string{http.MethodPost, http.MethodGet, http.MethodOptions, http.MethodDelete, http.MethodHead, http.MethodPut}

// panicLog counts the host's panic records: a recovered panic still
// answers, but is a bug the fuzzer should report.
type panicLog struct {
	slog.Handler
	panics *atomic.Int64
}

func (h panicLog) Enabled(context.Context, slog.Level) bool { return true }

func (h panicLog) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "panic") {
		h.panics.Add(1)
	}
	return nil
}

// FuzzHandler sends arbitrary requests (method, path, headers, body)
// through the whole host in process: Trident and a second endpoint behind
// the front door, the host's routes, the access log. Whatever arrives, the
// host must not panic (nor recover from one), must answer a status net/http
// can send, and every JSON reply of an MCP endpoint must be one well-formed
// JSON-RPC response (every SSE event too).
func FuzzHandler(f *testing.F) {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport"}}}`
	std := "Content-Type: application/json\nAccept: application/json, text/event-stream\n"
	for _, s := range []struct {
		method, path uint8
		raw, headers string
		body         string
	}{
		{0, 0, "", std, call},
		{0, 0, "", std + "MCP-Protocol-Version: 2025-06-18\n", strings.Replace(call, `"id":1,`, `"id":1,"params":{"_meta":{"progressToken":"p"}},`, 1)},
		{0, 0, "", std, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"x","_meta":{"progressToken":7}},"_meta":{"progressToken":7}}}`},
		{0, 0, "", std, `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`},
		{0, 0, "", std, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{0, 0, "", std, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`},
		{0, 1, "", std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"refuse"}}}`},
		{0, 0, "", "Content-Type: text/plain\n", "{"},
		{0, 0, "", std + "Origin: https://evil.example\n", call},
		{0, 0, "", std + "Authorization: Bearer x.y.z\nMcp-Session-Id: s\n", `{"jsonrpc":"1.0","id":null}`},
		{2, 0, "", "Origin: http://localhost:8080\nAccess-Control-Request-Method: POST\n", ""},
		{1, 2, "", "", ""}, {1, 4, "", "", ""}, {1, 5, "", "", ""}, {1, 6, "", "", ""},
		{0, 255, "/mcp/../mcp?x=%zz", std, call},
	} {
		f.Add(s.method, s.path, s.raw, s.headers, []byte(s.body))
	}
	var panics atomic.Int64
	logger := slog.New(panicLog{panics: &panics})
	tri, err := trident.New(&trident.Options{Logger: logger})
	if err != nil {
		f.Fatal(err)
	}
	srv, err := server.New(&server.Options{Logger: logger}, tri, echoEndpoint())
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
		before := panics.Load()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if panics.Load() != before {
			t.Fatalf("%s %s: the host recovered a panic (HTTP %d)", req.Method, target, rec.Code)
		}
		if rec.Code < 100 || rec.Code > 599 || rec.Code == http.StatusInternalServerError {
			t.Fatalf("%s %s: HTTP %d %s", req.Method, target, rec.Code, rec.Body)
		}
		ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		mcp := u.Path == "/mcp" || u.Path == "/mcp/echo"
		switch {
		case req.Method == http.MethodHead || rec.Body.Len() == 0:
		case ct == "application/json" && mcp:
			checkRPC(t, rec.Body.Bytes())
		case ct == "application/json":
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s %s: HTTP %d, JSON reply that is not JSON: %q", req.Method, target, rec.Code, rec.Body)
			}
		case ct == "text/event-stream":
			sc := bufio.NewScanner(rec.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					checkRPC(t, []byte(data))
				}
			}
		}
	})
}

// checkRPC fails unless b is one JSON-RPC 2.0 message: a response (an id,
// and a result or an error with an integer code and a message) or a
// notification (a method, no id).
func checkRPC(t *testing.T, b []byte) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil || dec.More() {
		t.Fatalf("not one JSON object (%v): %q", err, b)
	}
	switch {
	case m.JSONRPC != "2.0":
		t.Fatalf("jsonrpc is %q, want 2.0: %s", m.JSONRPC, b)
	case m.Method != "" && m.ID == nil && m.Result == nil && m.Error == nil: // a notification
	case m.ID == nil:
		t.Fatalf("a response without an id: %s", b)
	case (m.Result == nil) == (m.Error == nil):
		t.Fatalf("want exactly one of result and error: %s", b)
	case m.Error != nil && (m.Error.Code == nil || m.Error.Message == nil):
		t.Fatalf("an error without an integer code and a message: %s", b)
	}
}

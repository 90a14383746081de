package relay_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/tridenttaxis/trident-mcp/server"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/servertest"
)

// FuzzRidesHandler sends arbitrary bodies and headers as POST /mcp/rides
// through the whole host in process (Relay behind the front door, with
// handoffs only, so no call leaves the process). The host must not panic
// (nor recover from one), must never answer 500, and every JSON or SSE
// reply must be well-formed JSON-RPC. After the run, a valid search still
// answers.
func FuzzRidesHandler(f *testing.F) {
	std := "Content-Type: application/json\nAccept: application/json, text/event-stream\n"
	search := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_rides","arguments":{"pickup":{"latitude":40.6413,"longitude":-73.7781},"dropoff":{"latitude":40.758,"longitude":-73.9855},"party_size":2}}}`
	for _, s := range []struct{ headers, body string }{
		{std, search},
		{std + "MCP-Protocol-Version: 2025-06-18\n", strings.Replace(search, `"params":{`, `"params":{"_meta":{"progressToken":"p"},`, 1)},
		{std, strings.Replace(search, "40.6413", "1e99999999999", 1)},
		{std, strings.Replace(search, "40.6413", `"40.6413"`, 1)},
		{std, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"compare_rides","arguments":{"options":[{}],"sort_by":"price"}}}`},
		{std, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"resolve_ride","arguments":{"option":{"option_id":"o","verification":{"kid":"k1","alg":"HS256","signature":"AAAA"}}}}}`},
		{std, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_ride_booking_handoff","arguments":{"provider":"uber","option":{}}}}`},
		{std, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"continue_journey","arguments":{"journey_id":"j","to_connector":"flights","journey_context":{"party_size":1e400}}}}`},
		{std, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search_rides","arguments":{"context":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}}`},
		{std, `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`},
		{std, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`},
		{std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`},
		{"Content-Type: text/plain\n", "{"},
	} {
		f.Add(s.headers, []byte(s.body))
	}
	panics := &kit.PanicLog{}
	logger := slog.New(panics)
	keys, err := signing.ParseKeys("k1:" + strings.Repeat("A", 43))
	if err != nil {
		f.Fatal(err)
	}
	rides, err := relay.New(&relay.Options{Logger: logger, Keys: keys})
	if err != nil {
		f.Fatal(err)
	}
	h := servertest.New(f, &server.Options{Logger: logger}, rides).Handler()
	serve := func(headers string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, relay.Path, bytes.NewReader(body))
		req.Host, req.RemoteAddr = "localhost:8080", "127.0.0.1:40000"
		// Only headers net/http would deliver: valid names and values.
		for _, line := range strings.Split(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			value = strings.TrimSpace(value)
			if !ok || !httpguts.ValidHeaderFieldName(name) || !httpguts.ValidHeaderFieldValue(value) || http.CanonicalHeaderKey(name) == "Host" {
				continue
			}
			req.Header.Add(name, value)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	f.Cleanup(func() {
		rec := serve(std, []byte(search))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"status":"handoff_available"`) {
			f.Errorf("a valid search after the run: HTTP %d %s", rec.Code, rec.Body)
		}
	})
	f.Fuzz(func(t *testing.T, headers string, body []byte) {
		before := panics.Panics()
		rec := serve(headers, body)
		if panics.Panics() != before {
			t.Fatalf("the host recovered a panic (HTTP %d) for %q", rec.Code, body)
		}
		if rec.Code < 100 || rec.Code > 599 || rec.Code == http.StatusInternalServerError {
			t.Fatalf("HTTP %d %s", rec.Code, rec.Body)
		}
		kit.CheckReplies(t, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	})
}

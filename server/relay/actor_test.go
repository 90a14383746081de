package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

// In OAuth mode options and contexts are bound to the token's subject and
// client: another caller presenting them is refused, even with the same
// session and journey.
func TestForeignActor(t *testing.T) {
	s, _ := fakeRelay(t, nil, &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}, nil)
	h := handlers(s)
	as := func(sub, clientID string) context.Context {
		return auth.WithCaller(context.Background(), auth.NewCaller(auth.CallerInfo{UserID: sub, ClientID: clientID}))
	}
	invoke := func(ctx context.Context, tool string, args any) (json.RawMessage, bool) {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := h[tool](ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: b}})
		sc, refused := structuredOf(t, res, err)
		return sc, refused
	}
	alice := as("alice", "app-1")
	raw, refused := invoke(alice, "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare})
	if refused {
		t.Fatalf("search refused: %s", raw)
	}
	out := decodeInto[mcptypes.SearchRidesResult](t, raw)
	args := map[string]any{"options": out.Options, "context": out.RelayContext}
	if raw, refused := invoke(alice, "compare_rides", args); refused {
		t.Fatalf("the issuing caller is refused: %s", raw)
	}
	for name, ctx := range map[string]context.Context{
		"another user":   as("mallory", "app-1"),
		"another client": as("alice", "app-2"),
		"anonymous":      context.Background(),
	} {
		raw, refused := invoke(ctx, "compare_rides", args)
		r := decodeInto[mcptypes.Refusal](t, raw)
		if !refused || r.Status != mcptypes.RefusalStatusInvalidContext {
			t.Errorf("%s: %s, want invalid_context (the context is alice's)", name, raw)
		}
	}
	// Mallory with a context of her own still cannot use alice's options.
	mallory := as("mallory", "app-1")
	raw, _ = invoke(mallory, "search_rides", map[string]any{})
	own := decodeInto[mcptypes.SearchRidesResult](t, raw).RelayContext
	raw, refused = invoke(mallory, "compare_rides", map[string]any{"options": out.Options, "context": own})
	if r := decodeInto[mcptypes.Refusal](t, raw); !refused || r.Status != mcptypes.RefusalStatusInvalidOption {
		t.Errorf("alice's option under mallory's context: %s, want invalid_option", raw)
	}
}

// A connector report under alice's context is refused for any other caller
// (403), and alice's own report is taken.
func TestForeignActorConnectorReport(t *testing.T) {
	s := mustRelay(t, relay.Options{})
	t.Cleanup(func() { s.Close() })
	h := handlers(s)
	alice := auth.WithCaller(context.Background(), auth.NewCaller(auth.CallerInfo{UserID: "alice", ClientID: "app-1"}))
	b, _ := json.Marshal(map[string]any{"pickup": jfk, "dropoff": timesSquare})
	res, err := h["search_rides"](alice, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "search_rides", Arguments: b}})
	raw, _ := structuredOf(t, res, err)
	rc := decodeInto[mcptypes.SearchRidesResult](t, raw).RelayContext

	// The endpoint's own authentication, as the host mounts it: here a
	// stand-in that takes the caller from test headers.
	mux := http.NewServeMux()
	protect := func(_ string, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sub := r.Header.Get("X-Test-Sub"); sub != "" {
				r = r.WithContext(auth.WithCaller(r.Context(), auth.NewCaller(auth.CallerInfo{UserID: sub, ClientID: r.Header.Get("X-Test-Client")})))
			}
			next.ServeHTTP(w, r)
		})
	}
	if err := s.Routes(mcphttp.Mount{PublicBaseURL: "http://127.0.0.1", ResourceURL: "http://127.0.0.1/mcp/rides", Protect: protect}, mux); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"context": rc, "connectors": []map[string]any{{"id": "stays", "installed": true, "enabled": true, "authorized": true}}})
	for _, tc := range []struct {
		sub, client string
		want        int
	}{
		{"mallory", "app-1", 403}, {"alice", "app-2", 403}, {"", "", 403}, {"alice", "app-1", 200},
	} {
		req := httptest.NewRequest("POST", relay.ConnectorsPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Test-Sub", tc.sub)
		req.Header.Set("X-Test-Client", tc.client)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		if w.Code != tc.want {
			t.Errorf("%s/%s: %d %s, want %d", tc.sub, tc.client, w.Code, w.Body, tc.want)
		}
	}
}

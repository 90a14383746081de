package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// A route an endpoint guards with Mount.Protect gets the endpoint's access
// in OAuth mode: 401 without a token for the endpoint's resource, 403
// insufficient_scope without the scope, the handler with both (seeing the
// caller); in public mode the handler directly.
func TestMountProtect(t *testing.T) {
	iss := devissuertest.New(t, devissuer.Options{})
	ep := echoEndpoint()
	ep.RouteScopes = []string{"echo:write"}
	ep.Routes = func(m mcphttp.Mount, mux *http.ServeMux) error {
		mux.Handle("POST /v1/echo", m.Protect("echo:write", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, _ := auth.CallerFrom(r.Context())
			if c == nil {
				w.Write([]byte("anonymous"))
				return
			}
			w.Write([]byte(c.UserID()))
		})))
		return nil
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	srv, err := server.New(&server.Options{Logger: slog.New(slog.DiscardHandler), PublicBaseURL: ts.URL,
		Auth: &auth.Config{Issuer: iss.IssuerURL()}}, ep)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	t.Cleanup(func() { ts.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for do(t, http.MethodGet, ts.URL+"/readyz", nil, "").status != http.StatusOK {
		if ctx.Err() != nil {
			t.Fatal("the host never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	token := func(resource, scope string) http.Header {
		tok, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: resource, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		return http.Header{"Authorization": {"Bearer " + tok}}
	}
	meta := ts.URL + "/.well-known/oauth-protected-resource/mcp/echo"
	if r := do(t, http.MethodPost, ts.URL+"/v1/echo", nil, ""); r.status != 401 || r.header.Get("WWW-Authenticate") != auth.Challenge(meta) {
		t.Errorf("no token: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if r := do(t, http.MethodPost, ts.URL+"/v1/echo", token(ts.URL+"/mcp", "echo:write"), ""); r.status != 401 {
		t.Errorf("a token for another resource: %d, want 401", r.status)
	}
	r := do(t, http.MethodPost, ts.URL+"/v1/echo", token(ts.URL+"/mcp/echo", "other"), "")
	if want := mcphttp.InsufficientScopeChallenge("echo:write", meta); r.status != 403 || r.header.Get("WWW-Authenticate") != want {
		t.Errorf("without the scope: %d %q, want 403 %q", r.status, r.header.Get("WWW-Authenticate"), want)
	}
	if r := do(t, http.MethodPost, ts.URL+"/v1/echo", token(ts.URL+"/mcp/echo", "other echo:write"), ""); r.status != 200 || r.body != devissuer.DefaultUser.ID {
		t.Errorf("with the scope: %d %q, want 200 and the caller", r.status, r.body)
	}
	if r := do(t, http.MethodGet, meta, nil, ""); !strings.Contains(r.body, `"scopes_supported":["echo:write"]`) {
		t.Errorf("metadata %s lacks scopes_supported", r.body)
	}
}

// In OAuth mode /metrics counts each endpoint's verdict cache look-ups: a
// client that reuses its token shows one miss (the full check) and a hit
// per further call.
func TestVerdictCacheLookupsOnMetrics(t *testing.T) {
	iss := devissuertest.New(t, devissuer.Options{})
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	srv, err := server.New(&server.Options{Logger: slog.New(slog.DiscardHandler), PublicBaseURL: ts.URL,
		Auth: &auth.Config{Issuer: iss.IssuerURL()}}, echoEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	t.Cleanup(func() { ts.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for do(t, http.MethodGet, ts.URL+"/readyz", nil, "").status != http.StatusOK {
		if ctx.Err() != nil {
			t.Fatal("the host never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	tok, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: ts.URL + "/mcp/echo"})
	if err != nil {
		t.Fatal(err)
	}
	h := mcpHeaders()
	h.Set("Authorization", "Bearer "+tok)
	for range 3 {
		if r := do(t, http.MethodPost, ts.URL+"/mcp/echo", h,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`); r.status != 200 {
			t.Fatalf("call: %d %s", r.status, r.body)
		}
	}
	m := do(t, http.MethodGet, ts.URL+"/metrics", nil, "").body
	for _, want := range []string{
		`mcp_auth_verdict_cache_lookups_total{endpoint="/mcp/echo",result="hit"} 2`,
		`mcp_auth_verdict_cache_lookups_total{endpoint="/mcp/echo",result="miss"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

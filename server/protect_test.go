package server_test

import (
	"context"
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
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/servertest"
)

// A route an endpoint guards with Mount.Protect gets the endpoint's access
// in OAuth mode: 401 without a token for the endpoint's resource, 403
// insufficient_scope without the scope, the handler with both (seeing the
// caller); in public mode the handler directly.
func TestMountProtect(t *testing.T) {
	iss := devissuertest.New(t, devissuer.Options{})
	ep := kit.New("/mcp/echo")
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
	ts := startReady(t, &server.Options{Auth: &auth.Config{Issuer: iss.IssuerURL()}}, ep.Endpoint)
	token := func(resource, scope string) http.Header {
		tok, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: resource, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		return http.Header{"Authorization": {"Bearer " + tok}}
	}
	meta := ts.URL + "/.well-known/oauth-protected-resource/mcp/echo"
	if r := kit.Do(t, http.MethodPost, ts.URL+"/v1/echo", nil, ""); r.Status != 401 || r.Header.Get("WWW-Authenticate") != auth.Challenge(meta) {
		t.Errorf("no token: %d %q", r.Status, r.Header.Get("WWW-Authenticate"))
	}
	if r := kit.Do(t, http.MethodPost, ts.URL+"/v1/echo", token(ts.URL+"/mcp", "echo:write"), ""); r.Status != 401 {
		t.Errorf("a token for another resource: %d, want 401", r.Status)
	}
	r := kit.Do(t, http.MethodPost, ts.URL+"/v1/echo", token(ts.URL+"/mcp/echo", "other"), "")
	if want := mcphttp.InsufficientScopeChallenge("echo:write", meta); r.Status != 403 || r.Header.Get("WWW-Authenticate") != want {
		t.Errorf("without the scope: %d %q, want 403 %q", r.Status, r.Header.Get("WWW-Authenticate"), want)
	}
	if r := kit.Do(t, http.MethodPost, ts.URL+"/v1/echo", token(ts.URL+"/mcp/echo", "other echo:write"), ""); r.Status != 200 || string(r.Body) != devissuer.DefaultUser.ID {
		t.Errorf("with the scope: %d %q, want 200 and the caller", r.Status, r.Body)
	}
	if r := kit.Get(t, meta); !strings.Contains(string(r.Body), `"scopes_supported":["echo:write"]`) {
		t.Errorf("metadata %s lacks scopes_supported", r.Body)
	}
	public := servertest.Start(t, nil, ep.Endpoint)
	if r := kit.Do(t, http.MethodPost, public.URL+"/v1/echo", nil, ""); r.Status != 200 || string(r.Body) != "anonymous" {
		t.Errorf("public mode: %d %q, want the handler without a caller", r.Status, r.Body)
	}
}

// In OAuth mode /metrics counts each endpoint's verdict cache look-ups: a
// client that reuses its token shows one miss (the full check) and a hit
// per further call.
func TestVerdictCacheLookupsOnMetrics(t *testing.T) {
	iss := devissuertest.New(t, devissuer.Options{})
	ts := startReady(t, &server.Options{Auth: &auth.Config{Issuer: iss.IssuerURL()}}, kit.New("/mcp/echo").Endpoint)
	tok, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: ts.URL + "/mcp/echo"})
	if err != nil {
		t.Fatal(err)
	}
	h := kit.Headers()
	h.Set("Authorization", "Bearer "+tok)
	for range 3 {
		if r := kit.Post(t, ts.URL+"/mcp/echo", h, kit.CallBody("1", kit.ToolEcho, `{"text":"hi"}`)); r.Status != 200 {
			t.Fatalf("call: %d %s", r.Status, r.Body)
		}
	}
	m := string(kit.Get(t, ts.URL+"/metrics").Body)
	for _, want := range []string{
		`mcp_auth_verdict_cache_lookups_total{endpoint="/mcp/echo",result="hit"} 2`,
		`mcp_auth_verdict_cache_lookups_total{endpoint="/mcp/echo",result="miss"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// startReady is servertest.Start for a host in OAuth mode: it returns once
// /readyz says the verifiers have the issuer's signing keys.
func startReady(t *testing.T, opts *server.Options, endpoints ...*mcphttp.Endpoint) *httptest.Server {
	t.Helper()
	ts := servertest.Start(t, opts, endpoints...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for kit.Get(t, ts.URL+"/readyz").Status != http.StatusOK {
		if ctx.Err() != nil {
			t.Fatal("the host never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ts
}

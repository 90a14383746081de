package e2e

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// TestModeProbe checks the one-request mode detection docs/oauth.md
// describes: GET /.well-known/oauth-protected-resource tells a client
// whether it needs a token (authorization_servers non-empty) or not
// (authorization_servers empty, authorization_required false), and the
// answer agrees with what an anonymous tool call then gets.
func TestModeProbe(t *testing.T) {
	oauthPair := newPair(t, pairConfig{})
	public := startServer(t, listen(t), server.Options{}, trident.Options{})
	waitReady(t, public.Base)

	cases := []struct {
		name     string
		srv      *mcpServer
		wantMeta map[string]any
		needs    bool
	}{
		{"public", public, map[string]any{
			"resource":                 public.Endpoint,
			"authorization_servers":    []any{},
			"bearer_methods_supported": []any{},
			"resource_documentation":   public.Base + "/mcp-docs",
			"authorization_required":   false,
		}, false},
		{"oauth", oauthPair.Server, map[string]any{
			"resource":                 oauthPair.Server.Endpoint,
			"authorization_servers":    []any{oauthPair.Issuer.IssuerURL()},
			"bearer_methods_supported": []any{"header"},
			"resource_documentation":   oauthPair.Server.Base + "/mcp-docs",
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The probe, as a client would read it.
			var meta map[string]any
			getJSON(t, c.srv.Base+"/.well-known/oauth-protected-resource", &meta)
			if d := cmp.Diff(c.wantMeta, meta); d != "" {
				t.Fatalf("metadata (-want +got):\n%s", d)
			}
			servers, _ := meta["authorization_servers"].([]any)
			if needs := len(servers) > 0; needs != c.needs {
				t.Fatalf("probe says token needed = %t, want %t", needs, c.needs)
			}
			// The path-suffixed form (RFC 9728 §3.1) that MCP clients try
			// first says the same.
			var suffixed map[string]any
			getJSON(t, c.srv.Base+"/.well-known/oauth-protected-resource/mcp", &suffixed)
			if d := cmp.Diff(meta, suffixed); d != "" {
				t.Errorf("path-suffixed metadata differs (-root +suffixed):\n%s", d)
			}

			// What the probe predicted.
			call := estimateFare(t, c.srv.Endpoint, nil)
			if c.needs {
				wantUnauthorized(t, call, c.srv.Base)
			} else {
				wantSampleResult(t, call)
				if call.Header.Get("WWW-Authenticate") != "" || call.Status == http.StatusUnauthorized {
					t.Errorf("public mode challenged an anonymous call: %d %q", call.Status, call.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
}

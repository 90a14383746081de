package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestEveryMetadataDocumentNamesTheHeader: each endpoint's
// protected-resource documents, in public mode and in OAuth mode, say that
// a token goes in the Authorization header, as the specification shows the
// document; only authorization_servers tells the modes apart.
func TestEveryMetadataDocumentNamesTheHeader(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts server.Options
	}{
		{"public", server.Options{}},
		{"oauth", server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:1/auth/v1", RefreshInterval: -1}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			url := startKits(t, &mode.opts)
			for _, path := range []string{
				"/.well-known/oauth-protected-resource",
				"/.well-known/oauth-protected-resource/mcp/kit",
				"/.well-known/oauth-protected-resource/mcp/other",
			} {
				r := kit.Get(t, url+path)
				var doc struct {
					AuthorizationServers   []string `json:"authorization_servers"`
					BearerMethodsSupported []string `json:"bearer_methods_supported"`
				}
				if r.Status != http.StatusOK || json.Unmarshal(r.Body, &doc) != nil {
					t.Fatalf("%s: %d %s", path, r.Status, r.Body)
				}
				if d := cmp.Diff([]string{"header"}, doc.BearerMethodsSupported); d != "" {
					t.Errorf("%s: bearer_methods_supported (-want +got):\n%s", path, d)
				}
				if oauth := len(doc.AuthorizationServers) > 0; oauth != (mode.opts.Auth != nil) {
					t.Errorf("%s: authorization_servers %q in %s mode", path, doc.AuthorizationServers, mode.name)
				}
			}
		})
	}
}

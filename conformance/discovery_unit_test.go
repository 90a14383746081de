package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiscoveryURLs(t *testing.T) {
	if got := CatalogueURL("https://mcp.example.com/mcp"); got != "https://mcp.example.com/.mcp/list-tools" {
		t.Errorf("CatalogueURL = %q", got)
	}
	for _, tc := range []struct {
		endpoint string
		want     []string
	}{
		{"https://tridenttaxis.online/mcp", []string{
			"https://tridenttaxis.online/.well-known/oauth-protected-resource/mcp",
			"https://tridenttaxis.online/.well-known/oauth-protected-resource",
		}},
		{"http://127.0.0.1:8080/mcp/rides/", []string{
			"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp/rides",
			"http://127.0.0.1:8080/.well-known/oauth-protected-resource",
		}},
		{"http://127.0.0.1:8080/", []string{"http://127.0.0.1:8080/.well-known/oauth-protected-resource"}},
	} {
		if d := cmp.Diff(tc.want, ResourceMetadataURLs(tc.endpoint)); d != "" {
			t.Errorf("ResourceMetadataURLs(%q) (-want +got):\n%s", tc.endpoint, d)
		}
	}
	for _, tc := range []struct {
		issuer string
		want   []string
	}{
		{"https://ref.supabase.co/auth/v1", []string{
			"https://ref.supabase.co/.well-known/oauth-authorization-server/auth/v1",
			"https://ref.supabase.co/auth/v1/.well-known/oauth-authorization-server",
		}},
		{"https://issuer.example", []string{"https://issuer.example/.well-known/oauth-authorization-server"}},
	} {
		if d := cmp.Diff(tc.want, AuthorizationServerMetadataURLs(tc.issuer)); d != "" {
			t.Errorf("AuthorizationServerMetadataURLs(%q) (-want +got):\n%s", tc.issuer, d)
		}
	}
}

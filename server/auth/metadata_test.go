package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProtectedResourceMetadata(t *testing.T) {
	oauth := Config{
		Issuer:                "https://ref.supabase.co/auth/v1",
		ResourceURL:           testResource,
		ResourceDocumentation: "https://tridenttaxis.online/mcp-docs",
	}.MetadataConfig()
	public := oauth
	public.RequireOAuth = false

	tests := []struct {
		name     string
		cfg      MetadataConfig
		method   string
		wantCode int
		wantBody string
	}{
		{"oauth mode is the published sample", oauth, http.MethodGet, 200,
			`{"resource":"https://tridenttaxis.online/mcp","authorization_servers":["https://ref.supabase.co/auth/v1"],"bearer_methods_supported":["header"],"resource_documentation":"https://tridenttaxis.online/mcp-docs"}`},
		{"public mode says no authorization", public, http.MethodGet, 200,
			`{"resource":"https://tridenttaxis.online/mcp","authorization_servers":[],"bearer_methods_supported":[],"resource_documentation":"https://tridenttaxis.online/mcp-docs","authorization_required":false}`},
		{"public mode without docs", MetadataConfig{ResourceURL: testResource}, http.MethodGet, 200,
			`{"resource":"https://tridenttaxis.online/mcp","authorization_servers":[],"bearer_methods_supported":[],"authorization_required":false}`},
		{"HEAD has no body", oauth, http.MethodHead, 200, ``},
		{"CORS preflight", oauth, http.MethodOptions, 204, ``},
		{"POST refused", oauth, http.MethodPost, 405, "method not allowed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{MetadataPath, MetadataPathFor("/mcp")} {
				r := httptest.NewRequest(tt.method, path, nil)
				r.Header.Set("Origin", "https://claude.ai")
				rec := httptest.NewRecorder()
				ProtectedResourceMetadataHandler(tt.cfg).ServeHTTP(rec, r)
				if rec.Code != tt.wantCode {
					t.Errorf("%s %s: status %d, want %d", tt.method, path, rec.Code, tt.wantCode)
				}
				if diff := cmp.Diff(tt.wantBody, rec.Body.String()); diff != "" {
					t.Errorf("%s %s: body (-want +got):\n%s", tt.method, path, diff)
				}
				if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "*" {
					t.Errorf("%s %s: Access-Control-Allow-Origin = %q, want *", tt.method, path, got)
				}
				if tt.wantCode == 200 && rec.Header().Get("Content-Type") != "application/json" {
					t.Errorf("%s %s: Content-Type = %q", tt.method, path, rec.Header().Get("Content-Type"))
				}
			}
		})
	}
}

func TestMetadataPathFor(t *testing.T) {
	for in, want := range map[string]string{
		"/mcp":       "/.well-known/oauth-protected-resource/mcp",
		"mcp/rides/": "/.well-known/oauth-protected-resource/mcp/rides",
		"/mcp/rides": "/.well-known/oauth-protected-resource/mcp/rides",
		"/":          "/.well-known/oauth-protected-resource",
	} {
		if got := MetadataPathFor(in); got != want {
			t.Errorf("MetadataPathFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMetadataHandlerRefusesIncompleteConfig(t *testing.T) {
	for _, cfg := range []MetadataConfig{
		{},
		{RequireOAuth: true, ResourceURL: testResource},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic for %+v", cfg)
				}
			}()
			ProtectedResourceMetadataHandler(cfg)
		}()
	}
}

func TestVerifierMetadataMatchesItsChecks(t *testing.T) {
	h := newHarness(t)
	want := MetadataConfig{
		RequireOAuth:          true,
		ResourceURL:           testResource,
		Issuer:                h.iss.issuer,
		ResourceDocumentation: "https://tridenttaxis.online/mcp-docs",
	}
	if diff := cmp.Diff(want, h.v.MetadataConfig()); diff != "" {
		t.Errorf("MetadataConfig (-want +got):\n%s", diff)
	}
	if got := h.v.ResourceMetadataURL(); got != testMetadataURL {
		t.Errorf("ResourceMetadataURL = %q, want %q", got, testMetadataURL)
	}
}

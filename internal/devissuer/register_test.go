package devissuer_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

func TestRegisterBothPathsAndDefaults(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	for _, path := range []string{"/oauth/register", "/oauth/clients/register"} {
		status, body := h.postJSON(h.issuer()+path, map[string]any{"redirect_uris": []string{redirect}})
		if status != http.StatusCreated {
			t.Fatalf("%s: status %d body %v", path, status, body)
		}
		got := map[string]any{}
		for _, k := range []string{"token_endpoint_auth_method", "grant_types", "response_types", "redirect_uris", "client_secret"} {
			got[k] = body[k]
		}
		want := map[string]any{
			"token_endpoint_auth_method": "none",
			"grant_types":                []any{"authorization_code", "refresh_token"},
			"response_types":             []any{"code"},
			"redirect_uris":              []any{redirect},
			"client_secret":              nil,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
		if id, _ := body["client_id"].(string); id == "" {
			t.Errorf("%s: no client_id", path)
		}
		if at, _ := body["client_id_issued_at"].(float64); int64(at) != h.clock.Now().Unix() {
			t.Errorf("%s: client_id_issued_at %v, want %d", path, body["client_id_issued_at"], h.clock.Now().Unix())
		}
	}
}

func TestRegisterRefusals(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	tests := []struct {
		name      string
		body      map[string]any
		wantError string
	}{
		{"no redirect_uris", map[string]any{}, "invalid_redirect_uri"},
		{"relative redirect", map[string]any{"redirect_uris": []string{"/callback"}}, "invalid_redirect_uri"},
		{"http non-loopback", map[string]any{"redirect_uris": []string{"http://example.com/cb"}}, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://example.com/cb#x"}}, "invalid_redirect_uri"},
		{"javascript scheme", map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri"},
		{"implicit grant", map[string]any{"redirect_uris": []string{redirect}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{"refresh only", map[string]any{"redirect_uris": []string{redirect}, "grant_types": []string{"refresh_token"}}, "invalid_client_metadata"},
		{"token response", map[string]any{"redirect_uris": []string{redirect}, "response_types": []string{"token"}}, "invalid_client_metadata"},
		{"private_key_jwt", map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
		{"unknown scope", map[string]any{"redirect_uris": []string{redirect}, "scope": "openid admin"}, "invalid_client_metadata"},
		{"redirect_uris not a list", map[string]any{"redirect_uris": redirect}, "invalid_client_metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := h.postJSON(h.issuer()+"/oauth/register", tt.body)
			if status != http.StatusBadRequest || body["error"] != tt.wantError {
				t.Errorf("status %d body %v, want 400 %s", status, body, tt.wantError)
			}
			if desc, _ := body["error_description"].(string); desc == "" {
				t.Errorf("no error_description in %v", body)
			}
		})
	}
	resp, err := h.http.Post(h.issuer()+"/oauth/register", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed JSON: status %d", resp.StatusCode)
	}
}

// TestConfidentialClient registers with client_secret_post and runs the
// flow; the secret is required at the token endpoint.
func TestConfidentialClient(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	for _, method := range []string{"client_secret_post", "client_secret_basic"} {
		t.Run(method, func(t *testing.T) {
			status, body := h.postJSON(h.issuer()+"/oauth/register", map[string]any{
				"redirect_uris": []string{redirect}, "token_endpoint_auth_method": method})
			if status != http.StatusCreated {
				t.Fatalf("register: %d %v", status, body)
			}
			secret, _ := body["client_secret"].(string)
			if secret == "" || body["client_secret_expires_at"] != float64(0) {
				t.Fatalf("register: want client_secret and client_secret_expires_at 0, got %v", body)
			}
			cfg := h.oauthConfig(body["client_id"].(string), redirect)
			cfg.ClientSecret = secret
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
			if method == "client_secret_basic" {
				cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
			}
			v := oauth2.GenerateVerifier()
			h.exchange(cfg, h.autoCode(cfg, v), v)

			// Without the secret the exchange fails.
			code := h.autoCode(cfg, v)
			status, errBody := h.postForm(h.issuer()+"/oauth/token", url.Values{
				"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
				"client_id": {cfg.ClientID}, "code_verifier": {v}, "resource": {testResource}})
			if status != http.StatusUnauthorized || errBody["error"] != "invalid_client" {
				t.Errorf("no secret: status %d body %v, want 401 invalid_client", status, errBody)
			}
		})
	}
}

func TestCORSOnAPIEndpoints(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	req, _ := http.NewRequest(http.MethodOptions, h.issuer()+"/oauth/register", nil)
	req.Header.Set("Origin", "http://localhost:6274")
	req.Header.Set("Access-Control-Request-Method", "POST")
	r := h.do(req)
	if r.status != http.StatusNoContent {
		t.Errorf("preflight: status %d", r.status)
	}
	resp, err := h.http.Get(h.issuer() + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("metadata Access-Control-Allow-Origin = %q", got)
	}
}

package devissuer

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"testing"
)

// FuzzValidateRegistration checks that any JSON body either is refused
// with an RFC 7591 error or yields metadata the rest of the issuer relies
// on: at least one absolute redirect URI without fragment, http only on
// loopback, the code grant, and a supported auth method.
func FuzzValidateRegistration(f *testing.F) {
	f.Add(`{"redirect_uris":["http://127.0.0.1:3000/cb"]}`)
	f.Add(`{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_post","scope":"openid email"}`)
	f.Add(`{"redirect_uris":["com.example.app:/cb"],"grant_types":["authorization_code"]}`)
	f.Add(`{"redirect_uris":["http://evil.example/cb"]}`)
	f.Add(`{"redirect_uris":["https://a.example/cb#frag"]}`)
	f.Add(`{"redirect_uris":[""],"grant_types":["refresh_token"]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req RegistrationRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		err := validateRegistration(&req)
		if err != nil {
			var re *registrationError
			if !errors.As(err, &re) || (re.code != "invalid_redirect_uri" && re.code != "invalid_client_metadata") {
				t.Fatalf("error %v is not an RFC 7591 error", err)
			}
			return
		}
		if len(req.RedirectURIs) == 0 {
			t.Fatal("accepted without redirect_uris")
		}
		for _, raw := range req.RedirectURIs {
			u, err := url.Parse(raw)
			if err != nil || !u.IsAbs() || u.Fragment != "" {
				t.Fatalf("accepted redirect_uri %q", raw)
			}
			if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
				t.Fatalf("accepted http redirect_uri on %q", u.Hostname())
			}
		}
		if !slices.Contains(req.GrantTypes, "authorization_code") {
			t.Fatalf("accepted grant_types %v", req.GrantTypes)
		}
		if !slices.Contains([]string{"none", "client_secret_post", "client_secret_basic"}, req.TokenEndpointAuthMethod) {
			t.Fatalf("accepted auth method %q", req.TokenEndpointAuthMethod)
		}
	})
}

func TestLoopbackPortVariant(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://localhost:1/cb", "http://localhost:2/cb", true},
		{"http://localhost/cb", "http://localhost:2/cb", true},
		{"http://127.0.0.1:1/cb", "http://127.0.0.1:9/cb", true},
		{"http://localhost:1/cb", "http://localhost:2/other", false},
		{"http://localhost:1/cb?x=1", "http://localhost:2/cb", false},
		{"http://localhost:1/cb", "http://127.0.0.1:2/cb", false},
		{"https://localhost:1/cb", "https://localhost:2/cb", false},
		{"http://example.com:1/cb", "http://example.com:2/cb", false},
		{"http://user@localhost:1/cb", "http://localhost:2/cb", false},
	}
	for _, tt := range tests {
		if got := loopbackPortVariant(tt.a, tt.b); got != tt.want {
			t.Errorf("loopbackPortVariant(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no base URL", Options{}},
		{"user without password", Options{BaseURL: "http://x", Users: []User{{ID: "1", Email: "a@b.test"}}}},
		{"bad email", Options{BaseURL: "http://x", Users: []User{{ID: "1", Email: "nope", Password: "p"}}}},
		{"duplicate email", Options{BaseURL: "http://x", Users: []User{{ID: "1", Email: "a@b.test", Password: "p"}, {ID: "2", Email: "a@b.test", Password: "q"}}}},
		{"unknown auto-approve user", Options{BaseURL: "http://x", AutoApproveUser: "who@b.test"}},
		{"bad resource", Options{BaseURL: "http://x", Resources: []string{"not a uri"}}},
	}
	for _, tt := range tests {
		if _, err := New(tt.opts); err == nil {
			t.Errorf("%s: New succeeded, want an error", tt.name)
		}
	}
}

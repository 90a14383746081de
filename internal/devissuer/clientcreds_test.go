package devissuer_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

// A registered service client gets a token of its own for the resource it
// names, with the scopes it asked for in the scope claim; a wrong secret,
// a missing or foreign resource, and a public client are refused.
func TestClientCredentials(t *testing.T) {
	h := newHarness(t, devissuer.Options{ServiceClients: []devissuer.ServiceClient{{ID: "relay", Secret: "s3cret"}}})
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.srv.HTTP.Client())
	cfg := func(secret, resource string, scopes ...string) *clientcredentials.Config {
		c := &clientcredentials.Config{ClientID: "relay", ClientSecret: secret, TokenURL: h.issuer() + "/oauth/token",
			Scopes: scopes, AuthStyle: oauth2.AuthStyleInHeader}
		if resource != "" {
			c.EndpointParams = map[string][]string{"resource": {resource}}
		}
		return c
	}
	tok, err := cfg("s3cret", testResource, "rides:read").Token(ctx)
	if err != nil {
		t.Fatalf("client_credentials: %v", err)
	}
	claims, _, err := h.verify(tok.AccessToken)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	aud, _ := claims["aud"].([]any)
	if claims["sub"] != "relay" || claims["client_id"] != "relay" || claims["scope"] != "rides:read" ||
		len(aud) != 2 || aud[0] != "authenticated" || aud[1] != testResource {
		t.Errorf("claims = %v; want sub and client_id relay, scope rides:read, aud [authenticated %s]", claims, testResource)
	}
	for name, c := range map[string]*clientcredentials.Config{
		"wrong secret":     cfg("nope", testResource),
		"no resource":      cfg("s3cret", ""),
		"foreign resource": cfg("s3cret", "http://elsewhere.example/mcp"),
		"unknown scope":    cfg("s3cret", testResource, "admin"),
	} {
		if _, err := c.Token(ctx); err == nil {
			t.Errorf("%s: got a token", name)
		}
	}
	// A public (DCR) client may not use the grant.
	id := h.register("http://127.0.0.1:1/cb")
	status, body := h.postForm(h.issuer()+"/oauth/token", map[string][]string{
		"grant_type": {"client_credentials"}, "client_id": {id}, "resource": {testResource}})
	if status == http.StatusOK {
		t.Errorf("public client got a client_credentials token: %v", body)
	}
}

// The authorization-code flow puts the granted scopes in the access
// token's scope claim, Relay's scopes included.
func TestScopeClaim(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	cfg := h.srv.Config(t)
	cfg.Scopes = []string{"rides:read", "journeys:write"}
	tok := h.srv.Token(t, cfg, testResource, "")
	claims, _, err := h.verify(tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := claims["scope"].(string); strings.Join(strings.Fields(got), " ") != "rides:read journeys:write" {
		t.Errorf("scope claim = %q, want %q", got, "rides:read journeys:write")
	}
}

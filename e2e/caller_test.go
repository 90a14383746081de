package e2e

import (
	"net/http"
	"testing"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// TestCallerReachesServer checks that the verified caller, not the
// connection, is who the server sees behind a request. No tool of the seed
// reads user data, so the one place the server visibly acts on the caller
// is the limiter's per-end-user rule (the seed's start_booking cap): with a
// cap of one call per user, the second call of one user is refused while
// another user, through the same OAuth client and the same connection
// source, still gets through. The limiter's clock is the pinned fare clock,
// so no bucket refills during the test.
func TestCallerReachesServer(t *testing.T) {
	driver := devissuer.User{ID: "0b7d4f5e-3c2a-4e1b-8f6d-9a8b7c6d5e4f", Email: "driver@tridenttaxis.test", Password: "driver-password"}
	p := newPair(t, pairConfig{
		Issuer: devissuer.Options{Users: []devissuer.User{devissuer.DefaultUser, driver}},
		Trident: trident.Options{RateLimitPolicy: &limits.Policy{Tools: map[string]limits.Rule{
			"get_service_info": {PerMinute: 1, ByEndUser: true},
		}}},
	})
	srv, iss := p.Server, p.Issuer
	cfg := iss.Config(t)
	dev := iss.Token(t, cfg, srv.Endpoint, devissuer.DefaultUser.Email)
	drv := iss.Token(t, cfg, srv.Endpoint, driver.Email)
	other := iss.Token(t, iss.Config(t), srv.Endpoint, devissuer.DefaultUser.Email) // same user, another client

	info := sample(t, "get_service_info.success").Request
	steps := []struct {
		who    string
		token  string
		status int
	}{
		{"dev user, first call", dev.AccessToken, http.StatusOK},
		{"dev user, second call", dev.AccessToken, http.StatusTooManyRequests},
		{"driver, same client", drv.AccessToken, http.StatusOK},
		{"dev user, another client", other.AccessToken, http.StatusTooManyRequests},
	}
	for _, s := range steps {
		c := post(t, srv.Endpoint, info, bearer(s.token))
		if c.Status != s.status {
			t.Errorf("%s: status %d, want %d: %s", s.who, c.Status, s.status, c.Body)
		}
		if s.status == http.StatusTooManyRequests && c.Header.Get("Retry-After") == "" {
			t.Errorf("%s: 429 without Retry-After", s.who)
		}
	}
}

package devissuer

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ory/fosite"
	"golang.org/x/oauth2"
)

// TestAuthorizationCodeIsShortLived checks the code's lifetime where it is
// decided: fosite stamps AuthCodeTTL into the Session this package defines,
// and refuses the exchange once that time has passed. A Session whose
// expiry map were not kept (or not cloned) would make every code immortal,
// and no flow test that exchanges at once would notice. fosite reads the
// wall clock for codes, so the test moves the stored expiry instead of
// waiting.
func TestAuthorizationCodeIsShortLived(t *testing.T) {
	const resource = "https://tridenttaxis.online/mcp"
	iss, err := New(Options{BaseURL: "http://issuer.test", Resources: []string{resource}, DevAutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	reg, err := iss.RegisterClient(context.Background(), RegistrationRequest{RedirectURIs: []string{"http://127.0.0.1:9/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	verifier := oauth2.GenerateVerifier()

	code := func() string {
		q := url.Values{
			"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:9/cb"},
			"state": {"state-expiry-1"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)},
			"code_challenge_method": {"S256"}, "resource": {resource},
		}
		req := httptest.NewRequest(http.MethodGet, "http://issuer.test/auth/v1/oauth/authorize?"+q.Encode(), nil)
		req.Header.Set(AutoApproveHeader, "1")
		rec := httptest.NewRecorder()
		iss.Handler().ServeHTTP(rec, req)
		loc, err := url.Parse(rec.Header().Get("Location"))
		if err != nil || loc.Query().Get("code") == "" {
			t.Fatalf("authorize: %d %s %s", rec.Code, rec.Header().Get("Location"), rec.Body)
		}
		return loc.Query().Get("code")
	}
	exchange := func(code string) (int, map[string]any) {
		form := url.Values{
			"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:9/cb"},
			"client_id": {reg.ClientID}, "code_verifier": {verifier}, "resource": {resource},
		}
		req := httptest.NewRequest(http.MethodPost, "http://issuer.test/auth/v1/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		iss.Handler().ServeHTTP(rec, req)
		var body map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		return rec.Code, body
	}
	// activeSession returns the session of the one unused code.
	activeSession := func() *Session {
		iss.store.mu.Lock()
		defer iss.store.mu.Unlock()
		var found []*Session
		for _, rec := range iss.store.codes {
			if rec.active {
				found = append(found, rec.req.GetSession().(*Session))
			}
		}
		if len(found) != 1 {
			t.Fatalf("%d unused codes stored, want 1", len(found))
		}
		return found[0]
	}

	// A fresh code is exchanged, and it was stamped to live AuthCodeTTL.
	c := code()
	if d := time.Until(activeSession().GetExpiresAt(fosite.AuthorizeCode)); d <= 0 || d > DefaultAuthCodeTTL+time.Second {
		t.Fatalf("code expires in %v, want within %v", d, DefaultAuthCodeTTL)
	}
	if status, body := exchange(c); status != http.StatusOK {
		t.Fatalf("exchange of a fresh code: status %d body %v", status, body)
	}

	// The same exchange of a code whose time has passed is refused.
	c = code()
	activeSession().SetExpiresAt(fosite.AuthorizeCode, time.Now().Add(-time.Second))
	// (fosite v0.49 answers invalid_request for it, with the expiry as debug.)
	if status, body := exchange(c); status != http.StatusBadRequest || body["error"] == nil || body["access_token"] != nil {
		t.Errorf("exchange of an expired code: status %d body %v, want 400 with an error and no token", status, body)
	}
}

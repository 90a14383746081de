// Package devissuertest starts a dev issuer on a loopback httptest server
// for other packages' tests, and runs the OAuth flow for them, so a test
// that needs a real access and refresh token gets one in a call.
package devissuertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

// Server is a running dev issuer.
type Server struct {
	*devissuer.Issuer
	// HTTP is the test server; HTTP.URL is Options.BaseURL.
	HTTP *httptest.Server
}

// New starts an issuer with opts and stops it when the test ends.
// BaseURL is set to the server's URL, and DevAutoApprove is turned on so
// that [Server.Token] works (it only honours an explicit parameter or
// header, so the HTML pages still work as usual).
func New(t testing.TB, opts devissuer.Options) *Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil) // listens already, so the URL is known
	opts.BaseURL = "http://" + srv.Listener.Addr().String()
	opts.DevAutoApprove = true
	iss, err := devissuer.New(opts)
	if err != nil {
		srv.Close()
		t.Fatalf("devissuertest: %v", err)
	}
	srv.Config.Handler = iss.Handler()
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		if err := iss.Close(); err != nil {
			t.Errorf("devissuertest: close: %v", err)
		}
	})
	return &Server{Issuer: iss, HTTP: srv}
}

// CallbackURL is the redirect URI [Server.Token] registers. Nothing
// listens there: the code is read from the redirect's Location.
const CallbackURL = "http://127.0.0.1:1/callback"

// Config returns an x/oauth2 config for a newly registered public client
// whose redirect URI is CallbackURL.
func (s *Server) Config(t testing.TB) *oauth2.Config {
	t.Helper()
	reg, err := s.RegisterClient(context.Background(), devissuer.RegistrationRequest{
		ClientName: "devissuertest", RedirectURIs: []string{CallbackURL}})
	if err != nil {
		t.Fatalf("devissuertest: register: %v", err)
	}
	m := s.Metadata()
	return &oauth2.Config{
		ClientID:    reg.ClientID,
		RedirectURL: CallbackURL,
		Scopes:      []string{"openid", "email", "profile"},
		Endpoint:    oauth2.Endpoint{AuthURL: m.AuthorizationEndpoint, TokenURL: m.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
	}
}

// Token runs the whole flow (authorize with PKCE S256 and resource,
// auto-approved as user, code exchange) for cfg and returns the tokens.
// An empty user means the first configured user.
func (s *Server) Token(t testing.TB, cfg *oauth2.Config, resource, user string) *oauth2.Token {
	t.Helper()
	if user == "" {
		user = s.Users()[0].Email
	}
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL("devissuertest-state",
		oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	req, _ := http.NewRequest(http.MethodGet, authURL, nil)
	req.Header.Set(devissuer.AutoApproveHeader, user)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("devissuertest: authorize: %v", err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		t.Fatalf("devissuertest: authorize: status %d, no redirect: %v", resp.StatusCode, err)
	}
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("devissuertest: authorize refused: %s: %s", loc.Query().Get("error"), loc.Query().Get("error_description"))
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.HTTP.Client())
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		t.Fatalf("devissuertest: exchange: %v", err)
	}
	return tok
}

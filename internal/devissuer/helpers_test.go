package devissuer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
)

const testResource = "https://tridenttaxis.online/mcp"

// fakeClock is the injected clock: tests move time instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is one issuer on loopback plus an HTTP client that never follows
// redirects, so tests can read the Location of each step.
type harness struct {
	t     testing.TB
	srv   *devissuertest.Server
	http  *http.Client
	clock *fakeClock
}

func newHarness(t testing.TB, opts devissuer.Options) *harness {
	t.Helper()
	clock := newFakeClock()
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	if opts.Resources == nil {
		opts.Resources = []string{testResource}
	}
	srv := startIssuer(t, opts)
	return &harness{t: t, srv: srv, clock: clock, http: &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (h *harness) issuer() string { return h.srv.IssuerURL() }

// getJSON fetches url and decodes the JSON body into v; it returns the status.
func (h *harness) getJSON(u string, v any) int {
	h.t.Helper()
	resp, err := h.http.Get(u)
	if err != nil {
		h.t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		h.t.Fatalf("GET %s: decode: %v", u, err)
	}
	return resp.StatusCode
}

// postJSON posts body as JSON and decodes the reply into a map.
func (h *harness) postJSON(u string, body any) (int, map[string]any) {
	h.t.Helper()
	b, _ := json.Marshal(body)
	resp, err := h.http.Post(u, "application/json", bytes.NewReader(b))
	return h.jsonReply(u, resp, err)
}

// postForm posts an x-www-form-urlencoded body and decodes the JSON reply.
func (h *harness) postForm(u string, form url.Values) (int, map[string]any) {
	h.t.Helper()
	resp, err := h.http.PostForm(u, form)
	return h.jsonReply(u, resp, err)
}

// jsonReply decodes the JSON object a POST to u answered; anything else
// fails the test.
func (h *harness) jsonReply(u string, resp *http.Response, err error) (int, map[string]any) {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		h.t.Fatalf("POST %s: status %d, body not JSON: %s", u, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// register registers a public client with the given redirect URIs.
func (h *harness) register(redirects ...string) string {
	h.t.Helper()
	status, body := h.postJSON(h.issuer()+"/oauth/register", map[string]any{
		"client_name":                "Test MCP Client",
		"redirect_uris":              redirects,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	if status != http.StatusCreated {
		h.t.Fatalf("register: status %d, body %v", status, body)
	}
	id, _ := body["client_id"].(string)
	if id == "" {
		h.t.Fatalf("register: no client_id in %v", body)
	}
	return id
}

func (h *harness) oauthConfig(clientID, redirect string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:    clientID,
		RedirectURL: redirect,
		Scopes:      []string{"openid", "email", "profile"},
		Endpoint: oauth2.Endpoint{
			AuthURL:   h.issuer() + "/oauth/authorize",
			TokenURL:  h.issuer() + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams,
		},
	}
}

// ctx carries the test server's client into x/oauth2.
func (h *harness) ctx() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, h.srv.HTTP.Client())
}

// authorize GETs the authorize URL and returns the redirect Location.
func (h *harness) authorize(authURL string, header http.Header) *url.URL {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, authURL, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatalf("authorize: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 3 {
		body, _ := io.ReadAll(resp.Body)
		h.t.Fatalf("authorize: status %d, want a redirect; body %s", resp.StatusCode, body)
	}
	loc, err := resp.Location()
	if err != nil {
		h.t.Fatalf("authorize: %v", err)
	}
	return loc
}

// autoCode runs authorize with the dev auto-approve parameter and returns
// the code, checking state comes back.
func (h *harness) autoCode(cfg *oauth2.Config, verifier string, extra ...oauth2.AuthCodeOption) string {
	h.t.Helper()
	state := "state-" + strings.Repeat("x", 12)
	opts := append([]oauth2.AuthCodeOption{
		oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", testResource),
		oauth2.SetAuthURLParam("dev_auto_approve", devissuer.DefaultUser.Email),
	}, extra...)
	loc := h.authorize(cfg.AuthCodeURL(state, opts...), nil)
	if got := loc.Query().Get("state"); got != state {
		h.t.Fatalf("redirect %s: state %q, want %q", loc, got, state)
	}
	code := loc.Query().Get("code")
	if code == "" {
		h.t.Fatalf("redirect %s has no code (error=%q %q)", loc, loc.Query().Get("error"), loc.Query().Get("error_description"))
	}
	return code
}

// exchange trades code for tokens with x/oauth2 as a real client would.
func (h *harness) exchange(cfg *oauth2.Config, code, verifier string) *oauth2.Token {
	h.t.Helper()
	tok, err := cfg.Exchange(h.ctx(), code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", testResource))
	if err != nil {
		h.t.Fatalf("exchange: %v", err)
	}
	return tok
}

// refresh posts grant_type=refresh_token as the seed's curl does.
func (h *harness) refresh(clientID, refreshToken string) (int, map[string]any) {
	h.t.Helper()
	return h.postForm(h.issuer()+"/oauth/token", url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {refreshToken},
		"client_id":     {clientID},
	})
}

// verify checks token against the JWKS served over HTTP and returns its
// claims and kid.
func (h *harness) verify(token string) (map[string]any, string, error) {
	h.t.Helper()
	var set jose.JSONWebKeySet
	if status := h.getJSON(h.issuer()+"/.well-known/jwks.json", &set); status != http.StatusOK {
		h.t.Fatalf("jwks: status %d", status)
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, "", err
	}
	kid := parsed.Headers[0].KeyID
	keys := set.Key(kid)
	if len(keys) != 1 {
		return nil, kid, &missingKidError{kid}
	}
	claims := map[string]any{}
	if err := parsed.Claims(keys[0].Key, &claims); err != nil {
		return nil, kid, err
	}
	return claims, kid, nil
}

type missingKidError struct{ kid string }

func (e *missingKidError) Error() string { return "kid " + e.kid + " not in JWKS" }

type pageResult struct {
	status   int
	body     string
	location *url.URL
}

func (h *harness) do(req *http.Request) pageResult {
	h.t.Helper()
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	loc, _ := resp.Location()
	return pageResult{status: resp.StatusCode, body: string(b), location: loc}
}

func (h *harness) get(u string) pageResult {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return h.do(req)
}

func (h *harness) post(u string, form url.Values) pageResult {
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.do(req)
}

// startIssuer is devissuertest.New without its DevAutoApprove default, so
// tests see exactly the options they set.
func startIssuer(t testing.TB, opts devissuer.Options) *devissuertest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	opts.BaseURL = "http://" + srv.Listener.Addr().String()
	iss, err := devissuer.New(opts)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	srv.Config.Handler = iss.Handler()
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		if err := iss.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &devissuertest.Server{Issuer: iss, HTTP: srv}
}

package e2e

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

// redirectURI is the seed's example callback. Nothing is fetched there:
// the code is read from the issuer's redirect.
const redirectURI = "https://my-client.example.com/oauth/callback"

// issuerMeta is the part of the RFC 8414 document a client reads (step 2).
type issuerMeta struct {
	Issuer                        string   `json:"issuer"`
	AuthorizationEndpoint         string   `json:"authorization_endpoint"`
	TokenEndpoint                 string   `json:"token_endpoint"`
	RegistrationEndpoint          string   `json:"registration_endpoint"`
	GrantTypesSupported           []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported"`
}

// flowClient is what a client keeps between the steps of the seed's flow.
type flowClient struct {
	meta     issuerMeta
	clientID string
	resource string
}

// TestOAuthFlow walks the seed's "OAuth 2.1 end-to-end flow" over HTTP,
// step by step, with nothing but the 401 as a starting point.
func TestOAuthFlow(t *testing.T) {
	p := newPair(t, pairConfig{})
	srv := p.Server

	// Step 0: an anonymous call is refused with the seed's 401, whose
	// challenge names the resource metadata.
	first := estimateFare(t, srv.Endpoint, nil)
	wantUnauthorized(t, first, srv.Base)
	metaURL := resourceMetadataOf(t, first.Header)

	// Step 1: discover the resource.
	var prm map[string]any
	getJSON(t, metaURL, &prm)
	wantPRM := map[string]any{
		"resource":                 srv.Endpoint,
		"authorization_servers":    []any{p.Issuer.IssuerURL()},
		"bearer_methods_supported": []any{"header"},
		"resource_documentation":   srv.Base + "/mcp-docs",
	}
	if d := cmp.Diff(wantPRM, prm); d != "" {
		t.Fatalf("protected resource metadata (-want +got):\n%s", d)
	}
	issuer := prm["authorization_servers"].([]any)[0].(string)

	// Step 2: the issuer's RFC 8414 metadata.
	var fc flowClient
	fc.resource = prm["resource"].(string)
	getJSON(t, issuer+"/.well-known/oauth-authorization-server", &fc.meta)
	if fc.meta.Issuer != issuer {
		t.Errorf("metadata issuer %q, want %q", fc.meta.Issuer, issuer)
	}
	if !slices.Contains(fc.meta.CodeChallengeMethodsSupported, "S256") {
		t.Errorf("code_challenge_methods_supported %q lacks S256", fc.meta.CodeChallengeMethodsSupported)
	}
	for _, g := range []string{"authorization_code", "refresh_token"} {
		if !slices.Contains(fc.meta.GrantTypesSupported, g) {
			t.Errorf("grant_types_supported %q lacks %s", fc.meta.GrantTypesSupported, g)
		}
	}

	// Step 3: DCR at the seed's path, as a public client.
	fc.clientID = register(t, issuer+"/oauth/register")
	if fc.meta.RegistrationEndpoint != issuer+"/oauth/register" {
		// The advertised endpoint (Supabase's) must register too.
		register(t, fc.meta.RegistrationEndpoint)
	}

	// Steps 4-5 through the HTML pages: sign in at /auth, approve at
	// /.lovable/oauth/consent, exchange the code.
	tok := fc.exchange(t, fc.authorizeByPages(t, devissuer.DefaultUser))
	header, claims := jwtParts(t, tok.AccessToken)
	if header["kid"] != p.Issuer.CurrentKeyID() || header["alg"] != "ES256" {
		t.Errorf("access token header %v, want alg ES256 and kid %s", header, p.Issuer.CurrentKeyID())
	}
	wantClaims := map[string]any{
		"iss": issuer, "sub": devissuer.DefaultUser.ID, "email": devissuer.DefaultUser.Email,
		"aud": []any{"authenticated", srv.Endpoint}, "client_id": fc.clientID, "role": "authenticated",
	}
	for k, want := range wantClaims {
		if d := cmp.Diff(want, claims[k]); d != "" {
			t.Errorf("claim %s (-want +got):\n%s", k, d)
		}
	}

	// Step 6: call a tool with the token; the seed's sample comes back.
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(tok.AccessToken)))

	// Step 7: refresh. The refresh token rotates; the old access token
	// still verifies until it expires (the server checks JWTs offline).
	refreshed := fc.refresh(t, tok.RefreshToken)
	if refreshed.Status != http.StatusOK {
		t.Fatalf("refresh: %d %s: %s", refreshed.Status, refreshed.Error, refreshed.ErrorDescription)
	}
	if refreshed.RefreshToken == "" || refreshed.RefreshToken == tok.RefreshToken {
		t.Errorf("refresh token did not rotate: %q", refreshed.RefreshToken)
	}
	if refreshed.AccessToken == tok.AccessToken {
		t.Errorf("refresh returned the same access token")
	}
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(refreshed.AccessToken)))
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(tok.AccessToken)))

	// Reusing the rotated refresh token revokes the family: it fails, and
	// so does the newest refresh token.
	reuse := fc.refresh(t, tok.RefreshToken)
	if reuse.Status != http.StatusBadRequest || reuse.Error != "invalid_grant" {
		t.Errorf("reusing a rotated refresh token: %d %q, want 400 invalid_grant", reuse.Status, reuse.Error)
	}
	newest := fc.refresh(t, refreshed.RefreshToken)
	if newest.Status != http.StatusBadRequest || newest.Error != "invalid_grant" {
		t.Errorf("newest refresh token after the family was revoked: %d %q, want 400 invalid_grant", newest.Status, newest.Error)
	}

	// Re-consent (this time by the dev auto-approve header): a new family
	// whose tokens work and refresh.
	again := fc.exchange(t, fc.authorizeAutoApprove(t, devissuer.DefaultUser.Email))
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(again.AccessToken)))
	next := fc.refresh(t, again.RefreshToken)
	if next.Status != http.StatusOK {
		t.Fatalf("refresh after re-consent: %d %s: %s", next.Status, next.Error, next.ErrorDescription)
	}
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(next.AccessToken)))
}

// register runs the seed's step 3 curl and returns the client_id.
func register(t *testing.T, endpoint string) string {
	t.Helper()
	body := `{"client_name":"My MCP Client","redirect_uris":["` + redirectURI + `"],` +
		`"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("DCR: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var reg struct {
		ClientID                string `json:"client_id"`
		ClientIDIssuedAt        int64  `json:"client_id_issued_at"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
		ClientSecret            string `json:"client_secret"`
	}
	if err := json.Unmarshal(b, &reg); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("DCR at %s: status %d (want 201): %s", endpoint, resp.StatusCode, b)
	}
	if reg.ClientID == "" || reg.ClientIDIssuedAt == 0 || reg.TokenEndpointAuthMethod != "none" || reg.ClientSecret != "" {
		t.Errorf("DCR answer %s: want a client_id, client_id_issued_at, method none and no secret", b)
	}
	return reg.ClientID
}

// pkce is one authorization request's secrets.
type pkce struct{ verifier, state string }

// authURL builds the seed's step 4 URL.
func (fc *flowClient) authURL() (string, pkce) {
	pk := pkce{verifier: oauth2.GenerateVerifier(), state: oauth2.GenerateVerifier()[:16]}
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {fc.clientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {"openid email profile"},
		"state":                 {pk.state},
		"code_challenge":        {oauth2.S256ChallengeFromVerifier(pk.verifier)},
		"code_challenge_method": {"S256"},
		"resource":              {fc.resource},
	}
	return fc.meta.AuthorizationEndpoint + "?" + q.Encode(), pk
}

// authorized is the code the redirect delivered, with its request's PKCE.
type authorized struct {
	code string
	pkce
}

// stopAtCallback follows redirects inside the issuer and stops at the
// client's redirect URI.
func stopAtCallback(req *http.Request, _ []*http.Request) error {
	if strings.HasPrefix(req.URL.String(), redirectURI) {
		return http.ErrUseLastResponse
	}
	return nil
}

// codeFrom reads the code from the final redirect to the callback,
// checking its state.
func codeFrom(t *testing.T, resp *http.Response, pk pkce) authorized {
	t.Helper()
	loc, err := resp.Location()
	if err != nil || !strings.HasPrefix(loc.String(), redirectURI) {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("no redirect to the callback: status %d, Location %v: %s", resp.StatusCode, loc, b)
	}
	q := loc.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		t.Fatalf("authorize refused: %s: %s", q.Get("error"), q.Get("error_description"))
	}
	if q.Get("state") != pk.state {
		t.Errorf("state %q, want %q", q.Get("state"), pk.state)
	}
	return authorized{code: q.Get("code"), pkce: pk}
}

var (
	formAction = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	hiddenID   = regexp.MustCompile(`name="authorization_id" value="([^"]+)"`)
)

// formOf returns the action and authorization_id of the page's form.
func formOf(t *testing.T, page []byte) (action, id string) {
	t.Helper()
	a, i := formAction.FindSubmatch(page), hiddenID.FindSubmatch(page)
	if a == nil || i == nil {
		t.Fatalf("no sign-in/consent form in page:\n%s", page)
	}
	return html.UnescapeString(string(a[1])), html.UnescapeString(string(i[1]))
}

// authorizeByPages does what a user does in a browser: open the authorize
// URL, sign in on the HTML page, approve on the consent page.
func (fc *flowClient) authorizeByPages(t *testing.T, user devissuer.User) authorized {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: stopAtCallback}
	u, pk := fc.authURL()

	page := fetchPage(t, browser, http.MethodGet, u, nil, "/auth")
	action, id := formOf(t, page)

	// A wrong password keeps the user on the sign-in page.
	bad := url.Values{"authorization_id": {id}, "email": {user.Email}, "password": {"wrong"}}
	resp, err := browser.PostForm(action, bad)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("sign-in with a wrong password: status %d, want 401", resp.StatusCode)
	}

	good := url.Values{"authorization_id": {id}, "email": {user.Email}, "password": {user.Password}}
	page = fetchPage(t, browser, http.MethodPost, action, good, "/.lovable/oauth/consent")
	if !bytes.Contains(page, []byte(html.EscapeString(fc.resource))) {
		t.Errorf("consent page does not name the resource %s:\n%s", fc.resource, page)
	}
	action, id = formOf(t, page)

	resp, err = browser.PostForm(action, url.Values{"authorization_id": {id}, "decision": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return codeFrom(t, resp, pk)
}

// fetchPage requests u (following redirects) and wants a 200 HTML page at
// path.
func fetchPage(t *testing.T, c *http.Client, method, u string, form url.Values, path string) []byte {
	t.Helper()
	var resp *http.Response
	var err error
	if method == http.MethodPost {
		resp, err = c.PostForm(u, form)
	} else {
		resp, err = c.Get(u)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != path {
		t.Fatalf("%s %s ended at %s with %d, want %s with 200:\n%s", method, u, resp.Request.URL, resp.StatusCode, path, b)
	}
	return b
}

// authorizeAutoApprove uses the dev issuer's X-Dev-Auto-Approve header.
func (fc *flowClient) authorizeAutoApprove(t *testing.T, email string) authorized {
	t.Helper()
	u, pk := fc.authURL()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set(devissuer.AutoApproveHeader, email)
	resp, err := (&http.Client{CheckRedirect: stopAtCallback}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return codeFrom(t, resp, pk)
}

// exchange is the seed's step 5 curl.
func (fc *flowClient) exchange(t *testing.T, a authorized) tokenResponse {
	t.Helper()
	tr := postForm(t, fc.meta.TokenEndpoint, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {a.code},
		"redirect_uri":  {redirectURI},
		"client_id":     {fc.clientID},
		"code_verifier": {a.verifier},
		"resource":      {fc.resource},
	})
	if tr.Status != http.StatusOK {
		t.Fatalf("code exchange: %d %s: %s", tr.Status, tr.Error, tr.ErrorDescription)
	}
	if tr.AccessToken == "" || tr.RefreshToken == "" || !strings.EqualFold(tr.TokenType, "bearer") || tr.ExpiresIn != 3600 {
		t.Errorf("token response: type %q, expires_in %d, access %t, refresh %t; want Bearer, 3600 and both tokens",
			tr.TokenType, tr.ExpiresIn, tr.AccessToken != "", tr.RefreshToken != "")
	}
	return tr
}

// refresh is the seed's refresh curl.
func (fc *flowClient) refresh(t *testing.T, refreshToken string) tokenResponse {
	t.Helper()
	return postForm(t, fc.meta.TokenEndpoint, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {refreshToken},
		"client_id":     {fc.clientID},
	})
}

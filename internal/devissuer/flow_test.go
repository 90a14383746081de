package devissuer_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

const redirect = "http://127.0.0.1:47123/callback"

func TestMetadataBothWellKnownForms(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	var atIssuer, atRoot, oidc map[string]any
	for u, v := range map[string]*map[string]any{
		h.issuer() + "/.well-known/oauth-authorization-server":             &atIssuer,
		h.srv.HTTP.URL + "/.well-known/oauth-authorization-server/auth/v1": &atRoot,
		h.issuer() + "/.well-known/openid-configuration":                   &oidc,
	} {
		if status := h.getJSON(u, v); status != http.StatusOK {
			t.Fatalf("GET %s: status %d", u, status)
		}
	}
	if diff := cmp.Diff(atIssuer, atRoot); diff != "" {
		t.Errorf("RFC 8414 root form differs (-issuer +root):\n%s", diff)
	}
	if diff := cmp.Diff(atIssuer, oidc); diff != "" {
		t.Errorf("openid-configuration differs (-rfc8414 +oidc):\n%s", diff)
	}
	want := map[string]any{
		"issuer":                                h.issuer(),
		"authorization_endpoint":                h.issuer() + "/oauth/authorize",
		"token_endpoint":                        h.issuer() + "/oauth/token",
		"registration_endpoint":                 h.issuer() + "/oauth/clients/register",
		"jwks_uri":                              h.issuer() + "/.well-known/jwks.json",
		"code_challenge_methods_supported":      []any{"S256"},
		"grant_types_supported":                 []any{"authorization_code", "refresh_token", "client_credentials"},
		"response_types_supported":              []any{"code"},
		"token_endpoint_auth_methods_supported": []any{"none", "client_secret_post", "client_secret_basic"},
	}
	got := map[string]any{}
	for k := range want {
		got[k] = atIssuer[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(h.issuer(), "/auth/v1") {
		t.Errorf("issuer %q does not use Supabase's /auth/v1 layout", h.issuer())
	}
}

// TestEndToEndAutoApprove walks the seed's steps 2-7 with x/oauth2 as the
// client: discovery, DCR, authorize with PKCE S256 + state + resource,
// exchange, claims and signature, rotation, reuse revoking the family,
// and re-consent.
func TestEndToEndAutoApprove(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})

	var meta devissuer.Metadata
	h.getJSON(h.srv.HTTP.URL+"/.well-known/oauth-authorization-server/auth/v1", &meta)
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	cfg.Endpoint.AuthURL, cfg.Endpoint.TokenURL = meta.AuthorizationEndpoint, meta.TokenEndpoint
	// x/oauth2's default: Basic auth with an empty secret first. A public
	// client must get through that way too.
	cfg.Endpoint.AuthStyle = oauth2.AuthStyleAutoDetect

	verifier := oauth2.GenerateVerifier()
	tok := h.exchange(cfg, h.autoCode(cfg, verifier, oauth2.SetAuthURLParam("nonce", "nonce-123")), verifier)
	idToken, _ := tok.Extra("id_token").(string)
	idClaims, _, err := h.verify(idToken)
	if err != nil {
		t.Fatalf("id_token (openid was granted): %v", err)
	}
	if idClaims["aud"] != clientID || idClaims["nonce"] != "nonce-123" || idClaims["sub"] != devissuer.DefaultUser.ID {
		t.Errorf("id_token aud/nonce/sub = %v/%v/%v", idClaims["aud"], idClaims["nonce"], idClaims["sub"])
	}
	if tok.RefreshToken == "" {
		t.Fatal("no refresh_token in the code exchange")
	}
	if got := tok.Extra("expires_in"); got != float64(3600) {
		t.Errorf("expires_in = %v, want 3600", got)
	}
	if !strings.EqualFold(tok.TokenType, "bearer") {
		t.Errorf("token_type = %q, want bearer", tok.TokenType)
	}

	claims, kid, err := h.verify(tok.AccessToken)
	if err != nil {
		t.Fatalf("access token does not verify against the JWKS: %v", err)
	}
	if kid != h.srv.CurrentKeyID() {
		t.Errorf("kid = %q, want current key %q", kid, h.srv.CurrentKeyID())
	}
	now := h.clock.Now().Unix()
	want := map[string]any{
		"iss":          h.issuer(),
		"sub":          devissuer.DefaultUser.ID,
		"aud":          []any{"authenticated", testResource},
		"email":        devissuer.DefaultUser.Email,
		"role":         "authenticated",
		"client_id":    clientID,
		"aal":          "aal1",
		"is_anonymous": false,
		"iat":          float64(now),
		"exp":          float64(now + 3600),
	}
	got := map[string]any{}
	for k := range want {
		got[k] = claims[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("access token claims (-want +got):\n%s", diff)
	}
	sessionID, _ := claims["session_id"].(string)
	if len(sessionID) != 36 {
		t.Errorf("session_id = %q, want a UUID", sessionID)
	}

	// Step 7: refresh rotates.
	status, r1 := h.refresh(clientID, tok.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("refresh: status %d, body %v", status, r1)
	}
	rt1, _ := r1["refresh_token"].(string)
	if rt1 == "" || rt1 == tok.RefreshToken {
		t.Fatalf("refresh did not rotate: old %q new %q", tok.RefreshToken, rt1)
	}
	refreshed, _, err := h.verify(r1["access_token"].(string))
	if err != nil {
		t.Fatalf("refreshed access token: %v", err)
	}
	if refreshed["session_id"] != sessionID || refreshed["client_id"] != clientID {
		t.Errorf("refreshed token session_id/client_id = %v/%v, want %v/%v",
			refreshed["session_id"], refreshed["client_id"], sessionID, clientID)
	}
	if diff := cmp.Diff(want["aud"], refreshed["aud"]); diff != "" {
		t.Errorf("refreshed aud (-want +got):\n%s", diff)
	}
	status, r2 := h.refresh(clientID, rt1)
	if status != http.StatusOK {
		t.Fatalf("second refresh: status %d, body %v", status, r2)
	}
	newest := r2["refresh_token"].(string)

	// Reusing a rotated token revokes the whole family.
	status, reuse := h.refresh(clientID, tok.RefreshToken)
	if status != http.StatusBadRequest || reuse["error"] != "invalid_grant" {
		t.Fatalf("reuse of rotated refresh token: status %d body %v, want 400 invalid_grant", status, reuse)
	}
	status, afterRevoke := h.refresh(clientID, newest)
	if status != http.StatusBadRequest || afterRevoke["error"] != "invalid_grant" {
		t.Fatalf("newest refresh token after family revocation: status %d body %v, want 400 invalid_grant", status, afterRevoke)
	}

	// Re-consent gives a working token again.
	v2 := oauth2.GenerateVerifier()
	tok2 := h.exchange(cfg, h.autoCode(cfg, v2), v2)
	if _, _, err := h.verify(tok2.AccessToken); err != nil {
		t.Fatalf("token after re-consent: %v", err)
	}
	if status, body := h.refresh(clientID, tok2.RefreshToken); status != http.StatusOK {
		t.Fatalf("refresh after re-consent: status %d body %v", status, body)
	}
}

// TestEndToEndHTMLForms signs in and consents through the pages, as a
// browser would, with a cookie jar.
func TestEndToEndHTMLForms(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	jar, _ := cookiejar.New(nil)
	h.http.Jar = jar
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)

	start := func(verifier string) *url.URL {
		t.Helper()
		loc := h.authorize(cfg.AuthCodeURL("state-html-flow-1",
			oauth2.S256ChallengeOption(verifier),
			oauth2.SetAuthURLParam("resource", testResource),
			oauth2.SetAuthURLParam("dev_auto_approve", devissuer.DefaultUser.Email), // ignored: DevAutoApprove is off
		), nil)
		return loc
	}
	verifier := oauth2.GenerateVerifier()
	loc := start(verifier)
	if loc.Path != devissuer.SignInPath {
		t.Fatalf("authorize redirected to %s, want the sign-in page %s", loc, devissuer.SignInPath)
	}
	authzID := loc.Query().Get("authorization_id")

	page := h.get(loc.String())
	if page.status != http.StatusOK || !strings.Contains(page.body, `name="password"`) {
		t.Fatalf("sign-in page: status %d body %.200s", page.status, page.body)
	}
	bad := h.post(h.srv.HTTP.URL+devissuer.SignInPath, url.Values{
		"authorization_id": {authzID}, "email": {devissuer.DefaultUser.Email}, "password": {"wrong"}})
	if bad.status != http.StatusUnauthorized || !strings.Contains(bad.body, "Invalid email or password") {
		t.Fatalf("wrong password: status %d body %.200s", bad.status, bad.body)
	}
	ok := h.post(h.srv.HTTP.URL+devissuer.SignInPath, url.Values{
		"authorization_id": {authzID}, "email": {devissuer.DefaultUser.Email}, "password": {devissuer.DefaultUser.Password}})
	if ok.status != http.StatusSeeOther || ok.location.Path != devissuer.ConsentPath {
		t.Fatalf("sign-in: status %d location %v, want 303 to %s", ok.status, ok.location, devissuer.ConsentPath)
	}
	consent := h.get(ok.location.String())
	if consent.status != http.StatusOK || !strings.Contains(consent.body, "Test MCP Client") || !strings.Contains(consent.body, testResource) {
		t.Fatalf("consent page: status %d body %.300s", consent.status, consent.body)
	}
	approved := h.post(h.srv.HTTP.URL+devissuer.ConsentPath, url.Values{"authorization_id": {authzID}, "decision": {"approve"}})
	if approved.status/100 != 3 || approved.location.Query().Get("code") == "" {
		t.Fatalf("approve: status %d location %v", approved.status, approved.location)
	}
	if got := approved.location.Query().Get("state"); got != "state-html-flow-1" {
		t.Errorf("state = %q", got)
	}
	if got := approved.location.Scheme + "://" + approved.location.Host + approved.location.Path; got != redirect {
		t.Errorf("redirected to %q, want %q", got, redirect)
	}
	tok := h.exchange(cfg, approved.location.Query().Get("code"), verifier)
	if _, _, err := h.verify(tok.AccessToken); err != nil {
		t.Fatalf("token from the HTML flow: %v", err)
	}

	// Answering the same consent twice is refused.
	again := h.post(h.srv.HTTP.URL+devissuer.ConsentPath, url.Values{"authorization_id": {authzID}, "decision": {"approve"}})
	if again.status != http.StatusBadRequest {
		t.Errorf("second answer to one consent: status %d, want 400", again.status)
	}

	// Signed in already: the next authorize goes straight to consent; deny.
	loc = start(oauth2.GenerateVerifier())
	if loc.Path != devissuer.ConsentPath {
		t.Fatalf("second authorize went to %s, want consent", loc.Path)
	}
	denied := h.post(h.srv.HTTP.URL+devissuer.ConsentPath, url.Values{
		"authorization_id": {loc.Query().Get("authorization_id")}, "decision": {"deny"}})
	if denied.status/100 != 3 || denied.location.Query().Get("error") != "access_denied" {
		t.Fatalf("deny: status %d location %v, want a redirect with error=access_denied", denied.status, denied.location)
	}
}

func TestAliasesServeThePages(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	loc := h.authorize(cfg.AuthCodeURL("state-alias-test",
		oauth2.S256ChallengeOption(oauth2.GenerateVerifier()),
		oauth2.SetAuthURLParam("resource", testResource)), nil)
	id := loc.Query().Get("authorization_id")
	for _, p := range []string{"/auth", "/auth/v1/signin"} {
		if r := h.get(h.srv.HTTP.URL + p + "?authorization_id=" + id); r.status != http.StatusOK {
			t.Errorf("GET %s: status %d", p, r.status)
		}
	}
	// Not signed in: both consent paths send the browser to sign in.
	for _, p := range []string{"/.lovable/oauth/consent", "/auth/v1/oauth/consent"} {
		if r := h.get(h.srv.HTTP.URL + p + "?authorization_id=" + id); r.status != http.StatusSeeOther || r.location.Path != devissuer.SignInPath {
			t.Errorf("GET %s: status %d location %v", p, r.status, r.location)
		}
	}
}

func TestAutoApproveUserOption(t *testing.T) {
	h := newHarness(t, devissuer.Options{AutoApproveUser: devissuer.DefaultUser.Email})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	loc := h.authorize(cfg.AuthCodeURL("state-auto-option", oauth2.S256ChallengeOption(v),
		oauth2.SetAuthURLParam("resource", testResource)), nil)
	if loc.Query().Get("code") == "" {
		t.Fatalf("AutoApproveUser: redirect %s has no code", loc)
	}
	h.exchange(cfg, loc.Query().Get("code"), v)
}

func TestCodeIsSingleUse(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	code := h.autoCode(cfg, v)
	tok := h.exchange(cfg, code, v)

	_, err := cfg.Exchange(h.ctx(), code, oauth2.VerifierOption(v), oauth2.SetAuthURLParam("resource", testResource))
	if !isOAuthError(err, "invalid_grant") {
		t.Fatalf("second exchange of one code: err %v, want invalid_grant", err)
	}
	// RFC 6749 §4.1.2: tokens issued from a replayed code are revoked.
	if status, body := h.refresh(clientID, tok.RefreshToken); status != http.StatusBadRequest {
		t.Errorf("refresh after code replay: status %d body %v, want 400", status, body)
	}
}

func TestAuthorizeRefusals(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	clientID := h.register(redirect)
	v := oauth2.GenerateVerifier()
	base := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirect},
		"state":                 {"state-refusals-1"},
		"code_challenge":        {oauth2.S256ChallengeFromVerifier(v)},
		"code_challenge_method": {"S256"},
		"resource":              {testResource},
		"dev_auto_approve":      {"true"},
	}
	tests := []struct {
		name      string
		change    func(url.Values)
		wantError string // error= on the redirect back to the client
	}{
		{"PKCE missing", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
		{"PKCE plain", func(q url.Values) { q.Set("code_challenge", v); q.Set("code_challenge_method", "plain") }, "invalid_request"},
		{"PKCE method missing", func(q url.Values) { q.Del("code_challenge_method") }, "invalid_request"},
		{"resource missing", func(q url.Values) { q.Del("resource") }, "invalid_request"},
		{"resource not allowed", func(q url.Values) { q.Set("resource", "https://evil.example/mcp") }, "invalid_target"},
		{"resource with fragment", func(q url.Values) { q.Set("resource", testResource+"#x") }, "invalid_target"},
		{"two resources", func(q url.Values) { q.Add("resource", testResource) }, "invalid_target"},
		{"response_type token", func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type"},
		{"unknown auto-approve user", func(q url.Values) { q.Set("dev_auto_approve", "nobody@example.com") }, "access_denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{}
			for k, vs := range base {
				q[k] = append([]string(nil), vs...)
			}
			tt.change(q)
			loc := h.authorize(h.issuer()+"/oauth/authorize?"+q.Encode(), nil)
			if got := loc.Query().Get("error"); got != tt.wantError {
				t.Errorf("error = %q (%s), want %q", got, loc.Query().Get("error_description"), tt.wantError)
			}
			if loc.Query().Get("code") != "" {
				t.Errorf("got a code despite %s", tt.name)
			}
		})
	}

	// An unregistered redirect_uri is never redirected to (RFC 6749 §4.1.2.1).
	q := url.Values{}
	for k, vs := range base {
		q[k] = vs
	}
	for _, bad := range []string{"http://127.0.0.1:47123/other", "https://evil.example/callback", "http://evil.example:47123/callback"} {
		q.Set("redirect_uri", bad)
		resp, err := h.http.Get(h.issuer() + "/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 == 3 {
			t.Errorf("redirect_uri %s: redirected to %s, want an error page", bad, resp.Header.Get("Location"))
		}
	}
}

func TestLoopbackRedirectAnyPort(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	for _, tt := range []struct{ registered, requested string }{
		{"http://localhost:3000/callback", "http://localhost:51234/callback"},
		{"http://127.0.0.1/callback", "http://127.0.0.1:40000/callback"},
		{"http://[::1]:1/cb", "http://[::1]:2/cb"},
	} {
		clientID := h.register(tt.registered)
		cfg := h.oauthConfig(clientID, tt.requested)
		v := oauth2.GenerateVerifier()
		code := h.autoCode(cfg, v)
		h.exchange(cfg, code, v)

		// The token request must repeat the authorize redirect_uri exactly.
		code = h.autoCode(cfg, v)
		cfg2 := *cfg
		cfg2.RedirectURL = tt.registered
		if _, err := cfg2.Exchange(h.ctx(), code, oauth2.VerifierOption(v), oauth2.SetAuthURLParam("resource", testResource)); !isOAuthError(err, "invalid_grant") {
			t.Errorf("%s: token redirect_uri mismatch: err %v, want invalid_grant", tt.requested, err)
		}
	}
}

func TestTokenEndpointRefusals(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	tests := []struct {
		name      string
		form      func(code string) url.Values
		wantError string
	}{
		{"wrong verifier", func(c string) url.Values { return codeForm(clientID, c, oauth2.GenerateVerifier(), testResource) }, "invalid_grant"},
		{"no verifier", func(c string) url.Values { return codeForm(clientID, c, "", testResource) }, "invalid_grant"},
		{"resource missing", func(c string) url.Values { return codeForm(clientID, c, v, "") }, "invalid_request"},
		{"resource differs", func(c string) url.Values { return codeForm(clientID, c, v, "https://tridenttaxis.online/other") }, "invalid_target"},
		{"redirect differs", func(c string) url.Values {
			f := codeForm(clientID, c, v, testResource)
			f.Set("redirect_uri", "http://127.0.0.1:47123/other")
			return f
		}, "invalid_grant"},
		{"other client", func(c string) url.Values { return codeForm(h.register(redirect), c, v, testResource) }, "invalid_grant"},
		{"unknown client", func(c string) url.Values { return codeForm("no-such-client", c, v, testResource) }, "invalid_client"},
		{"bad code", func(string) url.Values { return codeForm(clientID, "ory_ac_bogus.bogus", v, testResource) }, "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := h.autoCode(cfg, v)
			status, body := h.postForm(h.issuer()+"/oauth/token", tt.form(code))
			if status/100 != 4 || body["error"] != tt.wantError {
				t.Errorf("status %d body %v, want 4xx %s", status, body, tt.wantError)
			}
		})
	}

	// A refresh may repeat the resource but not change it.
	code := h.autoCode(cfg, v)
	tok := h.exchange(cfg, code, v)
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {clientID},
		"resource": {"https://tridenttaxis.online/other"}}
	if status, body := h.postForm(h.issuer()+"/oauth/token", form); status != http.StatusBadRequest || body["error"] != "invalid_target" {
		t.Errorf("refresh with another resource: status %d body %v", status, body)
	}
	form.Set("resource", testResource)
	if status, body := h.postForm(h.issuer()+"/oauth/token", form); status != http.StatusOK {
		t.Errorf("refresh repeating the resource: status %d body %v", status, body)
	}
}

func codeForm(clientID, code, verifier, resource string) url.Values {
	f := url.Values{
		"grant_type":   {"authorization_code"},
		"code":         {code},
		"redirect_uri": {redirect},
		"client_id":    {clientID},
	}
	if verifier != "" {
		f.Set("code_verifier", verifier)
	}
	if resource != "" {
		f.Set("resource", resource)
	}
	return f
}

func TestRefreshReuseInterval(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true, RefreshReuseInterval: 10 * time.Second})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	tok := h.exchange(cfg, h.autoCode(cfg, v), v)
	if status, body := h.refresh(clientID, tok.RefreshToken); status != http.StatusOK {
		t.Fatalf("refresh: %d %v", status, body)
	}
	h.clock.Advance(5 * time.Second)
	status, body := h.refresh(clientID, tok.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("reuse within the interval: status %d body %v, want 200", status, body)
	}
	h.clock.Advance(6 * time.Second)
	if status, body := h.refresh(clientID, tok.RefreshToken); status != http.StatusBadRequest {
		t.Fatalf("reuse after the interval: status %d body %v, want 400", status, body)
	}
	if status, _ := h.refresh(clientID, body["refresh_token"].(string)); status != http.StatusBadRequest {
		t.Errorf("family still alive after reuse outside the interval: status %d", status)
	}
}

func TestRevokeEndsFamily(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	tok := h.exchange(cfg, h.autoCode(cfg, v), v)
	resp, err := h.http.PostForm(h.issuer()+"/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "client_id": {clientID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: status %d", resp.StatusCode)
	}
	if status, body := h.refresh(clientID, tok.RefreshToken); status != http.StatusBadRequest {
		t.Errorf("refresh after revoke: %d %v", status, body)
	}
}

func isOAuthError(err error, code string) bool {
	re, ok := err.(*oauth2.RetrieveError)
	return ok && re.ErrorCode == code
}

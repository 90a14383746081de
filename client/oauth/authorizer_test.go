package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
)

// fakeAS is one httptest server playing an MCP resource server at /mcp and
// its authorization server at the root, shaped like the conformance
// suite's: the authorization endpoint approves at once.
type fakeAS struct {
	// configuration, set before use
	prmScopes   []string // PRM scopes_supported
	asScopes    []string // AS scopes_supported
	authMethods []string // token_endpoint_auth_methods_supported
	noDCR       bool
	noPRM       bool   // serve no resource metadata (MCP 2025-03-26)
	noASMeta    bool   // serve no issuer metadata either
	prmResource string // overrides the PRM's resource
	cimd        bool   // client_id_metadata_document_supported
	// DCR reply
	regSecret, regMethod string
	// need returns the scopes a method needs ("" for none); nil: none.
	need func(method string) []string
	// challengeScope puts the needed scopes into the 401's challenge.
	challengeScope bool
	// refuseAll answers every authenticated request 403 insufficient_scope.
	refuseAll bool
	// refuseRefresh answers every refresh_token grant invalid_grant, as an
	// issuer does once the family is revoked.
	refuseRefresh bool
	// iss is the redirect's iss parameter: "" none, "exact" the issuer,
	// "slash" the issuer with a trailing slash; issSupported advertises
	// authorization_response_iss_parameter_supported.
	iss          string
	issSupported bool
	// moveTo, when set, is the authorization server the resource moves to
	// after its first successful call: its metadata names moveTo from then
	// on, and only moveTo's tokens are accepted (SEP-2352).
	moveTo *fakeAS
	moved  bool
	// tokenPrefix starts the tokens issued; "" means "tok-".
	tokenPrefix string

	srv *httptest.Server
	mu  sync.Mutex
	// observations
	authorizeQueries []url.Values
	tokenRequests    []tokenRequest
	registrations    []map[string]any
	tokens           map[string][]string // issued token → scopes
	challenge        string              // last code_challenge
	n                int
	mcpTokens        []string // the bearer token of each POST /mcp, "" for none
}

type tokenRequest struct {
	grant, method, clientID, secret, resource string
	pkceOK                                    bool
}

func newFakeAS(t *testing.T, f *fakeAS) *fakeAS {
	t.Helper()
	f.tokens = map[string][]string{}
	mux := http.NewServeMux()
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	base := f.srv.URL
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		if f.noPRM {
			http.NotFound(w, r)
			return
		}
		res := base + "/mcp"
		if f.prmResource != "" {
			res = f.prmResource
		}
		as := base
		f.mu.Lock()
		if f.moved {
			as = f.moveTo.srv.URL
		}
		f.mu.Unlock()
		m := map[string]any{"resource": res, "authorization_servers": []string{as}}
		if f.prmScopes != nil {
			m["scopes_supported"] = f.prmScopes
		}
		writeJSON(w, 200, m)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		if f.noASMeta {
			http.NotFound(w, r)
			return
		}
		m := map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		}
		if !f.noDCR {
			m["registration_endpoint"] = base + "/register"
		}
		if f.asScopes != nil {
			m["scopes_supported"] = f.asScopes
		}
		if f.authMethods != nil {
			m["token_endpoint_auth_methods_supported"] = f.authMethods
		}
		if f.cimd {
			m["client_id_metadata_document_supported"] = true
		}
		if f.issSupported {
			m["authorization_response_iss_parameter_supported"] = true
		}
		writeJSON(w, 200, m)
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.registrations = append(f.registrations, body)
		f.mu.Unlock()
		reply := map[string]any{"client_id": "dcr-client", "redirect_uris": body["redirect_uris"]}
		if f.regSecret != "" {
			reply["client_secret"] = f.regSecret
		}
		if f.regMethod != "" {
			reply["token_endpoint_auth_method"] = f.regMethod
		}
		writeJSON(w, 201, reply)
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.authorizeQueries = append(f.authorizeQueries, q)
		f.challenge = q.Get("code_challenge")
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {"code-" + q.Get("scope")}, "state": {q.Get("state")}}
		switch f.iss {
		case "exact":
			v.Set("iss", base)
		case "slash":
			v.Set("iss", base+"/")
		}
		to.RawQuery = v.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		tr := tokenRequest{grant: r.PostForm.Get("grant_type"), clientID: r.PostForm.Get("client_id"), resource: r.PostForm.Get("resource"), method: oauth.AuthMethodNone}
		if id, secret, ok := r.BasicAuth(); ok {
			tr.method, tr.clientID, tr.secret = oauth.AuthMethodBasic, id, secret
		} else if s := r.PostForm.Get("client_secret"); s != "" {
			tr.method, tr.secret = oauth.AuthMethodPost, s
		}
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		f.mu.Lock()
		tr.pkceOK = base64.RawURLEncoding.EncodeToString(sum[:]) == f.challenge
		f.tokenRequests = append(f.tokenRequests, tr)
		if tr.grant == "refresh_token" && f.refuseRefresh {
			f.mu.Unlock()
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "Invalid Refresh Token: Revoked"})
			return
		}
		f.n++
		prefix := f.tokenPrefix
		if prefix == "" {
			prefix = "tok-"
		}
		tok := fmt.Sprintf("%s%d", prefix, f.n)
		scope := strings.TrimPrefix(r.PostForm.Get("code"), "code-")
		f.tokens[tok] = strings.Fields(scope)
		f.mu.Unlock()
		reply := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-" + tok}
		if scope != "" {
			reply["scope"] = scope
		}
		writeJSON(w, 200, reply)
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var need []string
		if f.need != nil {
			need = f.need(req.Method)
		}
		tok, hasTok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		scopes, known := f.tokens[tok]
		if f.moved {
			f.moveTo.mu.Lock()
			scopes, known = f.moveTo.tokens[tok]
			f.moveTo.mu.Unlock()
		}
		f.mcpTokens = append(f.mcpTokens, tok)
		f.mu.Unlock()
		meta := fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, base)
		if f.noPRM {
			meta = ""
		}
		switch {
		case !hasTok || !known:
			ch := "Bearer " + meta
			if f.challengeScope && len(need) > 0 {
				ch += fmt.Sprintf(`, scope="%s"`, strings.Join(need, " "))
			}
			w.Header().Set("WWW-Authenticate", strings.TrimSuffix(strings.TrimSpace(ch), ","))
			writeJSON(w, 401, map[string]any{"error": "invalid_token"})
			return
		case !f.refuseAll && !slices.ContainsFunc(need, func(s string) bool { return !slices.Contains(scopes, s) }):
		default:
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s", %s`, strings.Join(need, " "), meta))
			writeJSON(w, 403, map[string]any{"error": "insufficient_scope"})
			return
		}
		if f.moveTo != nil {
			f.mu.Lock()
			f.moved = true
			f.mu.Unlock()
		}
		if req.ID == nil {
			w.WriteHeader(202)
			return
		}
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}
		if req.Method == "tools/list" {
			result = map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}
		}
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	})
	// The 2025-03-26 fallback endpoints are these same handlers.
	return f
}

func (f *fakeAS) endpoint() string { return f.srv.URL + "/mcp" }

// follow plays a browser that the authorization server redirects at once.
func follow(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return errors.New(string(b))
	}
	return nil
}

func newAuthorized(t *testing.T, f *fakeAS, cfg oauth.LoginConfig) (*client.Client, *oauth.Authorizer) {
	t.Helper()
	cfg.Endpoint, cfg.OpenURL = f.endpoint(), follow
	if cfg.Store == nil {
		cfg.Store = &oauth.MemoryStore{}
	}
	az, err := oauth.NewAuthorizer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(f.endpoint(), client.WithTokenSource(az), client.WithHandshake(client.HandshakeNever), handshakeEra)
	if err != nil {
		t.Fatal(err)
	}
	return c, az
}

func TestTokenEndpointAuthMethods(t *testing.T) {
	tests := []struct {
		name string
		as   *fakeAS
		cfg  oauth.LoginConfig
		want tokenRequest
	}{
		{"DCR public client", &fakeAS{regMethod: "none"}, oauth.LoginConfig{},
			tokenRequest{grant: "authorization_code", method: "none", clientID: "dcr-client"}},
		{"DCR answered client_secret_basic", &fakeAS{regMethod: "client_secret_basic", regSecret: "s3"}, oauth.LoginConfig{},
			tokenRequest{grant: "authorization_code", method: "client_secret_basic", clientID: "dcr-client", secret: "s3"}},
		{"DCR answered client_secret_post", &fakeAS{regMethod: "client_secret_post", regSecret: "s3"}, oauth.LoginConfig{},
			tokenRequest{grant: "authorization_code", method: "client_secret_post", clientID: "dcr-client", secret: "s3"}},
		{"DCR secret without method is basic (RFC 7591 default)", &fakeAS{regSecret: "s3"}, oauth.LoginConfig{},
			tokenRequest{grant: "authorization_code", method: "client_secret_basic", clientID: "dcr-client", secret: "s3"}},
		{"pre-registered, issuer takes basic", &fakeAS{noDCR: true, authMethods: []string{"client_secret_basic"}},
			oauth.LoginConfig{ClientID: "pre", ClientSecret: "pw"},
			tokenRequest{grant: "authorization_code", method: "client_secret_basic", clientID: "pre", secret: "pw"}},
		{"pre-registered, issuer takes post only", &fakeAS{noDCR: true, authMethods: []string{"client_secret_post"}},
			oauth.LoginConfig{ClientID: "pre", ClientSecret: "pw"},
			tokenRequest{grant: "authorization_code", method: "client_secret_post", clientID: "pre", secret: "pw"}},
		{"pre-registered, issuer takes both: basic first", &fakeAS{noDCR: true, authMethods: []string{"client_secret_post", "client_secret_basic"}},
			oauth.LoginConfig{ClientID: "pre", ClientSecret: "pw"},
			tokenRequest{grant: "authorization_code", method: "client_secret_basic", clientID: "pre", secret: "pw"}},
		{"pre-registered, issuer lists neither: basic (RFC 8414 default)", &fakeAS{noDCR: true},
			oauth.LoginConfig{ClientID: "pre", ClientSecret: "pw"},
			tokenRequest{grant: "authorization_code", method: "client_secret_basic", clientID: "pre", secret: "pw"}},
		{"pre-registered public client", &fakeAS{noDCR: true},
			oauth.LoginConfig{ClientID: "pub"},
			tokenRequest{grant: "authorization_code", method: "none", clientID: "pub"}},
		{"client ID metadata document where supported", &fakeAS{cimd: true},
			oauth.LoginConfig{ClientMetadataURL: "https://client.example/meta.json"},
			tokenRequest{grant: "authorization_code", method: "none", clientID: "https://client.example/meta.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAS(t, tt.as)
			c, _ := newAuthorized(t, f, tt.cfg)
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(f.tokenRequests) != 1 {
				t.Fatalf("%d token requests, want 1", len(f.tokenRequests))
			}
			got := f.tokenRequests[0]
			if !got.pkceOK {
				t.Error("the code_verifier does not match the S256 code_challenge")
			}
			if got.resource != f.endpoint() {
				t.Errorf("token request resource = %q, want %q", got.resource, f.endpoint())
			}
			got.pkceOK, got.resource = false, ""
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(tokenRequest{})); d != "" {
				t.Errorf("token request (-want +got):\n%s", d)
			}
			q := f.authorizeQueries[0]
			if q.Get("code_challenge_method") != "S256" || q.Get("resource") != f.endpoint() {
				t.Errorf("authorization request %v lacks S256 or the resource", q)
			}
		})
	}
}

func TestRegistrationAsksForAMethodTheIssuerTakes(t *testing.T) {
	tests := []struct {
		methods []string
		want    string
	}{
		{nil, "none"},
		{[]string{"none", "client_secret_basic"}, "none"},
		{[]string{"client_secret_post"}, "client_secret_post"},
		{[]string{"client_secret_basic"}, "client_secret_basic"},
	}
	for _, tt := range tests {
		f := newFakeAS(t, &fakeAS{authMethods: tt.methods})
		c, _ := newAuthorized(t, f, oauth.LoginConfig{})
		if _, err := c.ListTools(context.Background()); err != nil {
			t.Fatal(err)
		}
		reg := f.registrations[0]
		if reg["token_endpoint_auth_method"] != tt.want || !slices.Contains(reg["grant_types"].([]any), any("refresh_token")) {
			t.Errorf("issuer takes %v: registered %v, want method %s and the refresh_token grant", tt.methods, reg, tt.want)
		}
	}
}

func TestScopeSelection(t *testing.T) {
	tests := []struct {
		name string
		as   *fakeAS
		cfg  oauth.LoginConfig
		want string // the authorization request's scope; "" omitted
	}{
		{"challenge scope first", &fakeAS{prmScopes: []string{"a", "b"}, challengeScope: true, need: func(string) []string { return []string{"b"} }}, oauth.LoginConfig{}, "b"},
		{"else all of scopes_supported", &fakeAS{prmScopes: []string{"a", "b", "c"}}, oauth.LoginConfig{}, "a b c"},
		{"else omitted", &fakeAS{}, oauth.LoginConfig{}, ""},
		{"offline_access when the issuer lists it", &fakeAS{prmScopes: []string{"a"}, asScopes: []string{"a", "offline_access"}}, oauth.LoginConfig{}, "a offline_access"},
		{"not when it does not", &fakeAS{prmScopes: []string{"a"}, asScopes: []string{"a", "b"}}, oauth.LoginConfig{}, "a"},
		{"configured scopes win", &fakeAS{prmScopes: []string{"a", "b"}}, oauth.LoginConfig{Scopes: []string{"z"}}, "z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAS(t, tt.as)
			c, _ := newAuthorized(t, f, tt.cfg)
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			q := f.authorizeQueries[0]
			if got := q.Get("scope"); got != tt.want || (tt.want == "" && q.Has("scope")) {
				t.Errorf("scope = %q (present %v), want %q", got, q.Has("scope"), tt.want)
			}
		})
	}
}

func TestStepUpRequestsTheUnionOnce(t *testing.T) {
	f := newFakeAS(t, &fakeAS{challengeScope: true, need: func(m string) []string {
		if m == "tools/call" {
			return []string{"write"} // the challenge names only the missing scope
		}
		return []string{"read"}
	}})
	c, az := newAuthorized(t, f, oauth.LoginConfig{})
	ctx := context.Background()
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "t", nil, nil); err != nil {
		t.Fatal(err)
	}
	var scopes []string
	for _, q := range f.authorizeQueries {
		scopes = append(scopes, q.Get("scope"))
	}
	if d := cmp.Diff([]string{"read", "read write"}, scopes); d != "" {
		t.Errorf("authorization scopes (-want +got):\n%s", d)
	}
	if az.Authorizations() != 2 {
		t.Errorf("%d authorizations, want 2", az.Authorizations())
	}
	// The step-up token serves both methods without a third flow.
	if _, err := c.ListTools(ctx); err != nil || az.Authorizations() != 2 {
		t.Errorf("after step-up: %v, %d authorizations", err, az.Authorizations())
	}
}

func TestRefusedScopeDoesNotLoop(t *testing.T) {
	// The server asks for "admin" and then refuses the "admin" token too.
	f := newFakeAS(t, &fakeAS{challengeScope: true, refuseAll: true, need: func(string) []string { return []string{"admin"} }})
	c, az := newAuthorized(t, f, oauth.LoginConfig{})
	_, err := c.ListTools(context.Background())
	if !errors.Is(err, oauth.ErrScopeRefused) {
		t.Fatalf("err = %v, want ErrScopeRefused", err)
	}
	if az.Authorizations() != 1 {
		t.Errorf("%d authorizations, want 1: re-asking for granted scopes loops", az.Authorizations())
	}
}

func TestAuthorizationLimit(t *testing.T) {
	f := newFakeAS(t, &fakeAS{})
	c, az := newAuthorized(t, f, oauth.LoginConfig{})
	az.SetMaxAuthorizations(0)
	if _, err := c.ListTools(context.Background()); !errors.Is(err, oauth.ErrTooManyAuthorizations) || len(f.authorizeQueries) != 0 {
		t.Errorf("err = %v after %d flows, want ErrTooManyAuthorizations and none", err, len(f.authorizeQueries))
	}
}

func TestResourceMismatchStopsBeforeAuthorizing(t *testing.T) {
	f := newFakeAS(t, &fakeAS{prmResource: "https://evil.example.com/mcp"})
	c, _ := newAuthorized(t, f, oauth.LoginConfig{})
	_, err := c.ListTools(context.Background())
	if !errors.Is(err, oauth.ErrResourceMismatch) || len(f.authorizeQueries) != 0 {
		t.Errorf("err = %v after %d authorization requests, want ErrResourceMismatch and none", err, len(f.authorizeQueries))
	}
}

func TestLegacyDiscovery(t *testing.T) {
	for _, noMeta := range []bool{false, true} {
		f := newFakeAS(t, &fakeAS{noPRM: true, noASMeta: noMeta})
		d, err := oauth.Discover(context.Background(), nil, f.endpoint(), "")
		if err != nil {
			t.Fatalf("no issuer metadata %v: %v", noMeta, err)
		}
		if !d.Legacy || d.Server.TokenEndpoint != f.srv.URL+"/token" || d.Resource.Resource != f.endpoint() {
			t.Errorf("no issuer metadata %v: discovery %+v %+v, want the legacy root endpoints", noMeta, d.Resource, d.Server)
		}
		c, _ := newAuthorized(t, f, oauth.LoginConfig{})
		if _, err := c.ListTools(context.Background()); err != nil {
			t.Errorf("no issuer metadata %v: %v", noMeta, err)
		}
	}
}

func TestRootResourceMetadataMayNameTheOrigin(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	as := newFakeAS(t, &fakeAS{})
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL, as.srv.URL)
	})
	d, err := oauth.Discover(context.Background(), nil, srv.URL+"/mcp", "")
	if err != nil || d.Legacy || d.Server.Issuer != as.srv.URL {
		t.Errorf("Discover = %+v, %v; want the issuer from the root document", d, err)
	}
}

func TestConfidentialRefreshAuthenticates(t *testing.T) {
	f := newFakeAS(t, &fakeAS{})
	store := &oauth.MemoryStore{}
	store.Save(context.Background(), &oauth.Record{
		TokenEndpoint: f.srv.URL + "/token", ClientID: "pre", ClientSecret: "pw", TokenAuthMethod: oauth.AuthMethodBasic,
		AccessToken: "old", RefreshToken: "r1",
	})
	src := oauth.NewSource(store)
	if _, err := src.Refresh(context.Background(), "old"); err != nil {
		t.Fatal(err)
	}
	got := f.tokenRequests[0]
	if got.grant != "refresh_token" || got.method != oauth.AuthMethodBasic || got.clientID != "pre" || got.secret != "pw" {
		t.Errorf("refresh request %+v, want client_secret_basic as pre:pw", got)
	}
}

// A proactive refresh that finds the family revoked sends the call without
// a token; the 401 that follows runs the flow at once. The stale access
// token is not tried on the way, and the dead refresh token is presented
// only once.
func TestRevokedFamilyGoesStraightToConsent(t *testing.T) {
	f := newFakeAS(t, &fakeAS{refuseRefresh: true})
	store := &oauth.MemoryStore{}
	store.Save(context.Background(), &oauth.Record{
		TokenEndpoint: f.srv.URL + "/token", ClientID: "dcr-client",
		AccessToken: "stale", RefreshToken: "dead", Expiry: time.Now().Add(-time.Minute),
	})
	c, az := newAuthorized(t, f, oauth.LoginConfig{Store: store})
	for i := range 2 {
		if _, err := c.Call(context.Background(), "t", nil, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	var grants []string
	for _, tr := range f.tokenRequests {
		grants = append(grants, tr.grant)
	}
	if d := cmp.Diff([]string{"refresh_token", "authorization_code"}, grants); d != "" {
		t.Errorf("token requests (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"", "tok-1", "tok-1"}, f.mcpTokens); d != "" {
		t.Errorf("bearer tokens sent to /mcp (-want +got):\n%s", d)
	}
	if az.Authorizations() != 1 {
		t.Errorf("%d authorizations, want 1", az.Authorizations())
	}
}

// A caller waiting for its turn while another runs the flow (a user slow in
// the browser) gives up when its own context ends.
func TestAuthorizeWaitHonoursTheContext(t *testing.T) {
	f := newFakeAS(t, &fakeAS{})
	opened, release := make(chan struct{}), make(chan struct{})
	az, err := oauth.NewAuthorizer(oauth.LoginConfig{Endpoint: f.endpoint(), Store: &oauth.MemoryStore{},
		OpenURL: func(u string) error {
			close(opened)
			<-release
			return follow(u)
		}})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() {
		_, err := az.Authorize(context.Background(), &client.Challenge{StatusCode: 401})
		first <- err
	}()
	<-opened
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	second := make(chan error, 1)
	go func() {
		_, err := az.Authorize(ctx, &client.Challenge{StatusCode: 401})
		second <- err
	}()
	select {
	case err := <-second:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("waiting caller: err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // a deadline for the failure, not a delay
		t.Error("the waiting caller ignored its ended context")
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the flow itself: %v", err)
	}
	if az.Authorizations() != 1 {
		t.Errorf("Authorizations() = %d, want 1: the abandoned wait must not count", az.Authorizations())
	}
}

// The redirect's iss is compared with the issuer by simple string
// comparison (RFC 9207): a trailing slash is a different issuer, and the
// code is not exchanged.
func TestIssIsComparedExactly(t *testing.T) {
	for _, tc := range []struct {
		name      string
		as        *fakeAS
		wantToken bool
	}{
		{"the issuer itself", &fakeAS{iss: "exact", issSupported: true}, true},
		{"absent and not promised", &fakeAS{}, true},
		{"the issuer with a trailing slash", &fakeAS{iss: "slash", issSupported: true}, false},
		{"absent although promised", &fakeAS{issSupported: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAS(t, tc.as)
			c, _ := newAuthorized(t, f, oauth.LoginConfig{})
			_, err := c.Call(context.Background(), "t", nil, nil)
			if (err == nil) != tc.wantToken || !tc.wantToken && !strings.Contains(err.Error(), "iss") {
				t.Errorf("Call: %v, want success %v", err, tc.wantToken)
			}
			if got := len(f.tokenRequests) > 0; got != tc.wantToken {
				t.Errorf("code exchanged: %v, want %v", got, tc.wantToken)
			}
		})
	}
}

// A resource that moves to another authorization server is authorized
// there anew, registering with it; the old server's refresh token is not
// used, and nothing of it reaches the new one (SEP-2352).
func TestAuthorizationServerMigration(t *testing.T) {
	to := newFakeAS(t, &fakeAS{tokenPrefix: "new-"})
	from := newFakeAS(t, &fakeAS{moveTo: to})
	c, az := newAuthorized(t, from, oauth.LoginConfig{})
	for i := range 2 {
		if _, err := c.Call(context.Background(), "t", nil, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if len(from.registrations) != 1 || len(to.registrations) != 1 {
		t.Errorf("registrations: %d at the old server, %d at the new; want 1 and 1", len(from.registrations), len(to.registrations))
	}
	for _, tr := range from.tokenRequests {
		if tr.grant == "refresh_token" {
			t.Error("the old server's refresh token was used after the resource moved")
		}
	}
	if len(to.tokenRequests) != 1 || to.tokenRequests[0].grant != "authorization_code" {
		t.Errorf("token requests at the new server: %+v, want one authorization_code", to.tokenRequests)
	}
	if az.Authorizations() != 2 {
		t.Errorf("%d authorizations, want 2", az.Authorizations())
	}
}

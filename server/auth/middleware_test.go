package auth

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// The contract, written out literally so a change to the code cannot change
// the expectation with it.
const (
	wantChallenge = `Bearer realm="mcp", error="invalid_token", error_description="Missing or invalid access token", resource_metadata="https://tridenttaxis.online/.well-known/oauth-protected-resource"`
	wantBody      = `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Unauthorized: bearer token is missing, expired, or failed verification"}}`
)

// mcpRequest is a tools/call POST as the docs show it.
func mcpRequest(target string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	return r
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func TestMiddlewareRefusesWithTheOne401(t *testing.T) {
	h := newHarness(t)
	now := h.clock.Now()
	good := mint(t, h.key, h.claims())
	stranger := newECKey(t, "es-never-seen")
	impostor := newECKey(t, h.key.kid) // right kid, wrong key

	// HS256 signed with the issuer's RSA public key (PEM) as the HMAC secret:
	// the classic algorithm-confusion forgery.
	der, err := x509.MarshalPKIXPublicKey(h.rsa.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hsSigner, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pemKey},
		(&jose.SignerOptions{}).WithHeader("kid", h.rsa.kid).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	hsToken, err := jwt.Signed(hsSigner).Claims(h.claims()).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	noneToken := b64(map[string]string{"alg": "none", "typ": "JWT"}) + "." + b64(h.claims()) + "."
	parts := strings.Split(good, ".")
	tampered := parts[0] + "." + b64(with(h.claims(), "sub", "someone-else")) + "." + parts[2]

	tests := []struct {
		name   string
		target string
		setup  func(*http.Request)
		want   Reason
	}{
		{"no Authorization header", "/mcp", nil, ReasonMissingCredentials},
		{"empty Authorization header", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "") }, ReasonMissingCredentials},
		{"JWT scheme", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "JWT "+good) }, ReasonWrongScheme},
		{"Token scheme", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "Token "+good) }, ReasonWrongScheme},
		{"Basic scheme", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "Basic dXNlcjpwYXNz") }, ReasonWrongScheme},
		{"raw token without scheme", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", good) }, ReasonWrongScheme},
		{"Bearer without token", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "Bearer") }, ReasonMalformedHeader},
		{"two spaces", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "Bearer  "+good) }, ReasonMalformedHeader},
		{"trailing junk", "/mcp", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+good+" x") }, ReasonMalformedHeader},
		{"two Authorization headers", "/mcp", func(r *http.Request) {
			r.Header.Add("Authorization", "Bearer "+good)
			r.Header.Add("Authorization", "Bearer "+good)
		}, ReasonMalformedHeader},
		{"token in query string", "/mcp?access_token=" + good, nil, ReasonTokenInQuery},
		{"token in query beside a good header", "/mcp?access_token=" + good, bearer(good), ReasonTokenInQuery},
		{"token in cookie", "/mcp", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "access_token", Value: good})
			r.AddCookie(&http.Cookie{Name: "sb-access-token", Value: good})
		}, ReasonMissingCredentials},
		{"not a JWT", "/mcp", bearer("not-a-jwt"), ReasonMalformedToken},
		{"two segments", "/mcp", bearer("abc.def"), ReasonMalformedToken},
		{"oversized token", "/mcp", bearer(strings.Repeat("a", maxTokenBytes+1)), ReasonMalformedToken},
		{"tampered payload", "/mcp", bearer(tampered), ReasonBadSignature},
		{"known kid, wrong key", "/mcp", bearer(mint(t, impostor, h.claims())), ReasonBadSignature},
		{"key never seen", "/mcp", bearer(mint(t, stranger, h.claims())), ReasonUnknownKey},
		{"alg none", "/mcp", bearer(noneToken), ReasonDisallowedAlg},
		{"HS256 with the public key as secret", "/mcp", bearer(hsToken), ReasonDisallowedAlg},
		{"wrong iss: proxy host", "/mcp", bearer(mint(t, h.key, with(h.claims(), "iss", "https://trident.lovable.cloud/auth/v1"))), ReasonWrongIssuer},
		{"wrong iss: trailing slash", "/mcp", bearer(mint(t, h.key, with(h.claims(), "iss", h.iss.issuer+"/"))), ReasonWrongIssuer},
		{"missing iss", "/mcp", bearer(mint(t, h.key, with(h.claims(), "iss", nil))), ReasonWrongIssuer},
		{"aud lacks authenticated", "/mcp", bearer(mint(t, h.key, with(h.claims(), "aud", []string{testResource}))), ReasonWrongAudience},
		{"aud service_role", "/mcp", bearer(mint(t, h.key, with(h.claims(), "aud", []string{"service_role", testResource}))), ReasonWrongAudience},
		{"aud lacks the resource (string aud)", "/mcp", bearer(mint(t, h.key, with(h.claims(), "aud", "authenticated"))), ReasonWrongResource},
		{"aud bound to another resource", "/mcp", bearer(mint(t, h.key, with(h.claims(), "aud", []string{"authenticated", "https://tridenttaxis.online/mcp/"}))), ReasonWrongResource},
		{"aud absent", "/mcp", bearer(mint(t, h.key, with(h.claims(), "aud", nil))), ReasonWrongAudience},
		{"expired beyond skew", "/mcp", bearer(mint(t, h.key, with(h.claims(), "exp", now.Add(-31*time.Second).Unix()))), ReasonExpired},
		{"exp absent", "/mcp", bearer(mint(t, h.key, with(h.claims(), "exp", nil))), ReasonMissingExpiry},
		{"nbf in the future", "/mcp", bearer(mint(t, h.key, with(h.claims(), "nbf", now.Add(2*time.Minute).Unix()))), ReasonNotYetValid},
		{"iat in the future", "/mcp", bearer(mint(t, h.key, with(h.claims(), "iat", now.Add(2*time.Minute).Unix()))), ReasonIssuedInFuture},
		{"sub empty", "/mcp", bearer(mint(t, h.key, with(h.claims(), "sub", ""))), ReasonMissingSubject},
		{"sub absent", "/mcp", bearer(mint(t, h.key, with(h.claims(), "sub", nil))), ReasonMissingSubject},
		{"client_id absent (app-session JWT)", "/mcp", bearer(mint(t, h.key, with(h.claims(), "client_id", nil))), ReasonMissingClientID},
		{"client_id empty", "/mcp", bearer(mint(t, h.key, with(h.claims(), "client_id", ""))), ReasonMissingClientID},
		{"client_id not a string", "/mcp", bearer(mint(t, h.key, with(h.claims(), "client_id", 42))), ReasonMalformedClaims},
		{"RS256 token", "/mcp/rides", bearer(mint(t, h.rsa, with(h.claims(), "exp", now.Add(-time.Hour).Unix()))), ReasonExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.logs.Reset()
			called := false
			next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })
			r := mcpRequest(tt.target)
			if tt.setup != nil {
				tt.setup(r)
			}
			rec := httptest.NewRecorder()
			h.v.Middleware(next).ServeHTTP(rec, r)

			if called {
				t.Error("next handler was called")
			}
			assertUnauthorized(t, rec)
			logs := h.logs.String()
			if !strings.Contains(logs, "reason="+string(tt.want)) {
				t.Errorf("log does not name reason %q:\n%s", tt.want, logs)
			}
			if strings.Contains(logs, parts[1]) || strings.Contains(logs, parts[2]) {
				t.Errorf("log contains the token:\n%s", logs)
			}
		})
	}
}

func assertUnauthorized(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("status = %d, want 401", rec.Code)
	}
	if got := rec.Header().Values("WWW-Authenticate"); !cmp.Equal(got, []string{wantChallenge}) {
		t.Errorf("WWW-Authenticate (-want +got):\n%s", cmp.Diff([]string{wantChallenge}, got))
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got)
	}
	if got := rec.Body.String(); got != wantBody {
		t.Errorf("body (-want +got):\n%s", cmp.Diff(wantBody, got))
	}
}

// callerView is what a handler can observe of a Caller.
type callerView struct {
	Authenticated bool
	UserID        string
	Email         string
	ClientID      string
	Token         string
	Claims        map[string]any
}

func viewOf(c Caller) callerView {
	return callerView{c.IsAuthenticated(), c.UserID(), c.Email(), c.ClientID(), c.Token(), c.Claims()}
}

// roundTrip gives claims the types a JSON decoder produces (numbers float64).
func roundTrip(t *testing.T, claims map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMiddlewarePassesTheCaller(t *testing.T) {
	h := newHarness(t)
	now := h.clock.Now()
	tests := []struct {
		name   string
		key    testKey
		scheme string
		claims map[string]any
	}{
		{"ES256", h.key, "Bearer", h.claims()},
		{"RS256", h.rsa, "Bearer", h.claims()},
		{"lowercase scheme", h.key, "bearer", h.claims()},
		{"uppercase scheme", h.key, "BEARER", h.claims()},
		{"aud as the resource and authenticated in any order", h.key, "Bearer", with(h.claims(), "aud", []string{testResource, "x", "authenticated"})},
		{"expired within skew", h.key, "Bearer", with(h.claims(), "exp", now.Add(-10*time.Second).Unix())},
		{"nbf within skew", h.key, "Bearer", with(h.claims(), "nbf", now.Add(10*time.Second).Unix())},
		{"no email", h.key, "Bearer", with(h.claims(), "email", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := mint(t, tt.key, tt.claims)
			var got callerView
			var ti *sdkauth.TokenInfo
			var fromTI Caller
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c, ok := CallerFrom(r.Context())
				if !ok {
					t.Fatal("no caller in context")
				}
				got = viewOf(c)
				ti = sdkauth.TokenInfoFromContext(r.Context())
				fromTI, _ = CallerFromTokenInfo(ti)
				w.WriteHeader(http.StatusNoContent)
			})
			r := mcpRequest("/mcp")
			r.Header.Set("Authorization", tt.scheme+" "+tok)
			rec := httptest.NewRecorder()
			h.v.Middleware(next).ServeHTTP(rec, r)

			if rec.Code != http.StatusNoContent {
				t.Fatalf("status = %d, body %s; want the next handler's 204\nlogs:\n%s", rec.Code, rec.Body, h.logs)
			}
			email, _ := tt.claims["email"].(string)
			want := callerView{true, testSubject, email, testClientID, tok, roundTrip(t, tt.claims)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("caller (-want +got):\n%s", diff)
			}
			if ti == nil {
				t.Fatal("go-sdk TokenInfo not installed")
			}
			if diff := cmp.Diff([]string{"openid", "email", "profile"}, ti.Scopes); ti.UserID != testSubject || diff != "" {
				t.Errorf("TokenInfo UserID = %q, scopes diff %s", ti.UserID, diff)
			}
			if fromTI == nil {
				t.Fatal("CallerFromTokenInfo found no caller")
			}
			if diff := cmp.Diff(want, viewOf(fromTI)); diff != "" {
				t.Errorf("CallerFromTokenInfo (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallerClaimsAreACopy(t *testing.T) {
	c := NewCaller(CallerInfo{UserID: "u", Claims: map[string]any{"role": "driver"}})
	c.Claims()["role"] = "admin"
	if got := c.Claims()["role"]; got != "driver" {
		t.Errorf("claims changed through a returned map: role = %v", got)
	}
}

func TestCallerNeverPrintsToken(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, h.claims())
	c, err := h.v.Verify(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	buf.WriteString(c.(interface{ String() string }).String())
	h.logs.Reset()
	h.v.cfg.Logger.Info("caller", "caller", c)
	buf.WriteString(h.logs.String())
	if strings.Contains(buf.String(), tok) || !strings.Contains(buf.String(), testSubject) {
		t.Errorf("printed caller = %q; want the subject and no token", buf.String())
	}
}

func TestAnonymousAndAbsentCaller(t *testing.T) {
	if c, ok := CallerFrom(t.Context()); ok || c != nil {
		t.Errorf("CallerFrom(empty ctx) = %v, %v; want nil, false", c, ok)
	}
	c, ok := CallerFrom(WithCaller(t.Context(), Anonymous))
	if !ok || c.IsAuthenticated() || c.UserID() != "" || c.Token() != "" || c.Claims() != nil {
		t.Errorf("Anonymous caller = %+v, %v; want present and unauthenticated", c, ok)
	}
	if _, ok := CallerFromTokenInfo(nil); ok {
		t.Error("CallerFromTokenInfo(nil) reported a caller")
	}
}

func TestVerifyErrorsUnwrapToSDKInvalidToken(t *testing.T) {
	h := newHarness(t)
	_, err := h.v.VerifyToken(t.Context(), "nope", nil)
	var te *TokenError
	if !errors.As(err, &te) || te.Reason != ReasonMalformedToken {
		t.Fatalf("err = %v; want a TokenError with reason %s", err, ReasonMalformedToken)
	}
	if !errors.Is(err, sdkauth.ErrInvalidToken) {
		t.Errorf("errors.Is(%v, sdkauth.ErrInvalidToken) = false", err)
	}
}

func TestWriteUnauthorizedStandalone(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteUnauthorized(rec, testMetadataURL)
	assertUnauthorized(t, rec)
}

func TestParseBearer(t *testing.T) {
	tests := []struct {
		value     string
		wantToken string
		wantWhy   Reason
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", ""},
		{"bearer abc.def.ghi", "abc.def.ghi", ""},
		{"BeArEr abc.DEF-_~+/.ghi==", "abc.DEF-_~+/.ghi==", ""},
		{"", "", ReasonMissingCredentials},
		{"Bearer", "", ReasonMalformedHeader},
		{"Bearer ", "", ReasonMalformedHeader},
		{"Bearer ===", "", ReasonMalformedHeader},
		{"Bearer a=b", "", ReasonMalformedHeader},
		{"Bearer a b", "", ReasonMalformedHeader},
		{"Bearer\tabc", "", ReasonWrongScheme},
		{" Bearer abc", "", ReasonWrongScheme},
		{"Bearerabc", "", ReasonWrongScheme},
		{"JWT abc", "", ReasonWrongScheme},
		{"Token abc", "", ReasonWrongScheme},
	}
	for _, tt := range tests {
		tok, err := parseBearer(tt.value)
		var why Reason
		if te := (*TokenError)(nil); errors.As(err, &te) {
			why = te.Reason
		}
		if tok != tt.wantToken || why != tt.wantWhy {
			t.Errorf("parseBearer(%q) = %q, %v; want %q, %s", tt.value, tok, err, tt.wantToken, tt.wantWhy)
		}
	}
}

func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "JWT x", "", "Bearer  x", "Bearer x==", "Bearer \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		tok, err := parseBearer(value)
		if err != nil {
			if tok != "" {
				t.Fatalf("token %q returned with error %v", tok, err)
			}
			var te *TokenError
			if !errors.As(err, &te) || te.Reason == "" {
				t.Fatalf("error %v is not a classified TokenError", err)
			}
			return
		}
		if !strings.EqualFold(value[:7], "bearer ") || value[7:] != tok || !isToken68(tok) {
			t.Fatalf("parseBearer(%q) accepted %q", value, tok)
		}
	})
}

// TestToken68Bytes checks isToken68's byte table against RFC 7235's
// token68 grammar for every byte, in the middle of a token and as padding.
func TestToken68Bytes(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/"
	for c := range 256 {
		want := strings.IndexByte(alphabet, byte(c)) >= 0
		if got := isToken68("a" + string(byte(c)) + "b"); got != want {
			t.Errorf("isToken68 with byte %#x inside = %v, want %v", c, got, want)
		}
	}
	for _, tt := range []struct {
		s    string
		want bool
	}{{"abc==", true}, {"=", false}, {"", false}, {"a=b", false}, {"ab=", true}} {
		if got := isToken68(tt.s); got != tt.want {
			t.Errorf("isToken68(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

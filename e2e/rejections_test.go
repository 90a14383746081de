package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/server/auth"
)

// TestRejections sends every class of bad credentials the resource server
// must refuse, against a running server, and wants the contract's exact 401
// for each, with the verifier's log naming the check that caught it (so a
// case cannot pass by failing some earlier, unrelated check).
//
// Claim defects are minted three ways: with the dev issuer's own key (the
// claim check must catch them), and with a P-256 key the server has never
// seen, once under the issuer's current kid (the signature check must catch
// them) and once under its own kid (the kid lookup must, after a JWKS
// re-fetch finds nothing).
func TestRejections(t *testing.T) {
	p := newPair(t, pairConfig{})
	srv, iss := p.Server, p.Issuer
	now := p.Clock.Now()
	foreign := mustECKey(t)

	// A baseline token proves the server accepts good tokens, so that the
	// refusals below are about the defect and nothing else.
	good, err := iss.MintAccessToken(devissuer.TokenClaims{})
	if err != nil {
		t.Fatal(err)
	}
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(good)))

	type defect struct {
		name   string
		claims devissuer.TokenClaims
		reason auth.Reason // with the issuer's key; "" means accepted
	}
	defects := []defect{
		{"valid claims", devissuer.TokenClaims{}, ""},
		{"aud without the resource (no resource= on authorize)", devissuer.TokenClaims{Audience: []string{"authenticated"}}, auth.ReasonWrongResource},
		{"aud for another resource", devissuer.TokenClaims{Audience: []string{"authenticated", "https://other.example/mcp"}}, auth.ReasonWrongResource},
		{"aud without authenticated (service_role)", devissuer.TokenClaims{Audience: []string{srv.Endpoint}, Role: "service_role"}, auth.ReasonWrongAudience},
		{"expired", devissuer.TokenClaims{IssuedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(-time.Hour)}, auth.ReasonExpired},
		{"no exp", devissuer.TokenClaims{Extra: map[string]any{"exp": nil}}, auth.ReasonMissingExpiry},
		{"nbf in the future", devissuer.TokenClaims{Extra: map[string]any{"nbf": now.Add(time.Hour).Unix()}}, auth.ReasonNotYetValid},
		{"no client_id (signInWithPassword session JWT)", devissuer.TokenClaims{Extra: map[string]any{"client_id": nil}}, auth.ReasonMissingClientID},
		{"empty client_id", devissuer.TokenClaims{Extra: map[string]any{"client_id": ""}}, auth.ReasonMissingClientID},
		{"empty sub", devissuer.TokenClaims{Extra: map[string]any{"sub": ""}}, auth.ReasonMissingSubject},
		{"no sub", devissuer.TokenClaims{Extra: map[string]any{"sub": nil}}, auth.ReasonMissingSubject},
		{"iss of a proxy host", devissuer.TokenClaims{Issuer: "https://tridenttaxis.lovable.cloud/auth/v1"}, auth.ReasonWrongIssuer},
		{"iss with a trailing slash", devissuer.TokenClaims{Issuer: iss.IssuerURL() + "/"}, auth.ReasonWrongIssuer},
	}
	signers := []struct {
		name   string
		key    *ecdsa.PrivateKey
		kid    string
		reason auth.Reason // overrides the defect's reason when set
	}{
		{"issuer key", nil, "", ""},
		{"foreign key under the issuer's kid", foreign, "", auth.ReasonBadSignature},
		{"foreign key under its own kid", foreign, "foreign-kid", auth.ReasonUnknownKey},
	}
	for _, d := range defects {
		for _, s := range signers {
			t.Run(d.name+"/"+s.name, func(t *testing.T) {
				tc := d.claims
				tc.SigningKey, tc.KeyID = s.key, s.kid
				tok, err := iss.MintAccessToken(tc)
				if err != nil {
					t.Fatal(err)
				}
				want := d.reason
				if s.reason != "" {
					want = s.reason
				}
				checkRefusal(t, srv, bearer(tok), want)
			})
		}
	}

	// Tokens built outside the issuer: other algorithms and forgeries.
	kid := iss.CurrentKeyID()
	pub := iss.JWKS().Keys[0].Key.(*ecdsa.PublicKey)
	claims := validClaims(iss.IssuerURL(), srv.Endpoint, now)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(pub))})
	forged := []struct {
		name   string
		token  string
		reason auth.Reason
	}{
		{"ES256 by a foreign key, issuer's claims and kid", sign(t, jose.ES256, foreign, kid, claims), auth.ReasonBadSignature},
		{"RS256 by a foreign key", sign(t, jose.RS256, rsaKey, "foreign-rsa", claims), auth.ReasonUnknownKey},
		{"RS256 by a foreign key under the issuer's kid", sign(t, jose.RS256, rsaKey, kid, claims), auth.ReasonUnknownKey},
		{"HS256 keyed with the issuer's public key (PEM)", sign(t, jose.HS256, pubPEM, kid, claims), auth.ReasonDisallowedAlg},
		{"alg none", unsigned(t, kid, claims), auth.ReasonDisallowedAlg},
		{"kid absent from the JWKS, issuer's key", must(iss.MintAccessToken(devissuer.TokenClaims{KeyID: "kid-not-in-jwks"})), auth.ReasonUnknownKey},
		{"not a JWT", "not-a-jwt", auth.ReasonMalformedToken},
		{"signature stripped", good[:len(good)-10], auth.ReasonBadSignature},
	}
	for _, f := range forged {
		t.Run(f.name, func(t *testing.T) { checkRefusal(t, srv, bearer(f.token), f.reason) })
	}

	// Where the token travels: only "Authorization: Bearer <token>".
	header := func(values ...string) func(*http.Request) {
		return func(r *http.Request) {
			for _, v := range values {
				r.Header.Add("Authorization", v)
			}
		}
	}
	placements := []struct {
		name   string
		edit   func(*http.Request)
		reason auth.Reason
	}{
		{"no credentials", nil, auth.ReasonMissingCredentials},
		{"lower-case scheme", header("bearer " + good), ""},
		{"upper-case scheme", header("BEARER " + good), ""},
		{"token in the query string", func(r *http.Request) { r.URL.RawQuery = url.Values{"access_token": {good}}.Encode() }, auth.ReasonTokenInQuery},
		{"query string beside a good header", func(r *http.Request) {
			r.URL.RawQuery = url.Values{"access_token": {good}}.Encode()
			r.Header.Set("Authorization", "Bearer "+good)
		}, auth.ReasonTokenInQuery},
		{"token in a cookie", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "access_token", Value: good})
			r.AddCookie(&http.Cookie{Name: "sb-access-token", Value: good})
		}, auth.ReasonMissingCredentials},
		{"JWT scheme", header("JWT " + good), auth.ReasonWrongScheme},
		{"Token scheme", header("Token " + good), auth.ReasonWrongScheme},
		{"Basic scheme", header("Basic " + base64.StdEncoding.EncodeToString([]byte("dev@tridenttaxis.test:dev-password"))), auth.ReasonWrongScheme},
		{"raw token without a scheme", header(good), auth.ReasonWrongScheme},
		{"two spaces after Bearer", header("Bearer  " + good), auth.ReasonMalformedHeader},
		{"Bearer without a token", header("Bearer"), auth.ReasonMalformedHeader},
		{"two Authorization headers", header("Bearer "+good, "Bearer "+good), auth.ReasonMalformedHeader},
	}
	for _, pl := range placements {
		t.Run(pl.name, func(t *testing.T) { checkRefusal(t, srv, pl.edit, pl.reason) })
	}
}

// checkRefusal calls estimate_fare with edit's credentials. An empty want
// means the call must succeed; otherwise it must get the contract's 401 and
// the server must log exactly one refusal, for reason want.
func checkRefusal(t *testing.T, srv *mcpServer, edit func(*http.Request), want auth.Reason) {
	t.Helper()
	mark := srv.Logs.Mark()
	c := estimateFare(t, srv.Endpoint, edit)
	got := srv.Logs.RefusalsSince(mark)
	if want == "" {
		wantSampleResult(t, c)
		if len(got) != 0 {
			t.Errorf("accepted, yet refusals logged: %q", got)
		}
		return
	}
	wantUnauthorized(t, c, srv.Base)
	if d := cmp.Diff([]string{string(want)}, got); d != "" {
		t.Errorf("refusal reasons logged (-want +got):\n%s", d)
	}
}

// validClaims is a claim set the server would accept if the issuer had
// signed it.
func validClaims(issuer, resource string, now time.Time) map[string]any {
	return map[string]any{
		"iss": issuer, "sub": devissuer.DefaultUser.ID, "email": devissuer.DefaultUser.Email,
		"aud": []string{"authenticated", resource}, "client_id": "forged-client",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "role": "authenticated",
	}
}

// sign builds a compact JWS with go-jose, for keys and algorithms the
// issuer never uses.
func sign(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatalf("signer %s: %v", alg, err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// unsigned builds an alg "none" token by hand (go-jose refuses to).
func unsigned(t *testing.T, kid string, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT", "kid": kid})
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

func mustECKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

package auth

// Test fixtures: a fake issuer (discovery + JWKS over httptest), keys, token
// minting, an injectable clock and a log buffer.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	testResource    = "https://tridenttaxis.online/mcp"
	testMetadataURL = "https://tridenttaxis.online/.well-known/oauth-protected-resource"
	testSubject     = "8d0c5a47-2b6e-4c1f-9f3e-0a1b2c3d4e5f"
	testClientID    = "client-abc123"
	testEmail       = "dispatch@tridenttaxis.online"
)

// testKey is a signing key the tests own.
type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func (k testKey) publicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

func newECKey(t testing.TB, kid string) testKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.ES256, priv: priv}
}

// RSA generation is slow; the tests share one 2048-bit key.
var (
	rsaOnce sync.Once
	rsaPriv *rsa.PrivateKey
)

func newRSAKey(t testing.TB, kid string) testKey {
	t.Helper()
	rsaOnce.Do(func() {
		var err error
		if rsaPriv, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return testKey{kid: kid, alg: jose.RS256, priv: rsaPriv}
}

// mint signs claims with k, putting k.kid in the header.
func mint(t testing.TB, k testKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// validClaims is a Supabase OAuth access token for testResource as of now.
func validClaims(issuer string, now time.Time) map[string]any {
	return map[string]any{
		"iss":       issuer,
		"sub":       testSubject,
		"aud":       []string{"authenticated", testResource},
		"exp":       now.Add(time.Hour).Unix(),
		"iat":       now.Unix(),
		"client_id": testClientID,
		"email":     testEmail,
		"role":      "authenticated",
		"scope":     "openid email profile",
	}
}

// with returns a copy of c with the given claims set (nil value deletes).
func with(c map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(c))
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

type discoveryMode int

const (
	discoverOIDC        discoveryMode = iota // openid-configuration names jwks_uri
	discoverRFC8414                          // only oauth-authorization-server
	discoverNone                             // only <issuer>/.well-known/jwks.json
	discoverWrongIssuer                      // openid-configuration for another issuer
)

// fakeIssuer serves discovery and a JWKS the test can change at any time.
type fakeIssuer struct {
	srv    *httptest.Server
	issuer string // srv.URL + "/auth/v1", shaped like Supabase's

	mu   sync.Mutex
	keys []jose.JSONWebKey
	raw  []byte // served instead of keys when set
	mode discoveryMode
	down bool

	jwksFetches atomic.Int64
	served      []string // every path requested, in order
}

func newFakeIssuer(t testing.TB, keys ...testKey) *fakeIssuer {
	t.Helper()
	f := &fakeIssuer{}
	f.setKeys(keys...)
	mux := http.NewServeMux()
	mux.HandleFunc("/auth/v1/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		switch f.discovery() {
		case discoverOIDC:
			writeJSON(w, map[string]any{"issuer": f.issuer, "jwks_uri": f.issuer + "/keys"})
		case discoverWrongIssuer:
			writeJSON(w, map[string]any{"issuer": "https://attacker.example/auth/v1", "jwks_uri": f.issuer + "/keys"})
		default:
			http.NotFound(w, r)
		}
	})
	mux.HandleFunc("/auth/v1/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		if f.discovery() != discoverRFC8414 {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"issuer": f.issuer, "jwks_uri": f.issuer + "/rfc8414-keys"})
	})
	jwks := func(w http.ResponseWriter, r *http.Request) {
		f.jwksFetches.Add(1)
		f.mu.Lock()
		set := jose.JSONWebKeySet{Keys: append([]jose.JSONWebKey(nil), f.keys...)}
		raw := f.raw
		f.mu.Unlock()
		if raw != nil {
			w.Header().Set("Content-Type", "application/json")
			w.Write(raw)
			return
		}
		writeJSON(w, set)
	}
	mux.HandleFunc("/auth/v1/keys", jwks)
	mux.HandleFunc("/auth/v1/rfc8414-keys", jwks)
	mux.HandleFunc("/auth/v1/.well-known/jwks.json", jwks)

	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		down := f.down
		f.served = append(f.served, r.URL.Path)
		f.mu.Unlock()
		if down {
			http.Error(w, "upstream down", http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	f.issuer = f.srv.URL + "/auth/v1"
	return f
}

func (f *fakeIssuer) setKeys(keys ...testKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = nil
	for _, k := range keys {
		f.keys = append(f.keys, k.publicJWK())
	}
}

func (f *fakeIssuer) setRawJWKS(b []byte) {
	f.mu.Lock()
	f.raw = b
	f.mu.Unlock()
}

func (f *fakeIssuer) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *fakeIssuer) setMode(m discoveryMode) {
	f.mu.Lock()
	f.mode = m
	f.mu.Unlock()
}

func (f *fakeIssuer) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.served...)
}

func (f *fakeIssuer) discovery() discoveryMode {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// testClock is an injectable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// logBuffer collects log output from concurrent requests.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) Reset() {
	b.mu.Lock()
	b.buf.Reset()
	b.mu.Unlock()
}

// harness is a verifier, ready, in front of a fake issuer.
type harness struct {
	iss   *fakeIssuer
	v     *Verifier
	clock *testClock
	logs  *logBuffer
	key   testKey // ES256, kid "es-1", in the JWKS
	rsa   testKey // RS256, kid "rs-1", in the JWKS
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := &harness{clock: newTestClock(), logs: &logBuffer{}}
	h.key = newECKey(t, "es-1")
	h.rsa = newRSAKey(t, "rs-1")
	h.iss = newFakeIssuer(t, h.key, h.rsa)
	h.v = h.newVerifier(t, nil)
	waitReady(t, h.v)
	return h
}

// config is the verifier configuration for the harness's issuer and clock.
func (h *harness) config() Config {
	return Config{
		Issuer:                h.iss.issuer,
		ResourceURL:           testResource,
		ResourceDocumentation: "https://tridenttaxis.online/mcp-docs",
		HTTPClient:            h.iss.srv.Client(),
		Now:                   h.clock.Now,
		Logger:                slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

func (h *harness) newVerifier(t testing.TB, after func(time.Duration) <-chan time.Time) *Verifier {
	t.Helper()
	return h.newVerifierWith(t, h.config(), after)
}

func (h *harness) newVerifierWith(t testing.TB, cfg Config, after func(time.Duration) <-chan time.Time) *Verifier {
	t.Helper()
	v, err := newVerifier(cfg, after)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func waitReady(t testing.TB, v *Verifier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := v.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}

// claims are valid claims for the harness's issuer at the current test time.
func (h *harness) claims() map[string]any { return validClaims(h.iss.issuer, h.clock.Now()) }

package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
)

func reasonOf(err error) Reason {
	var te *TokenError
	if errors.As(err, &te) {
		return te.Reason
	}
	return ""
}

func TestKeyRotationWithoutRestart(t *testing.T) {
	h := newHarness(t)
	oldKey := h.key
	if _, err := h.v.Verify(t.Context(), mint(t, oldKey, h.claims())); err != nil {
		t.Fatalf("old key before rotation: %v", err)
	}
	base := h.iss.jwksFetches.Load()

	// The issuer rotates: es-2 in, es-1 out.
	newKey := newECKey(t, "es-2")
	h.iss.setKeys(newKey, h.rsa)
	h.clock.Advance(DefaultRefetchInterval + time.Second)

	c, err := h.v.Verify(t.Context(), mint(t, newKey, h.claims()))
	if err != nil {
		t.Fatalf("new kid after rotation: %v", err)
	}
	if c.UserID() != testSubject {
		t.Errorf("UserID = %q", c.UserID())
	}
	if got := h.iss.jwksFetches.Load() - base; got != 1 {
		t.Errorf("JWKS fetches for the new kid = %d, want 1", got)
	}

	// The withdrawn key is gone from the cache with that same fetch.
	_, err = h.v.Verify(t.Context(), mint(t, oldKey, h.claims()))
	if reasonOf(err) != ReasonUnknownKey {
		t.Errorf("withdrawn key: err = %v, want reason %s", err, ReasonUnknownKey)
	}
	if got := h.iss.jwksFetches.Load() - base; got != 1 {
		t.Errorf("JWKS fetches after the withdrawn kid = %d, want still 1 (rate limit)", got)
	}
}

func TestUnknownKidFloodIsRateLimited(t *testing.T) {
	h := newHarness(t)
	const flood = 64
	tokens := make([]string, flood)
	for i := range tokens {
		tokens[i] = mint(t, newECKey(t, fmt.Sprintf("forged-%d", i)), h.claims())
	}
	base := h.iss.jwksFetches.Load()
	send := func() {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, flood)
		for i, tok := range tokens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = h.v.Verify(context.Background(), tok)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if reasonOf(err) != ReasonUnknownKey {
				t.Fatalf("token %d: err = %v, want reason %s", i, err, ReasonUnknownKey)
			}
		}
	}
	steps := []struct {
		advance time.Duration
		want    int64 // fetches since base
	}{
		{0, 0},                          // the initial load was just now
		{DefaultRefetchInterval, 1},     // one fetch shared by the whole flood
		{0, 1},                          // same instant: none
		{DefaultRefetchInterval / 2, 1}, // within the interval: none
		{DefaultRefetchInterval / 2, 2}, // interval elapsed: one more
		{DefaultRefetchInterval - time.Nanosecond, 2},
	}
	for i, s := range steps {
		h.clock.Advance(s.advance)
		send()
		if got := h.iss.jwksFetches.Load() - base; got != s.want {
			t.Fatalf("step %d (advance %v): JWKS fetches = %d, want %d", i, s.advance, got, s.want)
		}
	}
}

// manualTimer lets a test fire the loader's waits one by one.
type manualTimer struct {
	waits chan time.Duration
	fire  chan time.Time
}

func newManualTimer() *manualTimer {
	return &manualTimer{waits: make(chan time.Duration, 16), fire: make(chan time.Time)}
}

func (m *manualTimer) after(d time.Duration) <-chan time.Time {
	m.waits <- d
	return m.fire
}

// nextWait returns the duration of the loader's next wait, failing the test
// if it does not start waiting within a generous deadline.
func (m *manualTimer) nextWait(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-m.waits:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("key loader never waited")
		return 0
	}
}

func TestIssuerDownAtStartThenUp(t *testing.T) {
	h := &harness{clock: newTestClock(), logs: &logBuffer{}}
	h.key = newECKey(t, "es-1")
	h.iss = newFakeIssuer(t, h.key)
	h.iss.setDown(true)
	timer := newManualTimer()
	v := h.newVerifier(t, timer.after) // construction must not fail

	// First attempt failed; the loader backs off (500ms ± 50%).
	if d := timer.nextWait(t); d < loadInitialBackoff/2 || d > loadInitialBackoff*3/2 {
		t.Errorf("first backoff = %v, want about %v", d, loadInitialBackoff)
	}
	if v.Ready() {
		t.Fatal("Ready() = true with the issuer down")
	}
	if err := v.ReadyErr(); err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "503") {
		t.Errorf("ReadyErr() = %v; want it to say the issuer is unreachable (HTTP 503)", err)
	}
	tok := mint(t, h.key, h.claims())
	if _, err := v.Verify(t.Context(), tok); reasonOf(err) != ReasonKeysUnavailable {
		t.Errorf("Verify while not ready: err = %v, want reason %s", err, ReasonKeysUnavailable)
	}

	// Still down at the second attempt: the backoff grows.
	timer.fire <- time.Time{}
	if d := timer.nextWait(t); d < loadInitialBackoff*3/4 {
		t.Errorf("second backoff = %v, want it to grow", d)
	}
	if v.Ready() {
		t.Fatal("Ready() = true with the issuer still down")
	}

	h.iss.setDown(false)
	timer.fire <- time.Time{}
	waitReady(t, v)
	if !v.Ready() || v.ReadyErr() != nil {
		t.Errorf("Ready() = %v, ReadyErr() = %v after the issuer came up", v.Ready(), v.ReadyErr())
	}
	if d := timer.nextWait(t); d != DefaultRefreshInterval {
		t.Errorf("wait after success = %v, want the refresh interval %v", d, DefaultRefreshInterval)
	}
	if _, err := v.Verify(t.Context(), tok); err != nil {
		t.Errorf("Verify once ready: %v", err)
	}

	// A failed background refresh keeps the keys: still ready, still verifying.
	h.iss.setDown(true)
	timer.fire <- time.Time{}
	timer.nextWait(t)
	if !v.Ready() {
		t.Error("Ready() turned false after a failed refresh")
	}
	if _, err := v.Verify(t.Context(), tok); err != nil {
		t.Errorf("Verify after a failed refresh: %v", err)
	}

	// Close stops the loader while it waits, and is idempotent.
	done := make(chan struct{})
	go func() { v.Close(); v.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

func TestIssuerUnreachableAtStart(t *testing.T) {
	h := &harness{clock: newTestClock(), logs: &logBuffer{}}
	h.key = newECKey(t, "es-1")
	h.iss = newFakeIssuer(t, h.key)
	h.iss.srv.Close() // nothing listens there any more
	timer := newManualTimer()
	v := h.newVerifier(t, timer.after)
	timer.nextWait(t)
	if err := v.ReadyErr(); v.Ready() || err == nil || !strings.Contains(err.Error(), h.iss.issuer) {
		t.Errorf("Ready() = %v, ReadyErr() = %v; want not ready, naming the issuer", v.Ready(), err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	if err := v.WaitReady(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitReady = %v, want DeadlineExceeded", err)
	}
}

func TestDiscovery(t *testing.T) {
	tests := []struct {
		name     string
		mode     discoveryMode
		wantJWKS string
	}{
		{"openid-configuration", discoverOIDC, "/auth/v1/keys"},
		{"RFC 8414 metadata", discoverRFC8414, "/auth/v1/rfc8414-keys"},
		{"conventional jwks.json", discoverNone, "/auth/v1/.well-known/jwks.json"},
		{"foreign discovery document ignored", discoverWrongIssuer, "/auth/v1/.well-known/jwks.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &harness{clock: newTestClock(), logs: &logBuffer{}}
			h.key = newECKey(t, "es-1")
			h.iss = newFakeIssuer(t, h.key)
			h.iss.setMode(tt.mode)
			v := h.newVerifier(t, nil)
			waitReady(t, v)
			if _, err := v.Verify(t.Context(), mint(t, h.key, h.claims())); err != nil {
				t.Fatal(err)
			}
			paths := h.iss.paths()
			if got := paths[len(paths)-1]; got != tt.wantJWKS {
				t.Errorf("JWKS fetched from %s, want %s (all: %q)", got, tt.wantJWKS, paths)
			}
			if tt.mode == discoverOIDC && len(paths) != 2 {
				t.Errorf("requests = %q, want discovery then JWKS", paths)
			}
		})
	}
}

func TestJWKSKeepsOnlyUsableKeys(t *testing.T) {
	h := &harness{clock: newTestClock(), logs: &logBuffer{}}
	h.key = newECKey(t, "es-good")
	h.iss = newFakeIssuer(t)

	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsa1024, _ := rsa.GenerateKey(rand.Reader, 1024)
	encKey := newECKey(t, "es-enc")
	wrongAlg := newECKey(t, "es-says-rs")
	var raws []json.RawMessage
	add := func(k jose.JSONWebKey) {
		b, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, b)
	}
	add(h.key.publicJWK())
	add(jose.JSONWebKey{Key: &p384.PublicKey, KeyID: "es-384"})
	add(jose.JSONWebKey{Key: &rsa1024.PublicKey, KeyID: "rs-1024"})
	add(jose.JSONWebKey{Key: encKey.priv.Public(), KeyID: encKey.kid, Use: "enc"})
	add(jose.JSONWebKey{Key: wrongAlg.priv.Public(), KeyID: wrongAlg.kid, Algorithm: "RS256"})
	add(jose.JSONWebKey{Key: []byte("shared-secret"), KeyID: "hs", Algorithm: "HS256"})
	raws = append(raws, json.RawMessage(`{"kty":"XYZ","kid":"weird"}`))
	body, _ := json.Marshal(map[string]any{"keys": raws})
	h.iss.setRawJWKS(body)

	v := h.newVerifier(t, nil)
	waitReady(t, v)
	got, _, _ := v.keys.lookup("", jose.ES256)
	got2, _, _ := v.keys.lookup("", jose.RS256)
	var kids []string
	for _, k := range append(got, got2...) {
		kids = append(kids, k.kid)
	}
	if diff := cmp.Diff([]string{"es-good"}, kids); diff != "" {
		t.Errorf("usable keys (-want +got):\n%s", diff)
	}
	logs := h.logs.String()
	for _, kid := range []string{"es-384", "rs-1024", "es-enc", "es-says-rs", "hs"} {
		if !strings.Contains(logs, "kid="+kid) {
			t.Errorf("no log line for skipped key %s", kid)
		}
	}
}

func TestJWKSWithoutUsableKeysIsNotReady(t *testing.T) {
	h := &harness{clock: newTestClock(), logs: &logBuffer{}}
	h.iss = newFakeIssuer(t)
	h.iss.setRawJWKS([]byte(`{"keys":[]}`)) // a Supabase project still on HS256
	timer := newManualTimer()
	v := h.newVerifier(t, timer.after)
	timer.nextWait(t)
	if err := v.ReadyErr(); v.Ready() || err == nil || !strings.Contains(err.Error(), "no usable ES256") {
		t.Errorf("Ready() = %v, ReadyErr() = %v; want not ready, saying no usable keys", v.Ready(), err)
	}
}

func TestTokenWithoutKidTriesEveryKeyOfItsAlg(t *testing.T) {
	h := newHarness(t)
	noKid := h.key
	noKid.kid = ""
	if _, err := h.v.Verify(t.Context(), mint(t, noKid, h.claims())); err != nil {
		t.Errorf("ES256 token without kid: %v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	ok := Config{Issuer: "https://ref.supabase.co/auth/v1", ResourceURL: testResource}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{"no issuer", func(c *Config) { c.Issuer = "" }, "Issuer is required"},
		{"issuer not a URL", func(c *Config) { c.Issuer = "ref.supabase.co" }, "scheme must be https"},
		{"issuer with query", func(c *Config) { c.Issuer += "?x=1" }, "query or fragment"},
		{"no resource", func(c *Config) { c.ResourceURL = "" }, "ResourceURL is required"},
		{"resource without host", func(c *Config) { c.ResourceURL = "https:///mcp" }, "no host"},
		{"metadata URL with a quote", func(c *Config) { c.ResourceMetadataURL = `https://x.example/a"b` }, "quote"},
		{"negative refetch interval", func(c *Config) { c.RefetchInterval = -time.Second }, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mutate(&c)
			v, err := NewVerifier(c)
			if err == nil {
				v.Close()
				t.Fatalf("NewVerifier accepted %+v", c)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}

	s, err := ok.resolve()
	if err != nil {
		t.Fatal(err)
	}
	got := []any{s.ResourceMetadataURL, s.Audience, s.Skew, s.RefetchInterval, s.RefreshInterval, s.VerdictCacheSize, s.challenge}
	want := []any{testMetadataURL, "authenticated", 30 * time.Second, 30 * time.Second, 15 * time.Minute, 4096, wantChallenge}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestNoLeewayWhenSkewNegative(t *testing.T) {
	h := newHarness(t)
	v := h.v
	v.cfg.Skew = 0 // what a negative Config.Skew resolves to
	tok := mint(t, h.key, with(h.claims(), "exp", h.clock.Now().Add(-time.Second).Unix()))
	if _, err := v.Verify(t.Context(), tok); reasonOf(err) != ReasonExpired {
		t.Errorf("err = %v, want %s", err, ReasonExpired)
	}
	s, _ := Config{Issuer: "https://a.example", ResourceURL: testResource, Skew: -1}.resolve()
	if s.Skew != 0 {
		t.Errorf("negative Skew resolved to %v, want 0", s.Skew)
	}
}

// BenchmarkVerify is a client reusing its token: the first call checks the
// signature, the rest are answered from the verdict cache.
func BenchmarkVerify(b *testing.B) {
	h := newHarness(b)
	h.v.cfg.Logger = slog.New(slog.DiscardHandler)
	tok := mint(b, h.key, h.claims())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.v.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyFullCheck is the whole ES256 check, as every first use of
// a token pays it (the verdict cache off).
func BenchmarkVerifyFullCheck(b *testing.B) {
	h := newHarness(b)
	cfg := h.config()
	cfg.VerdictCacheSize = -1
	v := h.newVerifierWith(b, cfg, nil)
	waitReady(b, v)
	tok := mint(b, h.key, h.claims())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMiddleware(b *testing.B) {
	h := newHarness(b)
	tok := mint(b, h.key, h.claims())
	handler := h.v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	b.ReportAllocs()
	for b.Loop() {
		r := mcpRequest("/mcp")
		r.Header.Set("Authorization", "Bearer "+tok)
		handler.ServeHTTP(discardWriter{}, r)
	}
}

type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

package auth

import (
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cached reports whether the verifier holds a verdict for tok.
func cached(v *Verifier, tok string) bool {
	return v.verdicts.lru.Contains(sha256.Sum256([]byte(tok)))
}

func TestVerdictCacheRemembersAcceptedTokensWithoutTheToken(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, h.claims())
	first, err := h.v.Verify(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if !cached(h.v, tok) {
		t.Fatal("accepted token not remembered")
	}
	for _, k := range h.v.verdicts.lru.Keys() {
		v, _ := h.v.verdicts.lru.Peek(k)
		if v.info.Token != "" {
			t.Error("the cache holds the raw token")
		}
	}
	second, err := h.v.Verify(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{first.UserID(), first.Email(), first.ClientID(), first.Claims(), first.Token()}
	got := []any{second.UserID(), second.Email(), second.ClientID(), second.Claims(), second.Token()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("caller from the cache differs (-full check +cache):\n%s", diff)
	}
	// The go-sdk's TokenInfo of a hit points at the hit's own caller.
	ti := second.(*verifiedCaller).ti
	if c, _ := CallerFromTokenInfo(ti); c != second || ti.UserID != testSubject || strings.Join(ti.Scopes, " ") != "openid email profile" {
		t.Errorf("TokenInfo of a hit = %+v", ti)
	}
}

func TestVerdictCacheNeverOutlivesTheTimeClaims(t *testing.T) {
	tests := []struct {
		name    string
		claims  func(now time.Time) []any // overrides of validClaims
		advance time.Duration             // after the first, accepted, check
		want    Reason
	}{
		{"exp passes", func(now time.Time) []any { return []any{"exp", now.Add(time.Minute).Unix()} },
			time.Minute + DefaultSkew + time.Second, ReasonExpired},
		{"exp within the skew", func(now time.Time) []any { return []any{"exp", now.Add(time.Minute).Unix()} },
			time.Minute + DefaultSkew, ""},
		{"clock back before nbf", func(now time.Time) []any { return []any{"nbf", now.Unix()} },
			-DefaultSkew - time.Second, ReasonNotYetValid},
		{"clock back before iat", func(now time.Time) []any { return []any{"iat", now.Unix()} },
			-DefaultSkew - time.Second, ReasonIssuedInFuture},
		{"clock back within the skew", func(now time.Time) []any { return []any{"nbf", now.Unix()} },
			-DefaultSkew, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tok := mint(t, h.key, with(h.claims(), tt.claims(h.clock.Now())...))
			if _, err := h.v.Verify(t.Context(), tok); err != nil {
				t.Fatal(err)
			}
			h.clock.Advance(tt.advance)
			_, err := h.v.Verify(t.Context(), tok)
			if reasonOf(err) != tt.want {
				t.Fatalf("after %v: err = %v, want reason %q", tt.advance, err, tt.want)
			}
			if cached(h.v, tok) != (tt.want == "") {
				t.Errorf("remembered = %v after the second check (%v)", cached(h.v, tok), err)
			}
		})
	}
}

func TestVerdictCacheNeverRemembersRefusals(t *testing.T) {
	h := newHarness(t)
	other := newECKey(t, h.key.kid) // same kid, another key: bad signature
	now := h.clock.Now()
	for _, tok := range []string{
		mint(t, other, h.claims()),
		mint(t, h.key, with(h.claims(), "aud", []string{"authenticated"})),
		mint(t, h.key, with(h.claims(), "nbf", now.Add(time.Hour).Unix())),
		mint(t, h.key, with(h.claims(), "client_id", nil)),
	} {
		for i := range 2 {
			if _, err := h.v.Verify(t.Context(), tok); err == nil {
				t.Fatalf("check %d accepted a bad token", i)
			}
		}
		if cached(h.v, tok) {
			t.Error("a refused token was remembered")
		}
	}
}

func TestVerdictCacheDroppedWhenTheKeysChange(t *testing.T) {
	h := newHarness(t)
	oldTok := mint(t, h.key, h.claims())
	rsaTok := mint(t, h.rsa, h.claims())
	for _, tok := range []string{oldTok, rsaTok} {
		if _, err := h.v.Verify(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
	}

	// A refresh that brings the same keys keeps the verdicts.
	if err := h.v.keys.refresh(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if !cached(h.v, oldTok) || !cached(h.v, rsaTok) {
		t.Fatal("a refresh with unchanged keys dropped the verdicts")
	}

	// The issuer withdraws es-1 and publishes es-2: a token with the new kid
	// makes the verifier re-fetch, which drops every verdict.
	newKey := newECKey(t, "es-2")
	h.iss.setKeys(newKey, h.rsa)
	h.clock.Advance(DefaultRefetchInterval + time.Second)
	if _, err := h.v.Verify(t.Context(), mint(t, newKey, h.claims())); err != nil {
		t.Fatal(err)
	}
	if cached(h.v, oldTok) || cached(h.v, rsaTok) {
		t.Error("verdicts survived a key change")
	}
	if _, err := h.v.Verify(t.Context(), oldTok); reasonOf(err) != ReasonUnknownKey {
		t.Errorf("token of the withdrawn key: err = %v, want %s", err, ReasonUnknownKey)
	}
}

func TestVerdictCacheKeySwappedUnderTheSameKid(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, h.claims())
	if _, err := h.v.Verify(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	h.iss.setKeys(newECKey(t, h.key.kid), h.rsa) // same kid, another key
	if err := h.v.keys.refresh(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if _, err := h.v.Verify(t.Context(), tok); reasonOf(err) != ReasonBadSignature {
		t.Errorf("err = %v, want %s", err, ReasonBadSignature)
	}
}

// A verdict checked against keys that changed while it was being checked
// is never used, even if it reached the cache after the purge.
func TestVerdictOfAnOlderKeySetIsNotUsed(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, h.claims())
	if _, err := h.v.Verify(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	h.v.keys.epoch.Add(1) // what a concurrent refresh with other keys does
	if got := h.v.verdicts.get(sha256.Sum256([]byte(tok)), tok, h.v.keys.epoch.Load(), h.clock.Now(), DefaultSkew); got != nil {
		t.Error("a verdict of the previous key set was used")
	}
	if cached(h.v, tok) {
		t.Error("a verdict of the previous key set was kept")
	}
}

func TestVerdictCacheIsBounded(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.VerdictCacheSize = 2
	v := h.newVerifierWith(t, cfg, nil)
	waitReady(t, v)
	var toks []string
	for range 3 {
		tok := mint(t, h.key, h.claims())
		toks = append(toks, tok)
		if _, err := v.Verify(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.verdicts.lru.Len(); n != 2 {
		t.Errorf("cache holds %d verdicts, want the bound 2", n)
	}
	if cached(v, toks[0]) || !cached(v, toks[2]) {
		t.Error("the least recently used verdict should be the one evicted")
	}
}

func TestVerdictCacheOff(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.VerdictCacheSize = -1
	v := h.newVerifierWith(t, cfg, nil)
	waitReady(t, v)
	if v.verdicts != nil {
		t.Fatal("negative VerdictCacheSize still built a cache")
	}
	tok := mint(t, h.key, h.claims())
	for range 2 {
		if _, err := v.Verify(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
	}
}

// Through the middleware, a remembered token that expired gets the one 401.
func TestMiddlewareCachedTokenExpiresWithTheExact401(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, with(h.claims(), "exp", h.clock.Now().Add(time.Minute).Unix()))
	handler := h.v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	serve := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := mcpRequest("/mcp")
		bearer(tok)(r)
		handler.ServeHTTP(rec, r)
		return rec
	}
	for i := range 2 {
		if rec := serve(); rec.Code != 200 {
			t.Fatalf("call %d: HTTP %d", i, rec.Code)
		}
	}
	h.clock.Advance(time.Minute + DefaultSkew + time.Second)
	rec := serve()
	if rec.Code != 401 || rec.Body.String() != wantBody || rec.Header().Get("WWW-Authenticate") != wantChallenge {
		t.Errorf("expired cached token: HTTP %d %s %q", rec.Code, rec.Body, rec.Header().Get("WWW-Authenticate"))
	}
	if !strings.Contains(h.logs.String(), "reason=expired") {
		t.Errorf("refusal not logged with its reason:\n%s", h.logs)
	}
}

// Only a token68 is remembered, since the middleware checks the token68
// rule only for a token the cache does not hold: a token that reaches
// Verify another way and is not one (go-jose's base64 reading skips line
// breaks) is checked in full every time.
func TestVerdictCacheOnlyRemembersToken68(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, h.claims())
	dot := strings.IndexByte(tok, '.')
	odd := tok[:dot+5] + "\n" + tok[dot+5:]
	if _, err := h.v.Verify(t.Context(), odd); err != nil {
		t.Skipf("go-jose refuses a line break inside the payload (%v): nothing to check", err)
	}
	if cached(h.v, odd) {
		t.Error("a token that is not a token68 was remembered")
	}
	// Through the middleware a value that is not a token68 is refused as
	// malformed, also right after the same bytes plus padding were accepted.
	handler := h.v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, value := range []string{tok, tok + " x", tok + "\t"} {
		rec := httptest.NewRecorder()
		r := mcpRequest("/mcp")
		r.Header.Set("Authorization", "Bearer "+value)
		handler.ServeHTTP(rec, r)
		if want := map[bool]int{true: 200, false: 401}[value == tok]; rec.Code != want {
			t.Errorf("Bearer %q...: HTTP %d, want %d", value[len(value)-3:], rec.Code, want)
		}
	}
	if !strings.Contains(h.logs.String(), "reason=malformed_header") {
		t.Errorf("refusal not logged as a malformed header:\n%s", h.logs)
	}
}

// VerdictCacheStats counts one miss for a token's first use, a hit for
// every reuse through either entry (Verify, the middleware), and nothing
// for a value refused before the cache.
func TestVerdictCacheStats(t *testing.T) {
	h := newHarness(t)
	tok := mint(t, h.key, h.claims())
	for range 3 {
		if _, err := h.v.Verify(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
	}
	handler := h.v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, value := range []string{"Bearer " + tok, "Bearer " + tok + " x", "Basic abc"} {
		r := mcpRequest("/mcp")
		r.Header.Set("Authorization", value)
		handler.ServeHTTP(httptest.NewRecorder(), r)
	}
	if hits, misses := h.v.VerdictCacheStats(); hits != 3 || misses != 1 {
		t.Errorf("VerdictCacheStats = %d hits, %d misses; want 3, 1", hits, misses)
	}
}

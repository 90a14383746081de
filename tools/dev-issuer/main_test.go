package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the binary's run on a free loopback port and returns its base URL.
func start(t *testing.T, args []string, env map[string]string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &syncBuffer{}
	readyc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, log,
			func(u string) { readyc <- u })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case u := <-readyc:
		return u, log
	case err := <-done:
		t.Fatalf("run exited early: %v\n%s", err, log)
	case <-time.After(10 * time.Second):
		t.Fatalf("dev-issuer did not start\n%s", log)
	}
	return "", nil
}

func TestRunServesMetadataAndUsersFile(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.json")
	if err := os.WriteFile(users, []byte(`[{"id":"11111111-2222-4333-8444-555555555555","email":"qa@tridenttaxis.test","password":"pw"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	base, log := start(t, []string{"--users", users, "--dev-admin"},
		map[string]string{"DEV_ISSUER_RESOURCES": "http://localhost:8080/mcp", "DEV_ISSUER_DB": filepath.Join(dir, "i.db")})

	resp, err := http.Get(base + "/.well-known/oauth-authorization-server/auth/v1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		t.Fatal(err)
	}
	if meta["issuer"] != base+"/auth/v1" {
		t.Errorf("issuer = %v, want %s/auth/v1", meta["issuer"], base)
	}
	out := log.String()
	for _, want := range []string{"qa@tridenttaxis.test", "WARNING: dev-only", base + "/auth/v1"} {
		if !strings.Contains(out, want) {
			t.Errorf("startup log lacks %q:\n%s", want, out)
		}
	}
	rot, err := http.Post(base+"/auth/v1/admin/rotate-key", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	rot.Body.Close()
	if rot.StatusCode != http.StatusOK {
		t.Errorf("--dev-admin rotate-key: status %d", rot.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(dir, "i.db")); err != nil {
		t.Errorf("DEV_ISSUER_DB not created: %v", err)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	for _, args := range [][]string{
		{"--users", "/nonexistent/users.json"},
		{"--resource", "not a uri"},
		{"--auto-approve-user", "nobody@example.com"},
		{"stray"},
		// Dev-only shortcuts on an address other machines can reach.
		{"--addr", "0.0.0.0:0", "--dev-auto-approve"},
		{"--addr", ":0", "--dev-admin"},
		{"--addr", "192.0.2.1:0", "--auto-approve-user", "dev@tridenttaxis.test"},
	} {
		err := run(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, args...),
			func(string) string { return "" }, &syncBuffer{}, nil)
		if err == nil {
			t.Errorf("run %v: want an error", args)
		}
	}
}

func TestDevShortcutsNeedLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9999": true, "[::1]:9999": true, "localhost:9999": true, "127.0.0.2:0": true,
		"0.0.0.0:9999": false, ":9999": false, "[::]:9999": false, "10.0.0.5:9999": false, "example.com:9999": false,
		"no-port": false,
	} {
		if err := requireLoopback(addr); (err == nil) != want {
			t.Errorf("requireLoopback(%q) = %v, want allowed=%v", addr, err, want)
		}
	}
}

// TestMintTokenSignsAnExpiredToken checks the --dev-admin mint endpoint the
// conformance run uses for its expired-token case: the token verifies
// against the issuer's published JWKS, carries the issuer, the resource and
// the user, and its exp has passed.
func TestMintTokenSignsAnExpiredToken(t *testing.T) {
	const resource = "http://127.0.0.1:8080/mcp"
	base, _ := start(t, []string{"--dev-admin", "--resource", resource}, nil)
	before := time.Now()

	body := postMint(t, base, url.Values{"resource": {resource}, "ttl": {"-1h"}, "email": {"dev@tridenttaxis.test"}}, http.StatusOK)
	var got struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("mint response %s: %v", body, err)
	}
	if got.TokenType != "bearer" || got.ExpiresIn != -3600 {
		t.Errorf("token_type %q expires_in %d, want bearer -3600", got.TokenType, got.ExpiresIn)
	}

	claims := verifyWithJWKS(t, base, got.AccessToken)
	if claims.Issuer != base+"/auth/v1" {
		t.Errorf("iss = %q, want %s/auth/v1", claims.Issuer, base)
	}
	if !claims.Audience.Contains(resource) || !claims.Audience.Contains("authenticated") {
		t.Errorf("aud = %v, want authenticated and %s", claims.Audience, resource)
	}
	if claims.Subject != "6f1c7a2e-5b8d-4c3e-9a1f-2d7e8b9c0a11" {
		t.Errorf("sub = %q, want the dev user's id", claims.Subject)
	}
	exp := claims.Expiry.Time()
	if !exp.Before(before) || exp.Before(before.Add(-time.Hour-time.Minute)) {
		t.Errorf("exp = %s, want about an hour before %s", exp, before)
	}
	if !claims.IssuedAt.Time().Before(exp) {
		t.Errorf("iat %s is not before exp %s", claims.IssuedAt.Time(), exp)
	}

	// The default lifetime gives a live token, and says so.
	body = postMint(t, base, url.Values{"resource": {resource}}, http.StatusOK)
	if err := json.Unmarshal(body, &got); err != nil || got.ExpiresIn != 3600 {
		t.Errorf("default mint: expires_in %d (%v), want 3600: %s", got.ExpiresIn, err, body)
	}
	if c := verifyWithJWKS(t, base, got.AccessToken); !c.Expiry.Time().After(time.Now()) {
		t.Errorf("default mint: exp %s has passed", c.Expiry.Time())
	}
}

func TestMintTokenRefusesBadRequests(t *testing.T) {
	base, _ := start(t, []string{"--dev-admin", "--resource", "http://127.0.0.1:8080/mcp"}, nil)
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"resource": {"http://elsewhere.example/mcp"}}, "invalid_target"},
		{url.Values{"email": {"nobody@tridenttaxis.test"}}, "invalid_request"},
		{url.Values{"ttl": {"an hour"}}, "invalid_request"},
		{url.Values{"ttl": {"0s"}}, "invalid_request"},
	} {
		body := postMint(t, base, tc.form, http.StatusBadRequest)
		if !strings.Contains(string(body), `"error":"`+tc.want+`"`) {
			t.Errorf("mint %v: body %s, want error %s", tc.form, body, tc.want)
		}
	}
}

func TestMintTokenNeedsDevAdmin(t *testing.T) {
	base, _ := start(t, nil, nil)
	resp, err := http.PostForm(base+MintPath, url.Values{"ttl": {"-1h"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("mint-token answered 200 without --dev-admin")
	}
}

func postMint(t *testing.T, base string, form url.Values, wantStatus int) []byte {
	t.Helper()
	resp, err := http.PostForm(base+MintPath, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != wantStatus {
		t.Fatalf("mint %v: status %d, want %d: %s", form, resp.StatusCode, wantStatus, body)
	}
	return body
}

// verifyWithJWKS checks tok's signature against the issuer's published keys
// and returns its claims (without judging exp).
func verifyWithJWKS(t *testing.T, base, tok string) jwt.Claims {
	t.Helper()
	resp, err := http.Get(base + "/auth/v1/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var jwks jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&jwks); err != nil {
		t.Fatal(err)
	}
	parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("minted token does not parse: %v", err)
	}
	var c jwt.Claims
	if err := parsed.Claims(jwks, &c); err != nil {
		t.Fatalf("minted token does not verify against the JWKS: %v", err)
	}
	return c
}

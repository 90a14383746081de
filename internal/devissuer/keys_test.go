package devissuer_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

func jwksKIDs(t *testing.T, h *harness) []string {
	t.Helper()
	var set jose.JSONWebKeySet
	h.getJSON(h.issuer()+"/.well-known/jwks.json", &set)
	var kids []string
	for _, k := range set.Keys {
		if k.Algorithm != "ES256" || k.Use != "sig" || !k.IsPublic() {
			t.Errorf("JWKS key %s: alg %q use %q public %v, want ES256 sig public", k.KeyID, k.Algorithm, k.Use, k.IsPublic())
		}
		kids = append(kids, k.KeyID)
	}
	return kids
}

func TestKeyRotationWhileRunning(t *testing.T) {
	h := newHarness(t, devissuer.Options{DevAutoApprove: true, DevAdmin: true})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	old := h.exchange(cfg, h.autoCode(cfg, v), v)
	_, oldKID, err := h.verify(old.AccessToken)
	if err != nil {
		t.Fatal(err)
	}

	// Rotate through the dev admin endpoint.
	status, body := h.postJSON(h.issuer()+"/admin/rotate-key", struct{}{})
	newKID, _ := body["kid"].(string)
	if status != http.StatusOK || newKID == "" || newKID == oldKID {
		t.Fatalf("rotate-key: status %d body %v (old kid %s)", status, body, oldKID)
	}
	if diff := cmp.Diff([]string{newKID, oldKID}, jwksKIDs(t, h)); diff != "" {
		t.Errorf("JWKS after rotation (-want +got):\n%s", diff)
	}
	if _, _, err := h.verify(old.AccessToken); err != nil {
		t.Errorf("token signed before rotation no longer verifies: %v", err)
	}
	v2 := oauth2.GenerateVerifier()
	fresh := h.exchange(cfg, h.autoCode(cfg, v2), v2)
	if _, kid, err := h.verify(fresh.AccessToken); err != nil || kid != newKID {
		t.Errorf("token after rotation: kid %q err %v, want kid %q", kid, err, newKID)
	}
	// A refresh after rotation is signed with the new key too.
	_, r := h.refresh(clientID, old.RefreshToken)
	if _, kid, err := h.verify(r["access_token"].(string)); err != nil || kid != newKID {
		t.Errorf("refreshed token after rotation: kid %q err %v, want %q", kid, err, newKID)
	}

	// Past the retention the old key leaves the JWKS.
	h.clock.Advance(time.Hour + 5*time.Minute + time.Second)
	if diff := cmp.Diff([]string{newKID}, jwksKIDs(t, h)); diff != "" {
		t.Errorf("JWKS after retention (-want +got):\n%s", diff)
	}
	var missing *missingKidError
	if _, _, err := h.verify(old.AccessToken); !errors.As(err, &missing) {
		t.Errorf("old token after retention: err %v, want its kid missing from the JWKS", err)
	}
}

func TestRotateKeyEndpointOnlyInDevAdmin(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	resp, err := h.http.Post(h.issuer()+"/admin/rotate-key", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("rotate-key served without DevAdmin")
	}
}

func TestMintAccessToken(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	now := h.clock.Now()
	foreign, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)

	tests := []struct {
		name       string
		claims     devissuer.TokenClaims
		want       map[string]any // subset of claims; nil value = must be absent
		wantVerify bool
	}{
		{"defaults", devissuer.TokenClaims{}, map[string]any{
			"iss": h.issuer(), "sub": devissuer.DefaultUser.ID, "email": devissuer.DefaultUser.Email,
			"aud": []any{"authenticated", testResource}, "role": "authenticated", "client_id": "devissuer-test-client",
			"iat": float64(now.Unix()), "exp": float64(now.Add(time.Hour).Unix()),
		}, true},
		{"expired", devissuer.TokenClaims{ExpiresAt: now.Add(-time.Minute)}, map[string]any{
			"exp": float64(now.Add(-time.Minute).Unix())}, true},
		{"wrong audience", devissuer.TokenClaims{Audience: []string{"service_role"}}, map[string]any{
			"aud": []any{"service_role"}}, true},
		{"other resource", devissuer.TokenClaims{Resource: "https://other.example/mcp"}, map[string]any{
			"aud": []any{"authenticated", "https://other.example/mcp"}}, true},
		{"no client_id", devissuer.TokenClaims{Extra: map[string]any{"client_id": nil}}, map[string]any{
			"client_id": nil}, true},
		{"proxy issuer", devissuer.TokenClaims{Issuer: "https://x.lovable.cloud/auth/v1"}, map[string]any{
			"iss": "https://x.lovable.cloud/auth/v1"}, true},
		{"foreign key", devissuer.TokenClaims{SigningKey: foreign}, nil, false},
		{"unknown kid", devissuer.TokenClaims{KeyID: "nope"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := h.srv.MintAccessToken(tt.claims)
			if err != nil {
				t.Fatal(err)
			}
			claims, _, err := h.verify(tok)
			if (err == nil) != tt.wantVerify {
				t.Fatalf("verify err = %v, want success %v", err, tt.wantVerify)
			}
			got := map[string]any{}
			for k, w := range tt.want {
				if v, ok := claims[k]; ok || w != nil {
					got[k] = v
				} else {
					got[k] = nil
				}
			}
			if diff := cmp.Diff(tt.want, got); len(tt.want) > 0 && diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSQLiteKeepsClientsAndKeys restarts an issuer on the same database:
// the client registered before still completes the flow, and a token
// signed before the restart still verifies.
func TestSQLiteKeepsClientsAndKeys(t *testing.T) {
	db := filepath.Join(t.TempDir(), "issuer.db")
	opts := devissuer.Options{DBPath: db, DevAutoApprove: true, Resources: []string{testResource}}

	first := startIssuer(t, opts)
	h1 := &harness{t: t, srv: first, http: noRedirectClient(), clock: newFakeClock()}
	clientID := h1.register(redirect)
	oldToken, err := first.MintAccessToken(devissuer.TokenClaims{})
	if err != nil {
		t.Fatal(err)
	}
	oldKID := first.CurrentKeyID()
	first.HTTP.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := startIssuer(t, opts)
	h2 := &harness{t: t, srv: second, http: noRedirectClient(), clock: newFakeClock()}
	if second.CurrentKeyID() != oldKID {
		t.Errorf("signing key after restart = %s, want %s", second.CurrentKeyID(), oldKID)
	}
	if c, ok := second.Client(clientID); !ok || c.Name != "Test MCP Client" {
		t.Fatalf("client %s after restart: %+v %v", clientID, c, ok)
	}
	// The base URL changed with the new port, so check the signature only.
	if _, _, err := h2.verify(oldToken); err != nil {
		t.Errorf("token from before the restart: %v", err)
	}
	cfg := h2.oauthConfig(clientID, redirect)
	v := oauth2.GenerateVerifier()
	h2.exchange(cfg, h2.autoCode(cfg, v), v)

	// A rotation is persisted too.
	kid, err := second.RotateKey()
	if err != nil {
		t.Fatal(err)
	}
	second.HTTP.Close()
	second.Close()
	third, err := devissuer.New(devissuer.Options{BaseURL: "http://127.0.0.1:1", DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	var got []string
	for _, k := range third.JWKS().Keys {
		got = append(got, k.KeyID)
	}
	if diff := cmp.Diff([]string{kid, oldKID}, got); diff != "" {
		t.Errorf("JWKS after restart following a rotation (-want +got):\n%s", diff)
	}
}

func noRedirectClient() *http.Client {
	return &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func TestJWKSIsPublicOnly(t *testing.T) {
	h := newHarness(t, devissuer.Options{})
	resp, err := h.http.Get(h.issuer() + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Keys) != 1 {
		t.Fatalf("JWKS has %d keys, want 1", len(raw.Keys))
	}
	for _, k := range raw.Keys {
		if _, ok := k["d"]; ok {
			t.Errorf("JWKS leaks the private key %v", k["kid"])
		}
		if k["kty"] != "EC" || k["crv"] != "P-256" {
			t.Errorf("key %v: kty %v crv %v", k["kid"], k["kty"], k["crv"])
		}
	}
}

package sources

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Relay's Trident token is fetched with the client credentials, Basic
// auth and the resource parameter, kept until 30 s before it expires, and
// replaced once when Trident refuses it.
func TestTridentTokenSourceCaches(t *testing.T) {
	var fetched atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		r.ParseForm()
		if !ok || id != "relay" || secret != "s" || r.Form.Get("grant_type") != "client_credentials" || r.Form.Get("resource") != "http://t.example/mcp" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		n := fetched.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"bearer","expires_in":120}`, n)
	}))
	defer srv.Close()
	now := time.Now()
	src := NewTridentTokenSource(TridentCredentials{ClientID: "relay", ClientSecret: "s", TokenURL: srv.URL, Resource: "http://t.example/mcp"}).(*clientCredentialsSource)
	src.now = func() time.Time { return now }
	ctx := context.Background()
	get := func() string {
		t.Helper()
		tok, err := src.Token(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if a, b := get(), get(); a != "tok-1" || b != "tok-1" {
		t.Fatalf("two calls = %s, %s; want the one cached token", a, b)
	}
	now = now.Add(120*time.Second - tokenEarly + time.Second) // inside the last 30 s
	if tok := get(); tok != "tok-2" {
		t.Fatalf("near expiry = %s, want a fresh token", tok)
	}
	if tok, err := src.Refresh(ctx, "tok-1"); err != nil || tok != "tok-2" {
		t.Fatalf("Refresh of a token already replaced = %s, %v; want the current one, no fetch", tok, err)
	}
	if tok, err := src.Refresh(ctx, "tok-2"); err != nil || tok != "tok-3" {
		t.Fatalf("Refresh of the current token = %s, %v; want a new one", tok, err)
	}
	if n := fetched.Load(); n != 3 {
		t.Errorf("%d fetches, want 3", n)
	}
	bad := NewTridentTokenSource(TridentCredentials{ClientID: "relay", ClientSecret: "wrong", TokenURL: srv.URL, Resource: "http://t.example/mcp"})
	if _, err := bad.Token(ctx); err == nil {
		t.Error("a wrong secret got a token")
	}
}

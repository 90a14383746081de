package devissuer_test

import (
	"net/http"
	"testing"

	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

func BenchmarkMintAccessToken(b *testing.B) {
	iss, err := devissuer.New(devissuer.Options{BaseURL: "http://127.0.0.1:9999"})
	if err != nil {
		b.Fatal(err)
	}
	defer iss.Close()
	for b.Loop() {
		if _, err := iss.MintAccessToken(devissuer.TokenClaims{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodeFlowAndRefresh is one authorize (auto-approved), code
// exchange and refresh over loopback HTTP: what a test pays per token.
func BenchmarkCodeFlowAndRefresh(b *testing.B) {
	h := newHarness(b, devissuer.Options{DevAutoApprove: true})
	clientID := h.register(redirect)
	cfg := h.oauthConfig(clientID, redirect)
	for b.Loop() {
		v := oauth2.GenerateVerifier()
		tok := h.exchange(cfg, h.autoCode(cfg, v), v)
		if status, _ := h.refresh(clientID, tok.RefreshToken); status != http.StatusOK {
			b.Fatalf("refresh: %d", status)
		}
	}
}

package devissuertest_test

import (
	"testing"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
)

func TestTokenGivesAWorkingPair(t *testing.T) {
	srv := devissuertest.New(t, devissuer.Options{})
	cfg := srv.Config(t)
	tok := srv.Token(t, cfg, "http://localhost:8080/mcp", "")
	if tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("token %+v lacks access or refresh token", tok)
	}
	// The refresh token works once through x/oauth2's token source.
	tok.Expiry = tok.Expiry.Add(-2 * 3600e9) // force a refresh
	ctx := t.Context()
	fresh, err := cfg.TokenSource(ctx, tok).Token()
	if err != nil {
		t.Fatalf("refresh via x/oauth2: %v", err)
	}
	if fresh.RefreshToken == tok.RefreshToken || fresh.AccessToken == tok.AccessToken {
		t.Errorf("refresh did not rotate the tokens")
	}
}

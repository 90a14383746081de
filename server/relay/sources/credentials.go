package sources

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/tridenttaxis/trident-mcp/client"
)

// tokenEarly is how long before its expiry a cached Trident token is
// replaced, so a call never carries a token that expires in flight.
const tokenEarly = 30 * time.Second

// TridentCredentials are Relay's own client credentials for calling
// Trident in OAuth mode. Relay never passes its caller's token on (MCP
// forbids token passthrough: that token's audience is /mcp/rides); it asks
// the issuer for a client-credentials token bound to Trident's resource
// (RFC 8707) instead.
type TridentCredentials struct {
	// ClientID and ClientSecret are Relay's own confidential client
	// (RELAY_TRIDENT_CLIENT_ID, RELAY_TRIDENT_CLIENT_SECRET).
	ClientID, ClientSecret string
	// TokenURL is the issuer's token endpoint (RELAY_TRIDENT_TOKEN_URL; the
	// binary's default is OAUTH_ISSUER + /oauth/token, Supabase's layout).
	TokenURL string
	// Resource is Trident's resource URI, the RFC 8707 resource the token
	// is asked for (RELAY_TRIDENT_RESOURCE; the binary's default is
	// MCP_RESOURCE_URL, else PUBLIC_BASE_URL + /mcp).
	Resource string
	// Scopes asked for; zero: none.
	Scopes []string
}

// clientCredentialsSource is a [client.TokenSource] over
// golang.org/x/oauth2/clientcredentials: one token, cached until
// tokenEarly before it expires, and a fresh one when Trident refuses it.
type clientCredentialsSource struct {
	cfg *clientcredentials.Config

	mu  sync.Mutex
	tok *oauth2.Token
	now func() time.Time
}

var _ client.TokenSource = (*clientCredentialsSource)(nil)

// NewTridentTokenSource returns the token source of c, for
// [NewTrident] with [client.WithTokenSource].
func NewTridentTokenSource(c TridentCredentials) client.TokenSource {
	cfg := &clientcredentials.Config{
		ClientID:       c.ClientID,
		ClientSecret:   c.ClientSecret,
		TokenURL:       c.TokenURL,
		Scopes:         c.Scopes,
		EndpointParams: map[string][]string{"resource": {c.Resource}},
		AuthStyle:      oauth2.AuthStyleInHeader,
	}
	return &clientCredentialsSource{cfg: cfg, now: time.Now}
}

// Token implements [client.TokenSource].
func (s *clientCredentialsSource) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && (s.tok.Expiry.IsZero() || s.now().Add(tokenEarly).Before(s.tok.Expiry)) {
		return s.tok.AccessToken, nil
	}
	return s.fetch(ctx)
}

// Refresh implements [client.TokenSource]: Trident refused rejected, so a
// new token is fetched unless another call already replaced it.
func (s *clientCredentialsSource) Refresh(ctx context.Context, rejected string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.AccessToken != rejected {
		return s.tok.AccessToken, nil
	}
	return s.fetch(ctx)
}

func (s *clientCredentialsSource) fetch(ctx context.Context) (string, error) {
	tok, err := s.cfg.Token(ctx)
	if err != nil {
		s.tok = nil
		// The error names the endpoint and the issuer's error code; the
		// secret is never part of it.
		return "", fmt.Errorf("relay: Trident client-credentials token: %w", err)
	}
	if tok.AccessToken == "" {
		return "", errors.New("relay: Trident client-credentials token: the issuer sent no access_token")
	}
	s.tok = tok
	return tok.AccessToken, nil
}

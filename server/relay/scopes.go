package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// Relay's OAuth scopes (RELAY.md, "Access, limits, retention"): in OAuth
// mode the front door refuses a tool, and the connectors route, whose scope
// the caller's token lacks with 403 insufficient_scope.
const (
	ScopeRidesRead     = "rides:read"
	ScopeRidesHandoff  = "rides:handoff"
	ScopeJourneysWrite = "journeys:write"
)

// ToolScopes is the scope each of Relay's tools needs in OAuth mode.
var ToolScopes = map[string]string{
	mcptypes.ToolSearchRides:           ScopeRidesRead,
	mcptypes.ToolCompareRides:          ScopeRidesRead,
	mcptypes.ToolResolveRide:           ScopeRidesRead,
	mcptypes.ToolGetRideBookingHandoff: ScopeRidesHandoff,
	mcptypes.ToolContinueJourney:       ScopeJourneysWrite,
}

// tokenEarly is how long before its expiry a cached Trident token is
// replaced, so a call never carries a token that expires in flight.
const tokenEarly = 30 * time.Second

// TridentCredentials are Relay's own client credentials for calling
// Trident in OAuth mode. Relay never passes its caller's token on (MCP
// forbids token passthrough: that token's audience is /mcp/rides); it asks
// the issuer for a client-credentials token bound to Trident's resource
// (RFC 8707) instead.
type TridentCredentials struct {
	ClientID, ClientSecret string // RELAY_TRIDENT_CLIENT_ID, RELAY_TRIDENT_CLIENT_SECRET
	// TokenURL is the issuer's token endpoint (OAUTH_ISSUER + /oauth/token,
	// Supabase's layout, unless RELAY_TRIDENT_TOKEN_URL says otherwise).
	TokenURL string
	// Resource is Trident's resource URI (MCP_RESOURCE_URL, else
	// PUBLIC_BASE_URL + /mcp, unless RELAY_TRIDENT_RESOURCE says otherwise).
	Resource string
	// Scopes asked for; zero: none.
	Scopes []string
}

// credentialsFromEnv reads the Trident credentials; ok is false when
// RELAY_TRIDENT_CLIENT_ID is unset (Relay then calls Trident without a
// token, as in public mode).
func credentialsFromEnv(getenv func(string) string) (TridentCredentials, bool, error) {
	c := TridentCredentials{ClientID: getenv("RELAY_TRIDENT_CLIENT_ID"), ClientSecret: getenv("RELAY_TRIDENT_CLIENT_SECRET")}
	if c.ClientID == "" {
		return c, false, nil
	}
	if c.ClientSecret == "" {
		return c, false, errors.New("relay: RELAY_TRIDENT_CLIENT_ID is set but RELAY_TRIDENT_CLIENT_SECRET is not")
	}
	c.TokenURL = getenv("RELAY_TRIDENT_TOKEN_URL")
	if c.TokenURL == "" {
		iss := strings.TrimRight(getenv("OAUTH_ISSUER"), "/")
		if iss == "" {
			return c, false, errors.New("relay: RELAY_TRIDENT_CLIENT_ID needs OAUTH_ISSUER (or RELAY_TRIDENT_TOKEN_URL) for the token endpoint")
		}
		c.TokenURL = iss + "/oauth/token"
	}
	c.Resource = getenv("RELAY_TRIDENT_RESOURCE")
	if c.Resource == "" {
		c.Resource = getenv("MCP_RESOURCE_URL")
	}
	if c.Resource == "" {
		if base := strings.TrimRight(getenv("PUBLIC_BASE_URL"), "/"); base != "" {
			c.Resource = base + "/mcp"
		}
	}
	if c.Resource == "" {
		return c, false, errors.New("relay: RELAY_TRIDENT_CLIENT_ID needs Trident's resource: set MCP_RESOURCE_URL, PUBLIC_BASE_URL or RELAY_TRIDENT_RESOURCE")
	}
	return c, true, nil
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
// [NewTridentSource] with [client.WithTokenSource].
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

// tridentAccess is how Relay authenticates to Trident: with its own
// client-credentials token when RELAY_TRIDENT_CLIENT_ID is set, else
// without one. A half-set configuration fails at start.
func tridentAccess(getenv func(string) string) ([]client.Option, error) {
	c, ok, err := credentialsFromEnv(getenv)
	if err != nil || !ok {
		return nil, err
	}
	return []client.Option{client.WithTokenSource(NewTridentTokenSource(c))}, nil
}

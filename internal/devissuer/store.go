package devissuer

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/pkce"
)

// Client is a registered OAuth client as RFC 7591 describes it. It is what
// DCR stores (and SQLite persists); fosite sees it through fositeClient.
type Client struct {
	ID                      string   `json:"client_id"`
	SecretHash              []byte   `json:"secret_hash,omitempty"`
	Name                    string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope,omitempty"`
	IssuedAt                int64    `json:"client_id_issued_at"`
}

// supportedScopes are the scopes any client may ask for: Supabase's OAuth
// server's, and Relay's per-tool scopes (rides:read, rides:handoff,
// journeys:write). Granted scopes are echoed in the token response and, when
// there are any, carried in the access token's scope claim, where Relay's
// front door reads them; Trident's tools need none.
var supportedScopes = []string{"openid", "email", "profile", "phone", "offline_access", "rides:read", "rides:handoff", "journeys:write"}

func (c *Client) fositeClient(redirectURIs []string) fosite.Client {
	return &fosite.DefaultOpenIDConnectClient{
		DefaultClient: &fosite.DefaultClient{
			ID:            c.ID,
			Secret:        c.SecretHash,
			RedirectURIs:  redirectURIs,
			GrantTypes:    c.GrantTypes,
			ResponseTypes: c.ResponseTypes,
			Scopes:        supportedScopes,
			Public:        c.TokenEndpointAuthMethod == "none",
		},
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod,
	}
}

// refreshRecord is one refresh token. Family is fosite's request ID, which
// fosite keeps across rotations, so all refresh tokens descending from one
// consent share it.
type refreshRecord struct {
	req       fosite.Requester
	family    string
	accessSig string
	active    bool
	rotatedAt time.Time
	revoked   bool // the family was revoked, not merely this token rotated
}

type codeRecord struct {
	req    fosite.Requester
	active bool
}

// store is the in-memory fosite storage: clients, codes, PKCE sessions,
// access-token sessions and refresh tokens. Clients are also written
// through to the persister when one is configured.
type store struct {
	mu            sync.Mutex
	clients       map[string]*Client
	codes         map[string]*codeRecord
	pkce          map[string]fosite.Requester
	access        map[string]fosite.Requester // signature -> request
	refresh       map[string]*refreshRecord
	reuseInterval time.Duration
	now           func() time.Time
	logf          func(string, ...any)
	persist       persister          // nil when in memory only
	documents     *metadataDocuments // clients named by a metadata document URL
}

var (
	_ fosite.Storage                = (*store)(nil)
	_ oauth2.CoreStorage            = (*store)(nil)
	_ oauth2.TokenRevocationStorage = (*store)(nil)
	_ pkce.PKCERequestStorage       = (*store)(nil)
)

func newStore(opts Options, p persister) *store {
	return &store{
		clients:       map[string]*Client{},
		codes:         map[string]*codeRecord{},
		pkce:          map[string]fosite.Requester{},
		access:        map[string]fosite.Requester{},
		refresh:       map[string]*refreshRecord{},
		reuseInterval: opts.RefreshReuseInterval,
		now:           opts.Now,
		logf:          opts.Logf,
		persist:       p,
		documents:     newMetadataDocuments(opts.DevClientMetadataLoopback),
	}
}

func (s *store) saveClient(ctx context.Context, c *Client) error {
	if s.persist != nil {
		if err := s.persist.saveClient(ctx, c); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[c.ID] = c
	return nil
}

func (s *store) client(id string) (*Client, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	return c, ok
}

type redirectHintKey struct{}

// withRequestedRedirect records the redirect_uri of an authorize request so
// that GetClient can accept a loopback redirect on another port.
func withRequestedRedirect(ctx context.Context, uri string) context.Context {
	return context.WithValue(ctx, redirectHintKey{}, uri)
}

// GetClient implements fosite.ClientManager.
//
// Redirect URIs are matched exactly by fosite, which also lets the port
// vary for http loopback IP literals (RFC 8252 §7.3). RFC 8252 §8.3 says
// native apps should prefer the IP literal over "localhost", but many
// clients (and the MCP SDKs) register http://localhost:<port>/callback, so
// the same port freedom is given to http://localhost here: when the
// requested redirect_uri differs from a registered one only in its port, it
// is added to the list fosite matches against for this request.
func (s *store) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := s.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	uris := c.RedirectURIs
	if requested, _ := ctx.Value(redirectHintKey{}).(string); requested != "" {
		for _, registered := range c.RedirectURIs {
			if loopbackPortVariant(requested, registered) {
				uris = append(append([]string{}, c.RedirectURIs...), requested)
				break
			}
		}
	}
	return c.fositeClient(uris), nil
}

// lookup finds a client: a registered one, or the public client a client
// ID metadata document describes when id is its URL.
func (s *store) lookup(ctx context.Context, id string) (*Client, error) {
	if c, ok := s.client(id); ok {
		return c, nil
	}
	if !isMetadataDocumentID(id) {
		return nil, fosite.ErrNotFound.WithHintf("No client with id %q is registered.", id)
	}
	c, err := s.documents.client(ctx, id)
	if err != nil {
		// A plain error: fosite answers invalid_client with its text as the
		// debug message, which this issuer shows the developer.
		return nil, fmt.Errorf("the client ID metadata document at %q cannot be used: %w", id, err)
	}
	return c, nil
}

// loopbackPortVariant reports whether a and b are the same http loopback
// redirect URI (localhost, 127.0.0.1 or ::1) except perhaps for the port.
func loopbackPortVariant(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	if ua.Scheme != "http" || ub.Scheme != "http" || ua.Hostname() != ub.Hostname() {
		return false
	}
	host := ua.Hostname()
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return ua.Path == ub.Path && ua.RawQuery == ub.RawQuery && ua.Fragment == "" && ua.User == nil
}

// ClientAssertionJWTValid implements fosite.ClientManager. private_key_jwt
// client authentication is not offered, so no JTI is ever known.
func (s *store) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT implements fosite.ClientManager (unused, see above).
func (s *store) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

// CreateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage.
func (s *store) CreateAuthorizeCodeSession(_ context.Context, sig string, req fosite.Requester) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[sig] = &codeRecord{req: req, active: true}
	return nil
}

// GetAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage. A used
// code returns fosite.ErrInvalidatedAuthorizeCode with its request, which
// makes fosite revoke the tokens issued for it (RFC 6749 §4.1.2).
func (s *store) GetAuthorizeCodeSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.codes[sig]
	if !ok {
		return nil, fosite.ErrNotFound
	}
	if !rec.active {
		return rec.req, fosite.ErrInvalidatedAuthorizeCode
	}
	return rec.req, nil
}

// InvalidateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage.
func (s *store) InvalidateAuthorizeCodeSession(_ context.Context, sig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.codes[sig]
	if !ok {
		return fosite.ErrNotFound
	}
	rec.active = false
	return nil
}

// CreatePKCERequestSession implements pkce.PKCERequestStorage.
func (s *store) CreatePKCERequestSession(_ context.Context, sig string, req fosite.Requester) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pkce[sig] = req
	return nil
}

// GetPKCERequestSession implements pkce.PKCERequestStorage.
func (s *store) GetPKCERequestSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.pkce[sig]
	if !ok {
		return nil, fosite.ErrNotFound
	}
	return req, nil
}

// DeletePKCERequestSession implements pkce.PKCERequestStorage.
func (s *store) DeletePKCERequestSession(_ context.Context, sig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pkce, sig)
	return nil
}

// CreateAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *store) CreateAccessTokenSession(_ context.Context, sig string, req fosite.Requester) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access[sig] = req
	return nil
}

// GetAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *store) GetAccessTokenSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.access[sig]
	if !ok {
		return nil, fosite.ErrNotFound
	}
	return req, nil
}

// DeleteAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *store) DeleteAccessTokenSession(_ context.Context, sig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.access, sig)
	return nil
}

// CreateRefreshTokenSession implements oauth2.RefreshTokenStorage.
func (s *store) CreateRefreshTokenSession(_ context.Context, sig, accessSig string, req fosite.Requester) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh[sig] = &refreshRecord{req: req, family: req.GetID(), accessSig: accessSig, active: true}
	return nil
}

// GetRefreshTokenSession implements oauth2.RefreshTokenStorage. A rotated
// token returns fosite.ErrInactiveToken with its request: fosite reads that
// as reuse and revokes the family (RevokeRefreshToken, RevokeAccessToken).
// Within RefreshReuseInterval of its rotation a rotated token is still
// accepted, as Supabase's reuse interval allows, unless the family was
// revoked.
func (s *store) GetRefreshTokenSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.refresh[sig]
	if !ok {
		return nil, fosite.ErrNotFound
	}
	if !rec.active {
		if !rec.revoked && s.reuseInterval > 0 && s.now().Sub(rec.rotatedAt) < s.reuseInterval {
			return rec.req, nil
		}
		return rec.req, fosite.ErrInactiveToken
	}
	return rec.req, nil
}

// DeleteRefreshTokenSession implements oauth2.RefreshTokenStorage.
func (s *store) DeleteRefreshTokenSession(_ context.Context, sig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refresh, sig)
	return nil
}

// RotateRefreshToken implements oauth2.RefreshTokenStorage: the presented
// refresh token becomes inactive (so presenting it again is detectable
// reuse) and the access-token session it was issued with ends.
func (s *store) RotateRefreshToken(_ context.Context, _ string, sig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.refresh[sig]
	if !ok {
		return fosite.ErrNotFound
	}
	if rec.active {
		rec.active = false
		rec.rotatedAt = s.now()
	}
	delete(s.access, rec.accessSig)
	return nil
}

// RevokeRefreshToken implements oauth2.TokenRevocationStorage: every
// refresh token of the family (request ID) stops working, the newest too.
func (s *store) RevokeRefreshToken(_ context.Context, family string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, rec := range s.refresh {
		if rec.family == family && !rec.revoked {
			rec.active = false
			rec.revoked = true
			n++
		}
	}
	if n > 0 {
		s.logf("devissuer: revoked refresh-token family %s (%d tokens)", family, n)
	}
	return nil
}

// RevokeAccessToken implements oauth2.TokenRevocationStorage: every
// access-token session of the family ends. (Resource servers verify the
// JWTs offline, so they stay valid there until exp, as Supabase's do.)
func (s *store) RevokeAccessToken(_ context.Context, family string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sig, req := range s.access {
		if req.GetID() == family {
			delete(s.access, sig)
		}
	}
	return nil
}

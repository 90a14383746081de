package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tridenttaxis/trident-mcp/client"
)

// ErrScopeRefused means the server answered insufficient_scope for scopes
// the token already carries: authorizing again would ask for the same
// thing and loop (MCP 2025-11-25 "scope challenge handling").
var ErrScopeRefused = errors.New("oauth: the server refuses scopes the token already carries")

// ErrTooManyAuthorizations means an [Authorizer] already ran the flow as
// often as it may; the server keeps refusing what it issues.
var ErrTooManyAuthorizations = errors.New("oauth: authorization limit reached")

// DefaultMaxAuthorizations is how often an [Authorizer] runs the flow in
// its life: a first authorization, a step-up, and one re-consent.
const DefaultMaxAuthorizations = 3

// Authorizer is a [client.Authorizer]: it sends the stored token (none
// before the first authorization), and when the server challenges it,
// refreshes (a 401 for a token it holds a refresh token for) or runs the
// authorization-code flow of [Login] (no token yet, a revoked family, or a
// 403 insufficient_scope asking for more scopes, which are requested
// together with those already granted). Concurrent challenges share one
// flow. It is safe for concurrent use.
type Authorizer struct {
	cfg  LoginConfig
	opts []SourceOption
	max  int

	src  atomic.Pointer[Source]
	flow chan struct{} // holds one token while a challenge is answered
	mu   sync.Mutex    // guards max and runs
	runs int
}

var _ client.Authorizer = (*Authorizer)(nil)

// NewAuthorizer returns an Authorizer that runs the flow with cfg (OpenURL
// and Store are required) and refreshes with a [Source] over cfg.Store
// configured by opts.
func NewAuthorizer(cfg LoginConfig, opts ...SourceOption) (*Authorizer, error) {
	if cfg.OpenURL == nil || cfg.Store == nil {
		return nil, errors.New("oauth: NewAuthorizer needs OpenURL and Store")
	}
	if cfg.HTTPClient != nil {
		opts = append([]SourceOption{WithHTTPClient(cfg.HTTPClient)}, opts...)
	}
	a := &Authorizer{cfg: cfg, opts: opts, max: DefaultMaxAuthorizations, flow: make(chan struct{}, 1)}
	a.src.Store(NewSource(cfg.Store, opts...))
	return a, nil
}

// SetMaxAuthorizations changes how often the flow may run. Default:
// [DefaultMaxAuthorizations].
func (a *Authorizer) SetMaxAuthorizations(n int) {
	a.mu.Lock()
	a.max = n
	a.mu.Unlock()
}

// Authorizations counts the flows run so far.
func (a *Authorizer) Authorizations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runs
}

// Token returns the stored access token, refreshed when about to expire,
// or "" before the first authorization.
func (a *Authorizer) Token(ctx context.Context) (string, error) {
	t, err := a.src.Load().Token(ctx)
	if errors.Is(err, ErrNoTokens) || errors.Is(err, ErrReconsentRequired) {
		// No usable grant: the call goes out without a token, meets the
		// server's 401, and Authorize runs the flow again (consent anew when
		// a proactive refresh found the family revoked).
		return "", nil
	}
	return t, err
}

// Refresh is [Source.Refresh]; the client calls Authorize instead.
func (a *Authorizer) Refresh(ctx context.Context, rejected string) (string, error) {
	return a.src.Load().Refresh(ctx, rejected)
}

// Authorize answers a challenge with a new token. Challenges are answered
// one at a time (a second caller usually finds the first one's token); a
// caller whose context ends while it waits for its turn, or for the user,
// returns at once.
func (a *Authorizer) Authorize(ctx context.Context, ch *client.Challenge) (string, error) {
	select {
	case a.flow <- struct{}{}:
		defer func() { <-a.flow }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	src := a.src.Load()
	rec, err := src.current(ctx)
	if err != nil && !errors.Is(err, ErrNoTokens) {
		return "", err
	}
	// Another caller's answer serves this one too, unless it is the token
	// the server just refused or one already known to be expiring (a call
	// that went out with no token because a proactive refresh failed must
	// not be retried with the stale token it could not refresh).
	if rec != nil && rec.AccessToken != "" && rec.AccessToken != ch.Rejected && !src.expiring(rec) &&
		(!ch.InsufficientScope() || covers(rec.Scopes, ch.Scopes)) {
		return rec.AccessToken, nil
	}
	var granted []string
	if rec != nil {
		granted = rec.Scopes
	}
	switch {
	case ch.InsufficientScope() && covers(granted, ch.Scopes):
		return "", fmt.Errorf("%w: %q (%s)", ErrScopeRefused, ch.Scopes, ch.Description)
	case !ch.InsufficientScope() && ch.Rejected != "" && rec != nil && rec.RefreshToken != "" && a.stillIssuer(ctx, ch, rec):
		t, err := src.Refresh(ctx, ch.Rejected)
		if err == nil || !errors.Is(err, ErrReconsentRequired) {
			return t, err
		}
	}
	a.mu.Lock()
	runs, limit := a.runs, a.max
	if runs < limit {
		a.runs++
	}
	a.mu.Unlock()
	if runs >= limit {
		return "", fmt.Errorf("%w: ran the flow %d times", ErrTooManyAuthorizations, runs)
	}
	metadataURL := ch.ResourceMetadata
	if metadataURL == "" {
		metadataURL = a.cfg.ResourceMetadataURL
	}
	next, err := authorize(ctx, &a.cfg, metadataURL, ch.Scopes, granted)
	if err != nil {
		return "", err
	}
	a.src.Store(NewSource(a.cfg.Store, a.opts...))
	return next.AccessToken, nil
}

// stillIssuer reports whether the authorization server that issued rec is
// still one the resource names. A refused token is refreshed only then: a
// resource that moved to another authorization server (SEP-2352) must be
// authorized there anew, registering with it, and credentials of the old
// one must never be presented to the new one. When the record or the
// resource's metadata does not say, the refresh is tried, as before.
func (a *Authorizer) stillIssuer(ctx context.Context, ch *client.Challenge, rec *Record) bool {
	if rec.Issuer == "" {
		return true
	}
	metadataURL := ch.ResourceMetadata
	if metadataURL == "" {
		metadataURL = a.cfg.ResourceMetadataURL
	}
	hc := a.cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	prm, _, _, err := resourceMetadata(ctx, hc, a.cfg.Endpoint, metadataURL)
	if err != nil || prm == nil || len(prm.AuthorizationServers) == 0 {
		return true
	}
	return slices.Contains(prm.AuthorizationServers, rec.Issuer)
}

// covers reports whether have includes every scope of want; an empty want
// (a challenge naming no scope) is never covered, since it says nothing.
func covers(have, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}

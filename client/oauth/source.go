package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/sync/singleflight"
)

// ErrReconsentRequired means the refresh token no longer works: it was
// revoked (a rotated token was reused, which revokes the whole family),
// expired, or never issued. Retrying cannot help; the user must run the
// authorization flow again ([Login]).
var ErrReconsentRequired = errors.New("oauth: re-consent required: the refresh token was revoked or has expired")

// Source is a client.TokenSource backed by a [Store]. It is safe for
// concurrent use.
type Source struct {
	store  Store
	hc     *http.Client
	now    func() time.Time
	leeway time.Duration

	mu    sync.Mutex
	rec   *Record
	group singleflight.Group

	refreshes atomic.Int64
}

// SourceOption configures a [Source].
type SourceOption func(*Source)

// WithHTTPClient sets the client for the token endpoint. Default:
// http.DefaultClient.
func WithHTTPClient(hc *http.Client) SourceOption { return func(s *Source) { s.hc = hc } }

// WithNow sets the clock used to judge expiry. Default: time.Now.
func WithNow(now func() time.Time) SourceOption { return func(s *Source) { s.now = now } }

// WithLeeway sets how long before expiry a token is refreshed proactively.
// Default: 60 s.
func WithLeeway(d time.Duration) SourceOption { return func(s *Source) { s.leeway = d } }

// NewSource returns a source over store. The record is loaded on first use.
func NewSource(store Store, opts ...SourceOption) *Source {
	s := &Source{store: store, hc: http.DefaultClient, now: time.Now, leeway: time.Minute}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Refreshes counts refresh grants this source sent.
func (s *Source) Refreshes() int { return int(s.refreshes.Load()) }

func (s *Source) current(ctx context.Context) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		r, err := s.store.Load(ctx)
		if err != nil {
			return nil, err
		}
		s.rec = r
	}
	return s.rec, nil
}

func (s *Source) expiring(r *Record) bool {
	return !r.Expiry.IsZero() && !s.now().Add(s.leeway).Before(r.Expiry)
}

// Token returns the stored access token, refreshed first when it expires
// within the leeway.
func (s *Source) Token(ctx context.Context) (string, error) {
	r, err := s.current(ctx)
	if err != nil {
		return "", err
	}
	if r.AccessToken != "" && !s.expiring(r) {
		return r.AccessToken, nil
	}
	return s.refresh(ctx, r.AccessToken)
}

// Refresh replaces rejected, the token a server just answered 401 to.
// Callers holding the same rejected token share one refresh grant; a caller
// whose rejected token was already replaced gets the replacement without a
// new grant.
func (s *Source) Refresh(ctx context.Context, rejected string) (string, error) {
	if _, err := s.current(ctx); err != nil {
		return "", err
	}
	return s.refresh(ctx, rejected)
}

func (s *Source) refresh(ctx context.Context, stale string) (string, error) {
	ch := s.group.DoChan("refresh", func() (any, error) {
		s.mu.Lock()
		r := s.rec
		s.mu.Unlock()
		if r.AccessToken != stale && r.AccessToken != "" && !s.expiring(r) {
			return r.AccessToken, nil // replaced while this caller waited
		}
		// The grant runs on its own context: once the issuer has rotated
		// the refresh token, abandoning the answer would lose the family.
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return s.grant(gctx, r)
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return "", res.Err
		}
		return res.Val.(string), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// grant sends the refresh_token grant and saves the rotated pair before
// returning the new access token.
func (s *Source) grant(ctx context.Context, r *Record) (string, error) {
	if r.RefreshToken == "" {
		return "", fmt.Errorf("%w (no refresh token stored)", ErrReconsentRequired)
	}
	s.refreshes.Add(1)
	cfg := oauth2.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: r.TokenEndpoint, AuthStyle: authStyle(r.TokenAuthMethod)}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.hc)
	tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: r.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized) {
			// The family is dead: forget its tokens here, so that later
			// calls ask for consent at once instead of presenting the
			// dead refresh token again. The store keeps the record; a
			// new login replaces it.
			dead := *r
			dead.AccessToken, dead.RefreshToken, dead.Expiry = "", "", time.Time{}
			s.mu.Lock()
			s.rec = &dead
			s.mu.Unlock()
			return "", fmt.Errorf("%w: %s %s", ErrReconsentRequired, re.ErrorCode, re.ErrorDescription)
		}
		return "", fmt.Errorf("oauth: refreshing at %s: %w", r.TokenEndpoint, err)
	}
	next := *r
	next.AccessToken, next.Expiry = tok.AccessToken, tok.Expiry
	if tok.RefreshToken != "" {
		next.RefreshToken = tok.RefreshToken
	}
	// Persist before any caller can see the new access token (Token reads
	// s.rec), so that no request runs on tokens a crash would lose. Keep
	// the rotated pair in memory even if saving fails: the old refresh
	// token is spent, and sending it again would revoke the family.
	serr := s.store.Save(ctx, &next)
	s.mu.Lock()
	s.rec = &next
	s.mu.Unlock()
	if serr != nil {
		return "", fmt.Errorf("oauth: saving rotated tokens: %w", serr)
	}
	return next.AccessToken, nil
}

package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cenkalti/backoff/v4"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// maxTokenBytes bounds the work a single header can cause. Supabase access
// tokens are around 1 KiB.
const maxTokenBytes = 16 << 10

// Backoff of the background key loader while the issuer is unreachable.
const (
	loadInitialBackoff = 500 * time.Millisecond
	loadMaxBackoff     = 30 * time.Second
)

// Verifier checks access tokens against the issuer's signing keys. Build it
// with [NewVerifier]; it is safe for concurrent use. Close stops its
// background key loader.
type Verifier struct {
	cfg      settings
	keys     *keyStore
	verdicts *verdictCache // nil when Config.VerdictCacheSize is negative

	// hits and misses count verdict cache look-ups (VerdictCacheStats).
	hits, misses atomic.Uint64

	// after is the timer of the background loader; tests replace it.
	after func(time.Duration) <-chan time.Time

	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// The go-sdk's TokenVerifier signature, so the verifier also plugs into the
// SDK's own middleware or any code written against it.
var _ sdkauth.TokenVerifier = (&Verifier{}).VerifyToken

// NewVerifier checks cfg and starts loading the issuer's signing keys in the
// background. It fails only on configuration errors: an issuer that is
// briefly unreachable is retried with backoff until [Verifier.Close], and
// [Verifier.Ready] tells /readyz when keys are in. Until then every token is
// refused (reason keys_unavailable).
func NewVerifier(cfg Config) (*Verifier, error) {
	return newVerifier(cfg, nil)
}

// newVerifier lets tests drive the loader's timer.
func newVerifier(cfg Config, after func(time.Duration) <-chan time.Time) (*Verifier, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if after == nil {
		after = time.After
	}
	ctx, cancel := context.WithCancel(context.Background())
	v := &Verifier{
		cfg:      s,
		keys:     newKeyStore(s),
		verdicts: newVerdictCache(s.VerdictCacheSize),
		after:    after,
		cancel:   cancel,
		done:     make(chan struct{}),
	}
	v.keys.onChange = v.verdicts.purge
	go v.loadLoop(ctx)
	return v, nil
}

// loadLoop loads keys until the first success (backing off while the issuer
// is unreachable), then refreshes them every RefreshInterval.
func (v *Verifier) loadLoop(ctx context.Context) {
	defer close(v.done)
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(loadInitialBackoff),
		backoff.WithMaxInterval(loadMaxBackoff),
		backoff.WithMaxElapsedTime(0), // never give up; Close stops it
	)
	log := v.cfg.Logger
	for {
		err := v.keys.refresh(ctx, true)
		if ctx.Err() != nil {
			return
		}
		var wait time.Duration
		if err != nil {
			wait = b.NextBackOff()
			log.Warn("auth: loading signing keys failed; retrying", "issuer", v.cfg.Issuer, "retry_in", wait, "error", err.Error())
		} else {
			b.Reset()
			if v.cfg.RefreshInterval < 0 {
				return
			}
			wait = v.cfg.RefreshInterval
		}
		select {
		case <-ctx.Done():
			return
		case <-v.after(wait):
		}
	}
}

// Close stops the background key loader and waits for it. Verification keeps
// working with the keys already loaded. Close is idempotent.
func (v *Verifier) Close() error {
	v.closeOnce.Do(func() {
		v.cancel()
		<-v.done
	})
	return nil
}

// Ready reports whether signing keys are loaded, i.e. whether a valid token
// can be accepted. Once true it stays true: a later failed refresh keeps the
// keys already held.
func (v *Verifier) Ready() bool {
	loaded, _ := v.keys.status()
	return loaded
}

// ReadyErr is nil once keys are loaded; before that it says why not, for a
// /readyz body.
func (v *Verifier) ReadyErr() error {
	loaded, lastErr := v.keys.status()
	switch {
	case loaded:
		return nil
	case lastErr != nil:
		return fmt.Errorf("auth: signing keys of %s not loaded yet: %w", v.cfg.Issuer, lastErr)
	default:
		return fmt.Errorf("auth: signing keys of %s not loaded yet: first fetch in progress", v.cfg.Issuer)
	}
}

// WaitReady blocks until keys are loaded or ctx ends, for startup code that
// prefers to wait and for tests.
func (v *Verifier) WaitReady(ctx context.Context) error {
	select {
	case <-v.keys.ready:
		return nil
	case <-ctx.Done():
		if err := v.ReadyErr(); err != nil {
			return fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return ctx.Err()
	}
}

// MetadataConfig is the RFC 9728 metadata matching this verifier.
func (v *Verifier) MetadataConfig() MetadataConfig { return v.cfg.Config.MetadataConfig() }

// ResourceMetadataURL is the resource_metadata URL the 401 challenge carries.
func (v *Verifier) ResourceMetadataURL() string { return v.cfg.ResourceMetadataURL }

// VerifyToken implements the go-sdk's [sdkauth.TokenVerifier]. Refusals are
// [*TokenError]s, which unwrap to [sdkauth.ErrInvalidToken].
func (v *Verifier) VerifyToken(ctx context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	c, err := v.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	return c.ti, nil
}

// Verify checks one raw access token and returns its caller, or a
// [*TokenError] naming the failed check.
func (v *Verifier) Verify(ctx context.Context, token string) (Caller, error) {
	c, err := v.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// cached returns the caller of a token the verdict cache holds and that is
// still valid now, or nil: verify then decides, naming the reason of a
// refusal. It never refuses.
func (v *Verifier) cached(token string) *verifiedCaller {
	if v.verdicts == nil || len(token) > maxTokenBytes {
		return nil
	}
	c := v.verdicts.get(tokenKey(token), token, v.keys.epoch.Load(), v.cfg.Now(), v.cfg.Skew)
	if c != nil {
		v.hits.Add(1)
	}
	return c
}

// VerdictCacheStats counts the verdict cache's look-ups since the verifier
// was built: hits are calls answered from a remembered verdict, misses
// tokens checked in full (signature and claims) with the cache on. A
// client reusing its token should show one miss and the rest hits; with
// the cache off both stay zero.
func (v *Verifier) VerdictCacheStats() (hits, misses uint64) {
	return v.hits.Load(), v.misses.Load()
}

// tokenKey is the verdict cache's key of token. The token's bytes are read
// in place rather than copied (a token is about 1 KiB): Sum256 only reads
// them and keeps nothing.
func tokenKey(token string) verdictKey {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
}

// claims are the registered claims plus the Supabase ones we check.
type claims struct {
	jwt.Claims
	ClientID *string `json:"client_id"`
	Email    string  `json:"email"`
	Scope    string  `json:"scope"`
}

func (v *Verifier) verify(ctx context.Context, token string) (*verifiedCaller, error) {
	if len(token) > maxTokenBytes {
		return nil, refuse(ReasonMalformedToken, "token of %d bytes exceeds %d", len(token), maxTokenBytes)
	}
	var key verdictKey
	if v.verdicts != nil {
		key = tokenKey(token)
		if vc := v.verdicts.get(key, token, v.keys.epoch.Load(), v.cfg.Now(), v.cfg.Skew); vc != nil {
			v.hits.Add(1)
			return vc, nil
		}
		v.misses.Add(1)
	}
	tok, err := jwt.ParseSigned(token, allowedAlgs)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) {
			return nil, refuse(ReasonDisallowedAlg, "alg %q is not ES256 or RS256", alg.Got)
		}
		return nil, refuse(ReasonMalformedToken, "%v", err)
	}
	if len(tok.Headers) != 1 {
		return nil, refuse(ReasonMalformedToken, "%d signatures", len(tok.Headers))
	}
	alg := jose.SignatureAlgorithm(tok.Headers[0].Algorithm)
	kid := tok.Headers[0].KeyID

	keys, loaded, epoch := v.keys.lookup(kid, alg)
	if len(keys) == 0 {
		// Unknown kid: the issuer may have rotated. Re-fetch once (the store
		// rate-limits and merges concurrent re-fetches), then look again.
		if err := v.keys.refresh(ctx, false); err != nil && !errors.Is(err, errRateLimited) {
			v.cfg.Logger.Debug("auth: JWKS re-fetch for unknown kid failed", "kid", kid, "error", err.Error())
		}
		keys, loaded, epoch = v.keys.lookup(kid, alg)
	}
	if len(keys) == 0 {
		if !loaded {
			return nil, refuse(ReasonKeysUnavailable, "no signing keys loaded from %s yet", v.cfg.Issuer)
		}
		return nil, refuse(ReasonUnknownKey, "no %s key with kid %q in the issuer's JWKS", alg, kid)
	}

	var (
		c      claims
		all    map[string]any
		sigErr error
	)
	for _, k := range keys {
		c, all = claims{}, nil
		sigErr = tok.Claims(k.key, &c, &all)
		if sigErr == nil || !errors.Is(sigErr, jose.ErrCryptoFailure) {
			break
		}
	}
	if sigErr != nil {
		if errors.Is(sigErr, jose.ErrCryptoFailure) {
			return nil, refuse(ReasonBadSignature, "kid %q alg %s", kid, alg)
		}
		return nil, refuse(ReasonMalformedClaims, "%v", sigErr)
	}

	// Signature holds; now the claims.
	now := v.cfg.Now()
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, Time: now}, v.cfg.Skew); err != nil {
		switch {
		case errors.Is(err, jwt.ErrInvalidIssuer):
			return nil, refuse(ReasonWrongIssuer, "iss %q, want %q", c.Issuer, v.cfg.Issuer)
		case errors.Is(err, jwt.ErrExpired):
			return nil, refuse(ReasonExpired, "exp %s, now %s", c.Expiry.Time().UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		case errors.Is(err, jwt.ErrNotValidYet):
			return nil, refuse(ReasonNotYetValid, "nbf %s, now %s", c.NotBefore.Time().UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		case errors.Is(err, jwt.ErrIssuedInTheFuture):
			return nil, refuse(ReasonIssuedInFuture, "iat %s, now %s", c.IssuedAt.Time().UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		default:
			return nil, refuse(ReasonMalformedClaims, "%v", err)
		}
	}
	if c.Expiry == nil {
		return nil, refuse(ReasonMissingExpiry, "no exp claim")
	}
	if !c.Audience.Contains(v.cfg.Audience) {
		return nil, refuse(ReasonWrongAudience, "aud %q lacks %q", []string(c.Audience), v.cfg.Audience)
	}
	if !c.Audience.Contains(v.cfg.ResourceURL) {
		return nil, refuse(ReasonWrongResource, "aud %q lacks the resource %q (authorize with resource=)", []string(c.Audience), v.cfg.ResourceURL)
	}
	if c.Subject == "" {
		return nil, refuse(ReasonMissingSubject, "sub empty or absent")
	}
	if c.ClientID == nil || *c.ClientID == "" {
		return nil, refuse(ReasonMissingClientID, "client_id empty or absent (an app-session JWT, not an OAuth access token)")
	}

	info := CallerInfo{
		UserID:   c.Subject,
		Email:    c.Email,
		ClientID: *c.ClientID,
		Claims:   all,
		Token:    token,
	}
	vc := newVerifiedCaller(info, strings.Fields(c.Scope), newTokenExtra(info, c.Expiry.Time()))
	v.verdicts.add(key, token, epoch, &c.Claims, vc)
	return vc, nil
}

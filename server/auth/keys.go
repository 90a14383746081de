package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// allowedAlgs is the explicit signature allow-list. It is handed to the JWS
// parser, so "none", HS256 (the public-key-as-HMAC-secret confusion) and
// everything else fail before any key is touched.
var allowedAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.RS256}

const (
	maxDocumentBytes = 1 << 20 // discovery and JWKS responses
	minRSABits       = 2048
)

// signingKey is one usable JWKS entry: a public key and the one algorithm it
// may verify.
type signingKey struct {
	kid string
	alg jose.SignatureAlgorithm
	key any // *ecdsa.PublicKey (P-256) or *rsa.PublicKey (>= 2048 bits)
}

// keyStore holds the issuer's signing keys and fetches them: discovery,
// JWKS, rate-limited re-fetch. It is written by hand because the libraries'
// caches (jwx's jwk.Cache) neither take an injectable clock nor offer
// "at most one fetch per interval, shared by concurrent callers"; the JWK
// parsing itself is go-jose's.
type keyStore struct {
	issuer string
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
	minGap time.Duration

	// sem is a one-slot semaphore: its holder is the only goroutine fetching.
	// Waiters select on it with their context, then find the fresh result.
	sem chan struct{}

	mu          sync.RWMutex
	byKid       map[string][]signingKey
	all         []signingKey
	loaded      bool
	lastErr     error
	lastAttempt time.Time
	jwksURI     string        // discovered; cleared when a fetch fails
	ready       chan struct{} // closed on the first successful load

	// epoch counts key-set changes (written under mu, read without it), so
	// a remembered verdict can tell whether the keys that checked it are
	// still the issuer's. onChange, when set, runs after each change.
	epoch    atomic.Uint64
	onChange func()
}

func newKeyStore(s settings) *keyStore {
	return &keyStore{
		issuer: strings.TrimSuffix(s.Issuer, "/"),
		client: s.HTTPClient,
		now:    s.Now,
		log:    s.Logger,
		minGap: s.RefetchInterval,
		sem:    make(chan struct{}, 1),
		ready:  make(chan struct{}),
	}
}

// lookup returns the keys that may verify a token with this kid and alg,
// and the epoch of the key set they come from. An empty kid matches every
// key of the algorithm.
func (ks *keyStore) lookup(kid string, alg jose.SignatureAlgorithm) (keys []signingKey, loaded bool, epoch uint64) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	pool := ks.all
	if kid != "" {
		pool = ks.byKid[kid]
	}
	for _, k := range pool {
		if k.alg == alg {
			keys = append(keys, k)
		}
	}
	return keys, ks.loaded, ks.epoch.Load()
}

func (ks *keyStore) status() (loaded bool, lastErr error) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	return ks.loaded, ks.lastErr
}

// errRateLimited means a fetch was skipped because one ran within minGap.
var errRateLimited = errors.New("JWKS re-fetch skipped: rate limit")

// refresh fetches the JWKS. With force false (a token's unknown kid) it
// does nothing when any fetch was attempted within minGap, and concurrent
// callers share one fetch. force is for the background loader, which has its
// own backoff.
func (ks *keyStore) refresh(ctx context.Context, force bool) error {
	select {
	case ks.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-ks.sem }()

	now := ks.now()
	ks.mu.Lock()
	if !force && !ks.lastAttempt.IsZero() && now.Sub(ks.lastAttempt) < ks.minGap {
		ks.mu.Unlock()
		return errRateLimited
	}
	ks.lastAttempt = now
	jwksURI := ks.jwksURI
	ks.mu.Unlock()

	if !force {
		// A re-fetch triggered by one request serves everyone, so it must not
		// die with that request (a client could otherwise cancel fetches at
		// will, each one spending the rate limit).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), defaultHTTPTimeout)
		defer cancel()
	}
	keys, jwksURI, err := ks.fetch(ctx, jwksURI)

	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err != nil {
		ks.jwksURI = "" // rediscover next time: the issuer may have moved it
		ks.lastErr = err
		return err
	}
	ks.jwksURI = jwksURI
	ks.lastErr = nil
	if ks.loaded && !sameKeys(ks.all, keys) {
		ks.epoch.Add(1)
		if ks.onChange != nil {
			ks.onChange() // must not take mu; the verdict cache's lock is its own
		}
	}
	ks.all = keys
	ks.byKid = make(map[string][]signingKey, len(keys))
	for _, k := range keys {
		ks.byKid[k.kid] = append(ks.byKid[k.kid], k)
	}
	if !ks.loaded {
		ks.loaded = true
		close(ks.ready)
		ks.log.Info("auth: signing keys loaded", "jwks_uri", jwksURI, "keys", len(keys))
	}
	return nil
}

// sameKeys reports whether two key sets hold the same keys under the same
// kids and algorithms, in any order.
func sameKeys(a, b []signingKey) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y signingKey) bool {
			eq, ok := y.key.(interface{ Equal(crypto.PublicKey) bool })
			return x.kid == y.kid && x.alg == y.alg && ok && eq.Equal(x.key)
		}) {
			return false
		}
	}
	return true
}

// fetch discovers the JWKS URI when it is not known yet, then loads it.
func (ks *keyStore) fetch(ctx context.Context, jwksURI string) ([]signingKey, string, error) {
	if jwksURI == "" {
		var err error
		if jwksURI, err = ks.discover(ctx); err != nil {
			return nil, "", err
		}
	}
	body, err := ks.get(ctx, jwksURI)
	if err != nil {
		return nil, "", err
	}
	keys, err := ks.parseJWKS(body, jwksURI)
	if err != nil {
		return nil, "", err
	}
	return keys, jwksURI, nil
}

// discover finds the JWKS URI: OpenID discovery first (what the docs name),
// then RFC 8414 authorization-server metadata, then the conventional
// <issuer>/.well-known/jwks.json (where Supabase serves it).
func (ks *keyStore) discover(ctx context.Context) (string, error) {
	var errs []error
	answered := false // some document was definitively absent or unusable
	for _, doc := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		u := ks.issuer + doc
		body, err := ks.get(ctx, u)
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				return "", errors.Join(errs...)
			}
			var se *statusError
			if errors.As(err, &se) && se.code < 500 {
				answered = true
			}
			continue
		}
		answered = true
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &meta); err != nil {
			errs = append(errs, fmt.Errorf("%s: not a JSON metadata document: %w", u, err))
			continue
		}
		// OIDC Discovery 4.3 / RFC 8414 3.3: a document for another issuer
		// must not be used (it would point at someone else's keys).
		if meta.Issuer != "" && strings.TrimSuffix(meta.Issuer, "/") != ks.issuer {
			err := fmt.Errorf("%s: issuer %q does not match the configured issuer %q", u, meta.Issuer, ks.issuer)
			ks.log.Warn("auth: ignoring a discovery document for another issuer; check OAUTH_ISSUER", "error", err.Error())
			errs = append(errs, err)
			continue
		}
		if meta.JWKSURI == "" {
			errs = append(errs, fmt.Errorf("%s: no jwks_uri", u))
			continue
		}
		if err := checkAbsoluteURL(meta.JWKSURI); err != nil {
			errs = append(errs, fmt.Errorf("%s: jwks_uri %q: %w", u, meta.JWKSURI, err))
			continue
		}
		ks.log.Debug("auth: JWKS discovered", "source", u, "jwks_uri", meta.JWKSURI)
		return meta.JWKSURI, nil
	}
	if !answered {
		// Unreachable or failing: guessing a path would only hide that.
		return "", fmt.Errorf("issuer %s unreachable: %w", ks.issuer, errors.Join(errs...))
	}
	fallback := ks.issuer + "/.well-known/jwks.json"
	ks.log.Info("auth: no discovery document named a JWKS; trying the conventional path", "jwks_uri", fallback, "discovery_errors", errors.Join(errs...).Error())
	return fallback, nil
}

func (ks *keyStore) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := ks.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocumentBytes))
		return nil, &statusError{url: u, code: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading body: %w", u, err)
	}
	if len(body) > maxDocumentBytes {
		return nil, fmt.Errorf("GET %s: body larger than %d bytes", u, maxDocumentBytes)
	}
	return body, nil
}

// parseJWKS keeps the keys that can verify ES256 or RS256 and skips (with a
// log line) the rest, so one exotic key does not blind the server to the
// others.
func (ks *keyStore) parseJWKS(body []byte, from string) ([]signingKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("%s: not a JWK Set: %w", from, err)
	}
	var keys []signingKey
	for i, raw := range set.Keys {
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(raw); err != nil {
			ks.log.Warn("auth: skipping unparseable JWK", "jwks_uri", from, "index", i, "error", err.Error())
			continue
		}
		k, why := usableKey(jwk)
		if why != "" {
			ks.log.Info("auth: skipping JWK", "jwks_uri", from, "kid", jwk.KeyID, "why", why)
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no usable ES256 (P-256) or RS256 (>= %d bit) public signing keys among %d keys", from, minRSABits, len(set.Keys))
	}
	return keys, nil
}

// usableKey maps a JWK to the single algorithm it may verify, or says why
// it may not be used. A symmetric ("oct") key never qualifies.
func usableKey(jwk jose.JSONWebKey) (signingKey, string) {
	if jwk.Use != "" && jwk.Use != "sig" {
		return signingKey{}, fmt.Sprintf("use %q is not sig", jwk.Use)
	}
	if !jwk.IsPublic() {
		return signingKey{}, "not a public key (symmetric or private keys are never trusted)"
	}
	var alg jose.SignatureAlgorithm
	switch pk := jwk.Key.(type) {
	case *ecdsa.PublicKey:
		if pk.Curve != elliptic.P256() {
			return signingKey{}, "EC key is not on P-256"
		}
		alg = jose.ES256
	case *rsa.PublicKey:
		if pk.N.BitLen() < minRSABits {
			return signingKey{}, fmt.Sprintf("RSA key of %d bits is below %d", pk.N.BitLen(), minRSABits)
		}
		alg = jose.RS256
	default:
		return signingKey{}, fmt.Sprintf("key type %T is not allowed", jwk.Key)
	}
	if jwk.Algorithm != "" && jwk.Algorithm != string(alg) {
		return signingKey{}, fmt.Sprintf("alg %q is not allowed for this key", jwk.Algorithm)
	}
	return signingKey{kid: jwk.KeyID, alg: alg, key: jwk.Key}, ""
}

// statusError is a non-200 answer; discovery tells "absent" (4xx) from
// "failing" (5xx) with it.
type statusError struct {
	url  string
	code int
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s: HTTP %d", e.url, e.code) }

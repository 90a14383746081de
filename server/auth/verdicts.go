package auth

import (
	"crypto/sha256"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	lru "github.com/hashicorp/golang-lru/v2"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultVerdictCacheSize is how many accepted tokens [Config.VerdictCacheSize]
// remembers when left zero: an assistant fleet reuses each token for many
// calls, and an entry is a few hundred bytes.
const DefaultVerdictCacheSize = 4096

// verdictKey is the SHA-256 of a raw token. The cache never holds the token
// itself, so a heap dump of the cache yields no credential.
type verdictKey [sha256.Size]byte

// verdict is what a full check of one token established, minus the token.
// The time claims are kept raw so that every hit re-applies the exp, nbf
// and iat rules with the verifier's current clock and skew, exactly as
// go-jose's ValidateWithLeeway does on a full check.
type verdict struct {
	epoch     uint64 // the key set the signature was checked against
	expiry    time.Time
	notBefore *time.Time
	issuedAt  *time.Time

	info   CallerInfo // Token empty
	scopes []string
	extra  tokenExtra
}

// verdictCache remembers accepted tokens so that a client reusing its token
// pays the signature check once (about 65 µs for ES256, more for RS256).
// Only acceptances are cached: every refusal runs the whole check again and
// gets the same 401. An entry is used only while the token is inside its
// exp/nbf/iat window and while the key set it was verified against is the
// one the store holds; the store drops the whole cache when the issuer's
// keys change. The LRU bound keeps a flood of distinct valid tokens from
// growing memory.
type verdictCache struct {
	lru *lru.Cache[verdictKey, *verdict]
}

// newVerdictCache returns nil (no caching) for a size of zero or less.
func newVerdictCache(size int) *verdictCache {
	if size <= 0 {
		return nil
	}
	c, err := lru.New[verdictKey, *verdict](size)
	if err != nil {
		panic(err) // only for size <= 0, excluded above
	}
	return &verdictCache{lru: c}
}

// get returns the cached caller for token, or nil when the token must be
// checked in full: not cached, verified against another key set, or
// outside its validity window now (the full check then names the reason).
func (c *verdictCache) get(key verdictKey, token string, epoch uint64, now time.Time, skew time.Duration) *verifiedCaller {
	if c == nil {
		return nil
	}
	v, ok := c.lru.Get(key)
	if !ok {
		return nil
	}
	if v.epoch != epoch || !v.validAt(now, skew) {
		c.lru.Remove(key)
		return nil
	}
	info := v.info
	info.Token = token
	return newVerifiedCaller(info, slices.Clone(v.scopes), v.extra)
}

// add remembers an accepted token, if it is a token68: a token that came
// another way than the Authorization header (Verifier.Verify) may be
// anything go-jose parses, and verifyCredential relies on a hit being a
// token68 to check that rule only on a miss.
func (c *verdictCache) add(key verdictKey, token string, epoch uint64, cl *jwt.Claims, vc *verifiedCaller) {
	if c == nil || !isToken68(token) {
		return
	}
	v := &verdict{
		epoch:  epoch,
		expiry: cl.Expiry.Time(),
		info:   vc.info,
		scopes: slices.Clone(vc.ti.Scopes),
		extra:  newTokenExtra(vc.info, cl.Expiry.Time()),
	}
	v.info.Token = ""
	if cl.NotBefore != nil {
		t := cl.NotBefore.Time()
		v.notBefore = &t
	}
	if cl.IssuedAt != nil {
		t := cl.IssuedAt.Time()
		v.issuedAt = &t
	}
	c.lru.Add(key, v)
}

// purge forgets every verdict; the key store calls it when the keys change.
func (c *verdictCache) purge() {
	if c != nil {
		c.lru.Purge()
	}
}

// validAt applies go-jose's time rules (jwt.Claims.ValidateWithLeeway).
func (v *verdict) validAt(now time.Time, skew time.Duration) bool {
	if v.notBefore != nil && now.Add(skew).Before(*v.notBefore) {
		return false
	}
	if now.Add(-skew).After(v.expiry) {
		return false
	}
	if v.issuedAt != nil && now.Add(skew).Before(*v.issuedAt) {
		return false
	}
	return true
}

// tokenExtra holds the values of TokenInfo.Extra that depend only on the
// token, already in interface form, so a cache hit does not box them again.
type tokenExtra struct{ clientID, email, exp any }

func newTokenExtra(info CallerInfo, expiry time.Time) tokenExtra {
	return tokenExtra{clientID: info.ClientID, email: info.Email, exp: expiry}
}

// newVerifiedCaller builds the caller and the go-sdk TokenInfo that carries
// it, for a fresh verification and for a cache hit alike, in one allocation
// besides the Extra map.
func newVerifiedCaller(info CallerInfo, scopes []string, extra tokenExtra) *verifiedCaller {
	both := &struct {
		vc verifiedCaller
		ti sdkauth.TokenInfo
	}{vc: verifiedCaller{info: info}}
	vc := &both.vc
	vc.ti = &both.ti
	*vc.ti = sdkauth.TokenInfo{
		Scopes: scopes,
		UserID: info.UserID,
		// Expiration is deliberately left zero: exp was checked against
		// the injectable clock with Skew; the SDK middleware behind ours
		// would re-check it against the wall clock and, at the boundary,
		// answer with its own text/plain 401. The expiry is in Extra["exp"].
		Extra: map[string]any{
			TokenInfoCallerKey: Caller(vc),
			"client_id":        extra.clientID,
			"email":            extra.email,
			"exp":              extra.exp,
		},
	}
	return vc
}

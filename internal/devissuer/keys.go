package devissuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// signingKey is one ES256 key of the issuer. RetiredAt is zero for the
// current key; a retired key is still published in the JWKS until
// RetiredAt+KeyRetention so tokens it signed keep verifying.
type signingKey struct {
	KID       string
	Private   *ecdsa.PrivateKey
	CreatedAt time.Time
	RetiredAt time.Time
}

// keyring holds the signing keys. Signing and verification are go-jose's;
// the keyring only decides which key is current and which are published.
type keyring struct {
	mu        sync.RWMutex
	keys      []*signingKey // oldest first; the last one is current
	retention time.Duration
	now       func() time.Time
}

func newSigningKey(now time.Time) (*signingKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("devissuer: generate ES256 key: %w", err)
	}
	return &signingKey{KID: randomID(12), Private: priv, CreatedAt: now}, nil
}

func (k *keyring) current() *signingKey {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if len(k.keys) == 0 {
		return nil
	}
	return k.keys[len(k.keys)-1]
}

// add makes key the current key and retires the previous one at now.
// It returns the retired key (nil if there was none) for persistence.
func (k *keyring) add(key *signingKey) *signingKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	var retired *signingKey
	if n := len(k.keys); n > 0 {
		retired = k.keys[n-1]
		retired.RetiredAt = key.CreatedAt
	}
	k.keys = append(k.keys, key)
	return retired
}

// published returns the keys still served in the JWKS, newest first, and
// drops the ones whose retention has passed.
func (k *keyring) published() []*signingKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	kept := k.keys[:0]
	for _, key := range k.keys {
		if key.RetiredAt.IsZero() || now.Before(key.RetiredAt.Add(k.retention)) {
			kept = append(kept, key)
		}
	}
	k.keys = kept
	out := make([]*signingKey, 0, len(kept))
	for i := len(kept) - 1; i >= 0; i-- {
		out = append(out, kept[i])
	}
	return out
}

func (k *keyring) jwks() jose.JSONWebKeySet {
	var set jose.JSONWebKeySet
	for _, key := range k.published() {
		set.Keys = append(set.Keys, jose.JSONWebKey{
			Key:       &key.Private.PublicKey,
			KeyID:     key.KID,
			Algorithm: string(jose.ES256),
			Use:       "sig",
		})
	}
	return set
}

// sign serialises claims as a compact JWS signed ES256 by key, with kid and
// typ=JWT in the header, as Supabase's asymmetric JWTs are.
func signJWT(key *ecdsa.PrivateKey, kid string, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"),
	)
	if err != nil {
		return "", fmt.Errorf("devissuer: signer: %w", err)
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// verify checks token's ES256 signature against the published keys and
// returns its claims. It does not check exp or aud: callers decide.
func (k *keyring) verify(token string) (map[string]any, error) {
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, err
	}
	if len(parsed.Headers) != 1 || parsed.Headers[0].KeyID == "" {
		return nil, errors.New("token has no kid")
	}
	kid := parsed.Headers[0].KeyID
	for _, key := range k.published() {
		if key.KID != kid {
			continue
		}
		claims := map[string]any{}
		if err := parsed.Claims(&key.Private.PublicKey, &claims); err != nil {
			return nil, err
		}
		return claims, nil
	}
	return nil, fmt.Errorf("unknown kid %q", kid)
}

// marshalPrivateJWK and unmarshalPrivateJWK carry keys to and from SQLite.
func marshalPrivateJWK(key *signingKey) ([]byte, error) {
	return jose.JSONWebKey{Key: key.Private, KeyID: key.KID, Algorithm: string(jose.ES256), Use: "sig"}.MarshalJSON()
}

func unmarshalPrivateJWK(data []byte) (*ecdsa.PrivateKey, string, error) {
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(data); err != nil {
		return nil, "", err
	}
	priv, ok := jwk.Key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, "", fmt.Errorf("stored key %q is %T, want an ECDSA private key", jwk.KeyID, jwk.Key)
	}
	return priv, jwk.KeyID, nil
}

// randomID returns n random bytes, base64url encoded without padding.
func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("devissuer: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

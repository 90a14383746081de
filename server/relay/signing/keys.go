package signing

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strings"
	"sync"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// Alg is the only signature algorithm Relay issues and accepts.
const Alg = mcptypes.VerificationAlgHS256

// minKeyBytes is the shortest signing key accepted: HMAC-SHA256 keys
// shorter than the hash add no strength and are usually a mistake.
const minKeyBytes = 32

// Keys are the HMAC keys of RELAY_SIGNING_KEYS: the first signs, every one
// verifies, so a new key can be put first while options signed with the
// old one stay valid until they expire.
type Keys struct {
	kids    []string
	signers map[string]*sync.Pool // by kid: *signer keyed with its key
}

// add makes key the one of kid, after those added before it.
func (k *Keys) add(kid string, key []byte) {
	if k.signers == nil {
		k.signers = map[string]*sync.Pool{}
	}
	k.kids = append(k.kids, kid)
	k.signers[kid] = &sync.Pool{New: func() any { return &signer{mac: hmac.New(sha256.New, key)} }}
}

// signer is what one signature needs, pooled per kid: an HMAC-SHA256 keyed
// with the kid's key, reset before use, and the buffer the message is
// written into. An hmac.New per signature (two SHA-256 states, the padded
// key hashed again) was 11 of the 65 µs a search spent signing its six
// options; a reset HMAC restores its keyed state from a saved copy.
type signer struct {
	mac hash.Hash
	enc encoder
	sum [sha256.Size]byte // mac's sum, here so that it is not allocated
}

// maxKeptMessage is the largest message buffer put back in the pool, so
// that one odd object does not keep its memory for good.
const maxKeptMessage = 64 << 10

// put returns s to pool with an empty buffer.
func (s *signer) put(pool *sync.Pool) {
	if cap(s.enc.buf) > maxKeptMessage {
		s.enc.buf = nil
	}
	s.enc = encoder{buf: s.enc.buf[:0]}
	pool.Put(s)
}

// ParseKeys reads "kid:base64key,kid2:base64key2". Keys are standard or
// URL-safe base64, padded or not, of at least 32 bytes.
func ParseKeys(s string) (*Keys, error) {
	k := &Keys{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		kid, enc, ok := strings.Cut(part, ":")
		if !ok || kid == "" || len(kid) > 64 {
			return nil, fmt.Errorf("relay: RELAY_SIGNING_KEYS: entry %d: want kid:base64key", len(k.kids)+1)
		}
		key, err := decodeKey(enc)
		if err != nil {
			return nil, fmt.Errorf("relay: RELAY_SIGNING_KEYS: key %q: %w", kid, err)
		}
		if len(key) < minKeyBytes {
			return nil, fmt.Errorf("relay: RELAY_SIGNING_KEYS: key %q has %d bytes, want at least %d", kid, len(key), minKeyBytes)
		}
		if _, dup := k.signers[kid]; dup {
			return nil, fmt.Errorf("relay: RELAY_SIGNING_KEYS: kid %q listed twice", kid)
		}
		k.add(kid, key)
	}
	if len(k.kids) == 0 {
		return nil, errors.New("relay: RELAY_SIGNING_KEYS lists no key")
	}
	return k, nil
}

func decodeKey(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("not base64")
	}
	return b, nil
}

// RandomKeys returns one fresh key for this process only: options it signs
// do not verify on another replica or after a restart.
func RandomKeys() *Keys {
	k := &Keys{}
	k.add(NewKey("ephemeral-"))
	return k
}

// NewKey makes a fresh 32-byte key from crypto/rand and a kid for it: the
// prefix and six random bytes of its own in base64url (a kid is public, so
// it is never taken from the key).
func NewKey(prefix string) (kid string, key []byte) {
	b := make([]byte, minKeyBytes+6)
	if _, err := rand.Read(b); err != nil {
		panic("signing: crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[minKeyBytes:]), b[:minKeyBytes]
}

// OneKey is the keys of one kid (a key Relay generated and keeps in its
// store), checked as [ParseKeys] checks each of RELAY_SIGNING_KEYS.
func OneKey(kid string, key []byte) (*Keys, error) {
	if kid == "" || len(kid) > 64 {
		return nil, fmt.Errorf("signing: kid %q: want 1 to 64 characters", kid)
	}
	if len(key) < minKeyBytes {
		return nil, fmt.Errorf("signing: key %q has %d bytes, want at least %d", kid, len(key), minKeyBytes)
	}
	k := &Keys{}
	k.add(kid, append([]byte(nil), key...))
	return k, nil
}

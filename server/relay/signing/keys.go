package signing

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

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
	kids []string
	keys map[string][]byte
}

// ParseKeys reads "kid:base64key,kid2:base64key2". Keys are standard or
// URL-safe base64, padded or not, of at least 32 bytes.
func ParseKeys(s string) (*Keys, error) {
	k := &Keys{keys: map[string][]byte{}}
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
		if _, dup := k.keys[kid]; dup {
			return nil, fmt.Errorf("relay: RELAY_SIGNING_KEYS: kid %q listed twice", kid)
		}
		k.kids = append(k.kids, kid)
		k.keys[kid] = key
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
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("signing: crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	kid := "ephemeral-" + base64.RawURLEncoding.EncodeToString(key[:4])
	return &Keys{kids: []string{kid}, keys: map[string][]byte{kid: key}}
}

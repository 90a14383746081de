package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SigningKey is the one HMAC key Relay generates for itself when the
// operator gives none (RELAY_SIGNING_KEYS unset), kept in the store so that
// the options and contexts it signed stay valid after a restart.
type SigningKey struct {
	KID       string
	Key       []byte
	CreatedAt time.Time
}

// KeyKeeper is a store that keeps Relay's generated signing key. The SQL
// store is one; a Store that wraps another should pass it through.
type KeyKeeper interface {
	// SigningKey returns the key kept in the store. When there is none
	// yet it keeps candidate and returns it; when several processes start
	// together on one file, the first to write wins and every one reads
	// that key back.
	SigningKey(ctx context.Context, candidate SigningKey) (SigningKey, error)
	// Shared reports whether several replicas may use this store at once
	// (PostgreSQL). Relay does not keep a key of its own in such a store:
	// replicas are given RELAY_SIGNING_KEYS.
	Shared() bool
}

var _ KeyKeeper = (*sqlStore)(nil)

// Shared is true on PostgreSQL, false on a SQLite file (one machine).
func (s *sqlStore) Shared() bool { return s.d == postgresDialect }

// SigningKey inserts candidate into the one-row signing_keys table unless
// a key is there already, then reads the row. The key is stored as base64
// text, the same on both engines.
func (s *sqlStore) SigningKey(ctx context.Context, candidate SigningKey) (SigningKey, error) {
	if candidate.KID == "" || len(candidate.Key) == 0 {
		return SigningKey{}, errors.New("store: signing key: empty candidate")
	}
	if candidate.CreatedAt.IsZero() {
		candidate.CreatedAt = s.now()
	}
	insert := s.d.rebind(`INSERT INTO signing_keys (slot, kid, key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (slot) DO NOTHING`)
	if _, err := s.db.ExecContext(ctx, insert, candidate.KID, base64.StdEncoding.EncodeToString(candidate.Key), micros(candidate.CreatedAt)); err != nil {
		return SigningKey{}, s.wrap("keep signing key", err)
	}
	var (
		k       SigningKey
		encoded string
		created int64
	)
	if err := s.db.QueryRowContext(ctx, `SELECT kid, key, created_at FROM signing_keys WHERE slot = 1`).Scan(&k.KID, &encoded, &created); err != nil {
		return SigningKey{}, s.wrap("read signing key", err)
	}
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return SigningKey{}, fmt.Errorf("store: the kept signing key %q is not base64: %w", k.KID, err)
	}
	k.Key, k.CreatedAt = key, fromMicros(created)
	return k, nil
}

// IsPostgres reports whether databaseURL names a PostgreSQL store, the one
// several replicas share.
func IsPostgres(databaseURL string) bool {
	return strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://")
}

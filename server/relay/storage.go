package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// errKeysRequired refuses a shared store without operator keys: replicas
// on one PostgreSQL database must sign with the same keys, and a key Relay
// kept in that database would sit beside the data it protects.
var errKeysRequired = errors.New("relay: RELAY_SIGNING_KEYS is required with a PostgreSQL store (RELAY_DATABASE_URL=postgres://...): replicas must sign with the same keys; set RELAY_SIGNING_KEYS=kid:base64key (32 bytes or more) on every replica")

// storedKeyPrefix starts the kid of the key Relay generates and keeps.
const storedKeyPrefix = "stored-"

// openTimeout bounds opening Options.DatabaseURL, migrations included, so
// that an unreachable database stops the start in seconds.
const openTimeout = 30 * time.Second

// openStore takes o.Store, or opens o.DatabaseURL, or makes a temporary
// store, and starts the purger when o.Retention is set. s.stop undoes it:
// it stops the purger, then closes the store New opened (a given one stays
// open for its owner) and removes a temporary one; calling it again does
// nothing.
func (s *endpoint) openStore(o Options) error {
	s.store = o.Store
	release := func() error { return nil }
	switch {
	case s.store != nil:
	case o.DatabaseURL != "":
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		st, err := store.Open(ctx, o.DatabaseURL, &store.Options{NewID: s.newID})
		if err != nil {
			return fmt.Errorf("relay: RELAY_DATABASE_URL: %w", err)
		}
		s.store, release = st, st.Close
	default:
		s.log.Warn("relay: no store configured: journeys are kept in a temporary SQLite file for this process only")
		st, remove, err := temporaryStore(store.Options{NewID: s.newID})
		if err != nil {
			return err
		}
		s.store = st
		release = func() error {
			err := st.Close()
			return errors.Join(err, remove())
		}
	}
	// The kept key is read from the store itself, before the wrapper: a
	// start-time read that needs no span, and the wrapper is no KeyKeeper.
	if err := s.signingKeys(o, o.Store == nil && o.DatabaseURL == ""); err != nil {
		return errors.Join(err, release())
	}
	s.store = observedStore{Store: s.store, obs: s.obs} // timed, counted and traced (observe.go)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if o.Retention > 0 {
			p := &store.Purger{Store: s.store, Retention: o.Retention, Log: s.log}
			_ = p.Run(ctx) // returns when ctx ends
		}
	}()
	s.stop = sync.OnceValue(func() error {
		cancel()
		<-done
		return release()
	})
	return nil
}

// signingKeys settles s.keys once the store is open: the operator's keys;
// else, on a temporary store, a random key of this process, with a
// warning; else the key kept in the store, generated on the first start.
// A shared (PostgreSQL) store without the operator's keys is refused.
func (s *endpoint) signingKeys(o Options, temporary bool) error {
	if o.Keys != nil {
		s.keys = o.Keys
		return nil
	}
	keeper, ok := s.store.(store.KeyKeeper)
	switch {
	case temporary || !ok:
		s.log.Warn("relay: RELAY_SIGNING_KEYS is not set and the store keeps no key: signing with a random key for this process only; options and contexts will not verify after a restart")
		s.keys = signing.RandomKeys()
		return nil
	case keeper.Shared():
		return errKeysRequired
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	kid, key := signing.NewKey(storedKeyPrefix)
	kept, err := keeper.SigningKey(ctx, store.SigningKey{KID: kid, Key: key})
	if err != nil {
		return fmt.Errorf("relay: keeping a signing key in the store: %w", err)
	}
	if s.keys, err = signing.OneKey(kept.KID, kept.Key); err != nil {
		return fmt.Errorf("relay: the signing key kept in the store: %w", err)
	}
	s.log.Info("relay: RELAY_SIGNING_KEYS is not set: signing with the key kept in the store, so options and contexts survive a restart; set RELAY_SIGNING_KEYS to manage keys yourself", "kid", kept.KID, "since", kept.CreatedAt.Format(time.RFC3339))
	return nil
}

// temporaryStore is the store of an endpoint given none: SQLite in a fresh
// temporary directory, removed at Close. Journeys do not survive the
// process, as with [signing.RandomKeys].
func temporaryStore(o store.Options) (store.Store, func() error, error) {
	dir, err := os.MkdirTemp("", "relay-store-")
	if err != nil {
		return nil, nil, fmt.Errorf("relay: a temporary store: %w", err)
	}
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(dir, "relay.db"), &o)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return st, func() error { return os.RemoveAll(dir) }, nil
}

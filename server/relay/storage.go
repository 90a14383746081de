package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

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
	s.store = observe(s.store, s.obs) // timed, counted and traced (observe.go)
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

package relay_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// testStore is a SQLite store in the test's directory, for servers that
// must share journeys (a restart, a second replica, a changed
// configuration). newID may be nil.
func testStore(tb testing.TB, newID func(string) string) store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(tb.TempDir(), "relay.db"), &store.Options{NewID: newID})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// engine gives a test a fresh, empty database of one kind, as the URL
// RELAY_DATABASE_URL would carry.
type engine struct {
	name string
	url  func(t testing.TB) string
}

// postgresAdminURL is the machine's local server (trust auth, database
// "test"); RELAY_TEST_POSTGRES_URL points the tests elsewhere.
func postgresAdminURL() string {
	if u := os.Getenv("RELAY_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

var (
	pgOnce  sync.Once
	pgErr   error
	pgRunID string
	pgSeq   int
	pgMu    sync.Mutex
)

func sqliteEngine() engine {
	return engine{name: "sqlite", url: func(t testing.TB) string {
		return "sqlite:" + filepath.Join(t.TempDir(), "relay.db")
	}}
}

// postgresEngine creates a uniquely named database per test and drops it
// when the test ends. When the server does not answer, the test is skipped
// with the reason, except under CI (CI set), where it fails: CI starts the
// server, so a silent skip there would hide a broken setup.
func postgresEngine() engine {
	return engine{name: "postgres", url: func(t testing.TB) string {
		pgOnce.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			var conn *pgx.Conn
			if conn, pgErr = pgx.Connect(ctx, postgresAdminURL()); pgErr == nil {
				pgErr = conn.Ping(ctx)
				conn.Close(ctx)
			}
			b := make([]byte, 4)
			rand.Read(b)
			pgRunID = hex.EncodeToString(b)
		})
		if pgErr != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("PostgreSQL at %s does not answer (CI is set, so this fails rather than skips): %v", postgresAdminURL(), pgErr)
			}
			t.Skipf("PostgreSQL at %s does not answer, skipping (start it, or set CI=true to make this fail): %v", postgresAdminURL(), pgErr)
		}
		pgMu.Lock()
		pgSeq++
		name := "relaystore_" + pgRunID + "_" + itoa(pgSeq)
		pgMu.Unlock()
		adminExec(t, "CREATE DATABASE "+name)
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
		cfg, err := pgx.ParseConfig(postgresAdminURL())
		if err != nil {
			t.Fatal(err)
		}
		return "postgres://" + cfg.User + "@" + cfg.Host + ":" + itoa(int(cfg.Port)) + "/" + name + "?sslmode=disable"
	}}
}

func adminExec(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, postgresAdminURL())
	if err != nil {
		t.Fatalf("admin connection: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func allEngines() []engine { return []engine{sqliteEngine(), postgresEngine()} }

// forEachEngine runs f once per engine as a subtest.
func forEachEngine(t *testing.T, f func(t *testing.T, e engine)) {
	for _, e := range allEngines() {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// clock is a settable clock for the store and purger.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// open opens url with the clock and closes the store when the test ends.
func open(t testing.TB, url string, c *clock) Store {
	t.Helper()
	opts := &Options{}
	if c != nil {
		opts.Now = c.Now
	}
	st, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver (pure Go, no cgo)
)

// DefaultURL is RELAY_DATABASE_URL's default: a SQLite file in the working
// directory.
const DefaultURL = "sqlite:relay.db"

// migrations holds one folder per dialect: the schemas differ only in how
// an auto-incrementing key and integers are spelled, but goose runs plain SQL
// files, so each engine gets its own.
//
//go:embed migrations
var migrations embed.FS

// dialect is what differs between the engines: the driver, goose's dialect,
// the migrations folder and how placeholders are written.
type dialect struct {
	name       string
	goose      goose.Dialect
	migrations string
	dollar     bool // placeholders are $1, $2 … rather than ?
}

var (
	sqliteDialect   = dialect{name: "sqlite", goose: goose.DialectSQLite3, migrations: "migrations/sqlite"}
	postgresDialect = dialect{name: "postgres", goose: goose.DialectPostgres, migrations: "migrations/postgres", dollar: true}
)

// Open connects to the database RELAY_DATABASE_URL names and brings its
// schema up to date with the embedded migrations before returning:
//
//   - "sqlite:PATH" (also "sqlite://PATH"): a SQLite file through the pure-Go
//     modernc.org/sqlite driver, in WAL mode with synchronous=FULL (a write
//     that returned is on disk), a busy timeout and foreign keys on. For one
//     machine: SQLite takes one writer at a time.
//   - "postgres://…" or "postgresql://…": PostgreSQL through pgx, for several
//     replicas sharing one database. Migrations take a session advisory lock,
//     so replicas starting together apply them once.
//
// The URL may carry a password; errors never repeat it.
func Open(ctx context.Context, databaseURL string, opts *Options) (Store, error) {
	d, db, err := connect(databaseURL, opts)
	if err != nil {
		return nil, err
	}
	// Every connection the pool may open stays pooled until it has idled
	// five minutes. With fewer kept idle than may be open, a burst past
	// that number closed connections as they were returned and opened new
	// ones a moment later: on PostgreSQL a backend started per call, and
	// every Relay tool's p99 over 100 ms at 16 connections (make bench).
	db.SetMaxOpenConns(opts.maxConns())
	db.SetMaxIdleConns(opts.maxConns())
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := migrate(ctx, d, db); err != nil {
		db.Close()
		return nil, err
	}
	s, err := newSQLStore(ctx, d, db, opts)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func connect(databaseURL string, opts *Options) (dialect, *sql.DB, error) {
	switch {
	case strings.HasPrefix(databaseURL, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "//")
		if path == "" || strings.Contains(path, "?") || path == ":memory:" {
			return dialect{}, nil, fmt.Errorf("store: RELAY_DATABASE_URL %q: want sqlite:PATH to a file (no query, no :memory:)", databaseURL)
		}
		// _txlock=immediate takes the write lock when a transaction begins,
		// so two writers queue on the busy timeout instead of one failing
		// with SQLITE_BUSY when it upgrades a read lock.
		q := url.Values{}
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Add("_pragma", "foreign_keys(1)")
		// Savepoint and statement journals in memory: they only undo a
		// write within its transaction (the WAL is what survives a crash),
		// and in a temporary file every page a batched write touched was
		// copied there with a pwrite first, a third of the group-commit
		// writer's CPU (BenchmarkStore/sqlite/SearchWriteParallel).
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.busyTimeout().Milliseconds()))
		q.Set("_txlock", "immediate")
		db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
		if err != nil {
			return dialect{}, nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
		}
		return sqliteDialect, db, nil
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		cfg, err := pgxConfig(databaseURL)
		if err != nil {
			return dialect{}, nil, err
		}
		return postgresDialect, stdlib.OpenDB(*cfg), nil
	default:
		return dialect{}, nil, fmt.Errorf("store: RELAY_DATABASE_URL %q: want sqlite:PATH or postgres://…", redact(databaseURL))
	}
}

// redact drops a password from a URL before it goes into an error.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// versionTable is goose's bookkeeping table, named for Relay so that a
// PostgreSQL database shared with other services keeps their versions apart.
const versionTable = "relay_schema_version"

func migrate(ctx context.Context, d dialect, db *sql.DB) error {
	fsys, err := fs.Sub(migrations, d.migrations)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithTableName(versionTable)}
	if d == postgresDialect {
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return fmt.Errorf("store: migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(d.goose, db, fsys, opts...)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate %s: %w", d.name, err)
	}
	return nil
}

func pgxConfig(databaseURL string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: RELAY_DATABASE_URL %s: %w", redact(databaseURL), err)
	}
	return cfg, nil
}

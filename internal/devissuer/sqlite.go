package devissuer

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// persister keeps what must survive a restart: registered clients (MCP
// clients persist their client_id and never register again), signing keys
// (so tokens already handed out still verify) and the HMAC secret behind
// codes and refresh tokens.
type persister interface {
	loadClients(ctx context.Context) ([]*Client, error)
	saveClient(ctx context.Context, c *Client) error
	loadKeys(ctx context.Context) ([]*signingKey, error)
	saveKey(ctx context.Context, k *signingKey) error
	// secret returns the stored HMAC secret, storing fresh() first if none.
	secret(ctx context.Context, fresh []byte) ([]byte, error)
	close() error
}

type sqliteStore struct{ db *sql.DB }

const sqliteSchema = `
CREATE TABLE IF NOT EXISTS clients (
	client_id  TEXT PRIMARY KEY,
	metadata   TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS signing_keys (
	kid        TEXT PRIMARY KEY,
	jwk        TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	retired_at INTEGER
);
CREATE TABLE IF NOT EXISTS meta (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
);`

func openSQLite(ctx context.Context, path string) (*sqliteStore, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("devissuer: open sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; the issuer's load is tiny
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("devissuer: create schema in %s: %w", path, err)
	}
	return &sqliteStore{db: db}, nil
}

func (s *sqliteStore) loadClients(ctx context.Context) ([]*Client, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT client_id, metadata FROM clients ORDER BY created_at`)
	if err != nil {
		return nil, fmt.Errorf("devissuer: load clients: %w", err)
	}
	defer rows.Close()
	var out []*Client
	for rows.Next() {
		var id, data string
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("devissuer: load clients: %w", err)
		}
		c := new(Client)
		if err := json.Unmarshal([]byte(data), c); err != nil {
			return nil, fmt.Errorf("devissuer: stored client %s: %w", id, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s *sqliteStore) saveClient(ctx context.Context, c *Client) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx,
		`INSERT INTO clients (client_id, metadata, created_at) VALUES (?, ?, ?)
		 ON CONFLICT (client_id) DO UPDATE SET metadata = excluded.metadata`,
		c.ID, string(data), c.IssuedAt)
	if err != nil {
		return fmt.Errorf("devissuer: save client %s: %w", c.ID, err)
	}
	return nil
}

func (s *sqliteStore) loadKeys(ctx context.Context) ([]*signingKey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT jwk, created_at, retired_at FROM signing_keys ORDER BY created_at, rowid`)
	if err != nil {
		return nil, fmt.Errorf("devissuer: load keys: %w", err)
	}
	defer rows.Close()
	var out []*signingKey
	for rows.Next() {
		var (
			data    string
			created int64
			retired sql.NullInt64
		)
		if err := rows.Scan(&data, &created, &retired); err != nil {
			return nil, fmt.Errorf("devissuer: load keys: %w", err)
		}
		priv, kid, err := unmarshalPrivateJWK([]byte(data))
		if err != nil {
			return nil, fmt.Errorf("devissuer: stored key: %w", err)
		}
		k := &signingKey{KID: kid, Private: priv, CreatedAt: time.UnixMilli(created)}
		if retired.Valid {
			k.RetiredAt = time.UnixMilli(retired.Int64)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *sqliteStore) saveKey(ctx context.Context, k *signingKey) error {
	data, err := marshalPrivateJWK(k)
	if err != nil {
		return err
	}
	var retired sql.NullInt64
	if !k.RetiredAt.IsZero() {
		retired = sql.NullInt64{Int64: k.RetiredAt.UnixMilli(), Valid: true}
	}
	_, err = s.db.ExecContext(ctx,
		`INSERT INTO signing_keys (kid, jwk, created_at, retired_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (kid) DO UPDATE SET retired_at = excluded.retired_at`,
		k.KID, string(data), k.CreatedAt.UnixMilli(), retired)
	if err != nil {
		return fmt.Errorf("devissuer: save key %s: %w", k.KID, err)
	}
	return nil
}

func (s *sqliteStore) secret(ctx context.Context, fresh []byte) ([]byte, error) {
	var v []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'hmac_secret'`).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("devissuer: load secret: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO meta (name, value) VALUES ('hmac_secret', ?)`, fresh); err != nil {
		return nil, fmt.Errorf("devissuer: save secret: %w", err)
	}
	return fresh, nil
}

func (s *sqliteStore) close() error { return s.db.Close() }

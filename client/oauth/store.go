package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ErrNoTokens is returned by a [Store] that holds nothing yet: the user has
// not logged in.
var ErrNoTokens = errors.New("oauth: no stored tokens; log in first")

// Record is what a [Store] keeps: the tokens and what is needed to refresh
// them in a later process.
type Record struct {
	Issuer        string `json:"issuer"`
	TokenEndpoint string `json:"token_endpoint"`
	ClientID      string `json:"client_id"`
	// ClientSecret and TokenAuthMethod are how a confidential client
	// authenticates at the token endpoint; both empty for a public client.
	ClientSecret    string    `json:"client_secret,omitempty"`
	TokenAuthMethod string    `json:"token_endpoint_auth_method,omitempty"`
	Resource        string    `json:"resource,omitempty"`
	AccessToken     string    `json:"access_token"`
	RefreshToken    string    `json:"refresh_token,omitempty"`
	Expiry          time.Time `json:"expiry,omitzero"`
	// Scopes are those granted (the token response's scope), or requested
	// when the issuer did not say.
	Scopes []string `json:"scopes,omitempty"`
}

// String describes the record without its secrets (tokens and client
// secret), so that a record reaching a log line or an error message does not
// hand them out.
func (r Record) String() string {
	return fmt.Sprintf("oauth.Record{issuer %s, client %s, resource %s, access token %s, refresh token %s, client secret %s, expiry %s, scopes %q}",
		r.Issuer, r.ClientID, r.Resource, secret(r.AccessToken), secret(r.RefreshToken), secret(r.ClientSecret),
		r.Expiry.Format(time.RFC3339), r.Scopes)
}

// LogValue is [Record.String] for log/slog, whose JSON handler would
// otherwise write every field.
func (r Record) LogValue() slog.Value { return slog.StringValue(r.String()) }

func secret(s string) string {
	if s == "" {
		return "none"
	}
	return "set"
}

// Store keeps one [Record]. Save must be atomic: after a crash, Load
// returns either the old record or the new one, never a mix or nothing.
type Store interface {
	Load(ctx context.Context) (*Record, error)
	Save(ctx context.Context, r *Record) error
}

// MemoryStore is a Store in memory, for tests and short-lived programs.
type MemoryStore struct {
	mu  sync.Mutex
	rec *Record
}

func (m *MemoryStore) Load(context.Context) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rec == nil {
		return nil, ErrNoTokens
	}
	r := *m.rec
	return &r, nil
}

func (m *MemoryStore) Save(_ context.Context, r *Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *r
	m.rec = &c
	return nil
}

// FileStore keeps the record as JSON in one file, readable by its owner only.
type FileStore struct {
	path string
	// beforeRename runs between writing the temporary file and renaming it;
	// tests make it fail to simulate a crash there.
	beforeRename func() error
}

// NewFileStore returns a store at path. The directory is created on the
// first save, mode 0700.
func NewFileStore(path string) *FileStore { return &FileStore{path: path} }

// DefaultPath is where the trident command keeps its tokens:
// $XDG_CONFIG_HOME/trident/tokens.json or its equivalent.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "trident", "tokens.json"), nil
}

// Path returns the file's path.
func (f *FileStore) Path() string { return f.path }

func (f *FileStore) Load(context.Context) (*Record, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoTokens
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: reading %s: %w", f.path, err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("oauth: %s is not a token record: %w", f.path, err)
	}
	return &r, nil
}

// Save writes a temporary file beside the target (so the rename stays on one
// file system), fsyncs it, renames it over the target and fsyncs the
// directory. Hand-written because it is a dozen lines and the test needs a
// hook between write and rename.
func (f *FileStore) Save(_ context.Context, r *Record) (err error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		return fmt.Errorf("oauth: writing tokens: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("oauth: syncing tokens: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	if f.beforeRename != nil {
		if err := f.beforeRename(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("oauth: replacing %s: %w", f.path, err)
	}
	renamed = true
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: some file systems refuse to sync a directory
		d.Close()
	}
	return nil
}

package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFileStoreRoundTripAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "tokens.json")
	s := NewFileStore(path)
	if _, err := s.Load(context.Background()); !errors.Is(err, ErrNoTokens) {
		t.Fatalf("Load on nothing = %v, want ErrNoTokens", err)
	}
	want := &Record{Issuer: "https://x/auth/v1", TokenEndpoint: "https://x/auth/v1/oauth/token", ClientID: "c",
		AccessToken: "a1", RefreshToken: "r1", Expiry: time.Date(2025, 6, 18, 13, 0, 0, 0, time.UTC)}
	if err := s.Save(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestFileStoreCrashBeforeRenameKeepsOldTokens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	s := NewFileStore(path)
	old := &Record{ClientID: "c", AccessToken: "a1", RefreshToken: "r1"}
	if err := s.Save(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	// The process dies after the new file is written and synced, before
	// the rename: simulate it by copying the temporary file aside (a crash
	// would leave it behind) and failing.
	crash := errors.New("crash")
	var leftover []byte
	s.beforeRename = func() error {
		m, _ := filepath.Glob(filepath.Join(dir, ".tokens.json.*.tmp"))
		if len(m) != 1 {
			t.Fatalf("temporary files = %v, want one", m)
		}
		leftover, _ = os.ReadFile(m[0])
		return crash
	}
	if err := s.Save(context.Background(), &Record{ClientID: "c", AccessToken: "a2", RefreshToken: "r2"}); !errors.Is(err, crash) {
		t.Fatalf("Save = %v, want the crash", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".tokens.json.123.tmp"), leftover[:len(leftover)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := NewFileStore(path).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old, got); diff != "" {
		t.Errorf("after the crash (-want old +got):\n%s", diff)
	}
	// The next save still works with the debris beside it.
	s.beforeRename = nil
	if err := s.Save(context.Background(), &Record{AccessToken: "a3"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(context.Background()); got.AccessToken != "a3" {
		t.Errorf("after recovery AccessToken = %q, want a3", got.AccessToken)
	}
}

// A record printed or logged by mistake shows no token or secret.
func TestRecordHidesSecrets(t *testing.T) {
	r := &Record{Issuer: "https://x/auth/v1", ClientID: "c", AccessToken: "at-SECRET1", RefreshToken: "rt-SECRET2", ClientSecret: "cs-SECRET3"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("tokens", "record", r, "value", *r)
	for name, out := range map[string]string{
		"%v": fmt.Sprintf("%v", r), "%+v": fmt.Sprintf("%+v", *r), "%s": fmt.Sprintf("%s", r),
		"error": fmt.Errorf("saving %v: failed", r).Error(), "slog": logged.String(),
	} {
		if strings.Contains(out, "SECRET") || !strings.Contains(out, "https://x/auth/v1") {
			t.Errorf("%s: %s", name, out)
		}
	}
}

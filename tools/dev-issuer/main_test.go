package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the binary's run on a free loopback port and returns its base URL.
func start(t *testing.T, args []string, env map[string]string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &syncBuffer{}
	readyc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, log,
			func(u string) { readyc <- u })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case u := <-readyc:
		return u, log
	case err := <-done:
		t.Fatalf("run exited early: %v\n%s", err, log)
	case <-time.After(10 * time.Second):
		t.Fatalf("dev-issuer did not start\n%s", log)
	}
	return "", nil
}

func TestRunServesMetadataAndUsersFile(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.json")
	if err := os.WriteFile(users, []byte(`[{"id":"11111111-2222-4333-8444-555555555555","email":"qa@tridenttaxis.test","password":"pw"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	base, log := start(t, []string{"--users", users, "--dev-admin"},
		map[string]string{"DEV_ISSUER_RESOURCES": "http://localhost:8080/mcp", "DEV_ISSUER_DB": filepath.Join(dir, "i.db")})

	resp, err := http.Get(base + "/.well-known/oauth-authorization-server/auth/v1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		t.Fatal(err)
	}
	if meta["issuer"] != base+"/auth/v1" {
		t.Errorf("issuer = %v, want %s/auth/v1", meta["issuer"], base)
	}
	out := log.String()
	for _, want := range []string{"qa@tridenttaxis.test", "WARNING: dev-only", base + "/auth/v1"} {
		if !strings.Contains(out, want) {
			t.Errorf("startup log lacks %q:\n%s", want, out)
		}
	}
	rot, err := http.Post(base+"/auth/v1/admin/rotate-key", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	rot.Body.Close()
	if rot.StatusCode != http.StatusOK {
		t.Errorf("--dev-admin rotate-key: status %d", rot.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(dir, "i.db")); err != nil {
		t.Errorf("DEV_ISSUER_DB not created: %v", err)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	for _, args := range [][]string{
		{"--users", "/nonexistent/users.json"},
		{"--resource", "not a uri"},
		{"--auto-approve-user", "nobody@example.com"},
		{"stray"},
	} {
		err := run(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, args...),
			func(string) string { return "" }, &syncBuffer{}, nil)
		if err == nil {
			t.Errorf("run %v: want an error", args)
		}
	}
}

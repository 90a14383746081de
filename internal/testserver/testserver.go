// Package testserver builds the real server binary (server/cmd/trident-mcp)
// and runs it on a loopback port for tests that must talk to it the way users
// do: over HTTP, as a separate process. The client's integration test and the
// conformance self-test share it, so both start the server the same way.
package testserver

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DayClock is the FARE_CLOCK test runs price undated calls at: a weekday
// morning, when the specification's samples (which give no departAt) were priced.
const DayClock = "2025-06-18T09:00:00Z"

// ModuleRoot returns the directory of the module's go.mod.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		tb.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// Go runs `go <args...> -o out <pkg>` in the module root (a build, or
// `test -c`) and returns out. The package is the last argument.
func Go(tb testing.TB, out string, args ...string) string {
	tb.Helper()
	args = append(args[:len(args)-1:len(args)-1], "-o", out, args[len(args)-1])
	cmd := exec.Command("go", args...)
	cmd.Dir = ModuleRoot(tb)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}

// Build compiles server/cmd/trident-mcp into a temporary directory of tb.
func Build(tb testing.TB) string {
	tb.Helper()
	return Go(tb, filepath.Join(tb.TempDir(), "trident-mcp"), "build", "./server/cmd/trident-mcp")
}

// FreeAddr returns a loopback address nothing listens on (just freed).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Start runs bin on addr with ADDR, PUBLIC_BASE_URL and FARE_CLOCK=DayClock
// set (env may override them) and waits until /readyz answers 200, which in
// OAuth mode means the server holds the issuer's keys. It returns the base
// URL; the process is killed when tb ends.
func Start(tb testing.TB, bin, addr string, env ...string) string {
	tb.Helper()
	base := "http://" + addr
	cmd := exec.Command(bin)
	cmd.Env = append(append(os.Environ(), "ADDR="+addr, "PUBLIC_BASE_URL="+base, "FARE_CLOCK="+DayClock), env...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("the server at %s never answered /readyz with 200:\n%s", base, tail(logs.String(), 2000))
		case <-tick.C:
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

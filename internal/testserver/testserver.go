// Package testserver builds the real server binary (server/cmd/trident-mcp)
// and runs it on a loopback port for tests that must talk to it the way users
// do: over HTTP, as a separate process. The client's integration test and the
// conformance self-test share it, so both start the server the same way.
package testserver

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// FreeAddr returns a loopback address nothing listens on (just freed). It
// picks below the kernel's ephemeral range, as scripts/lib/launch.sh does:
// a port the kernel hands out for ":0" is one it also hands out to outgoing
// connections, so another test's client could take it before the server
// binds it ("address already in use" on a busy machine).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
				low = n
			}
		}
	}
	for range 200 {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(10000+rand.IntN(low-10000))))
		if err != nil {
			continue
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}
	tb.Fatal("testserver: no free loopback port below the ephemeral range")
	return ""
}

// Start runs bin on addr with ADDR, PUBLIC_BASE_URL and FARE_CLOCK=DayClock
// set (env may override them) and waits until /readyz answers 200, which in
// OAuth mode means the server holds the issuer's keys. It returns the base
// URL; the process is killed when tb ends.
func Start(tb testing.TB, bin, addr string, env ...string) string {
	tb.Helper()
	return Run(tb, bin, addr, env...).Base
}

// Process is a server binary started by [Run], for tests that signal it
// and watch it exit.
type Process struct {
	// Base is the server's base URL, "http://" + addr.
	Base string

	cmd    *exec.Cmd
	logs   *lockedBuffer
	exited chan struct{}
	err    error // what Wait returned, once exited is closed
}

// Run starts bin as [Start] does and returns the running process.
func Run(tb testing.TB, bin, addr string, env ...string) *Process {
	tb.Helper()
	p := &Process{Base: "http://" + addr, logs: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin)
	// Relay's store goes in the test's directory, not the working
	// directory, unless env names one (a restart or a second replica).
	db := "RELAY_DATABASE_URL=sqlite:" + filepath.Join(tb.TempDir(), "relay.db")
	p.cmd.Env = append(append(os.Environ(), "ADDR="+addr, "PUBLIC_BASE_URL="+p.Base, "FARE_CLOCK="+DayClock, db), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		if resp, err := http.Get(p.Base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("the server at %s never answered /readyz with 200:\n%s", p.Base, tail(p.Logs(), 2000))
		case <-p.exited:
			tb.Fatalf("the server at %s exited (%v) before it was ready:\n%s", p.Base, p.err, tail(p.Logs(), 2000))
		case <-tick.C:
		}
	}
}

// Signal sends sig (syscall.SIGTERM, say) to the process.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Wait waits up to limit for the process to exit and returns its exit
// error (nil for status 0), or an error saying it is still running.
func (p *Process) Wait(limit time.Duration) error {
	select {
	case <-p.exited:
		return p.err
	case <-time.After(limit):
		return fmt.Errorf("testserver: %s still running after %v", p.Base, limit)
	}
}

// Logs returns what the process has written to stdout and stderr so far.
func (p *Process) Logs() string { return p.logs.String() }

// lockedBuffer is a bytes.Buffer the process writes to while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(b)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Node returns the pinned Node 22 of `make npm` (node_modules/.bin/node),
// and skips tb when it or one of the npm packages named is not installed:
// the tests that drive the official TypeScript SDK need both, and `make
// test` always installs them first.
func Node(tb testing.TB, packages ...string) string {
	tb.Helper()
	root := ModuleRoot(tb)
	node := filepath.Join(root, "node_modules", ".bin", "node")
	for _, f := range append([]string{node}, packages...) {
		if f != node {
			f = filepath.Join(root, "node_modules", filepath.FromSlash(f), "package.json")
		}
		if _, err := os.Stat(f); err != nil {
			tb.Skipf("needs the pinned Node tooling (run `make npm`): %v", err)
		}
	}
	return node
}

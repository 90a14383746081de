// Package serverproc builds and starts the server binary for the deploy
// tests: the image's binary as its config says to run it, or the binary
// with the environment a rendered pod spec gives it. (The server module's
// internal/testserver does the same for its own tests, but it adds a test
// clock and store of its own and finds the module from the working
// directory, and this module does not import the server's.)
package serverproc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/deploy/internal/gobuild"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// Binary is the server built as the image ships it (gobuild.Server), once
// per test process.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		ctx := context.Background()
		root, err := gobuild.RepoRoot(ctx)
		if err != nil {
			built.err = err
			return
		}
		if built.dir, err = os.MkdirTemp("", "deploy-server-"); err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(built.dir, "trident-mcp")
		built.err = gobuild.Server(ctx, root, "amd64", built.bin)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// Cleanup removes what Binary built; TestMain calls it after the tests.
func Cleanup() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// Process is a running server.
type Process struct {
	Base string

	cmd    *exec.Cmd
	logs   string // the file the server's stdout and stderr go to
	exited chan struct{}
	err    error
}

// Start runs bin in dir with exactly env (nothing inherited, as in a
// container) and ADDR=127.0.0.1:0, reads the port it got from its
// "listening" log line, and waits until /readyz answers 200. The process is
// killed when the test ends.
func Start(t testing.TB, bin, dir string, env []string) *Process {
	t.Helper()
	return StartOn(t, bin, dir, env, "127.0.0.1:0")
}

// StartOn is Start listening on addr (ADDR) rather than on a port of the
// system's choosing, for a server that must know its port before it
// starts (Relay's default Trident source is its own /mcp on that port).
func StartOn(t testing.TB, bin, dir string, env []string, addr string) *Process {
	t.Helper()
	p := &Process{exited: make(chan struct{}), logs: filepath.Join(t.TempDir(), "server.log")}
	logs, err := os.Create(p.logs)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close() // the child has its own descriptor
	p.cmd = exec.Command(bin)
	p.cmd.Dir = dir
	p.cmd.Env = append(append([]string(nil), env...), "ADDR="+addr)
	p.cmd.Stdout, p.cmd.Stderr = logs, logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if p.Base == "" {
			p.Base = listening(p.Logs())
		}
		if p.Base != "" && ready(p.Base) {
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("the server exited (%v) before /readyz answered 200:\n%s", p.err, p.Logs())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server (%s) did not answer /readyz with 200 within 30s:\n%s", p.Base, p.Logs())
		}
	}
}

// Signal sends sig to the server.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Wait waits up to limit for the server to exit and returns how it did.
func (p *Process) Wait(limit time.Duration) error {
	select {
	case <-p.exited:
		return p.err
	case <-time.After(limit):
		return fmt.Errorf("still running after %v", limit)
	}
}

// Logs is what the server wrote to stdout and stderr so far.
func (p *Process) Logs() string {
	b, err := os.ReadFile(p.logs)
	if err != nil {
		return "(server log: " + err.Error() + ")"
	}
	return string(b)
}

func ready(base string) bool {
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// listening finds the server's "trident-mcp listening" log line (JSON, one
// a line) and returns its address as a base URL, or "" before it.
func listening(logs string) string {
	for _, line := range strings.Split(logs, "\n") {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "trident-mcp listening" && rec.Addr != "" {
			return "http://" + rec.Addr
		}
	}
	return ""
}

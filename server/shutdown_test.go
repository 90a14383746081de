package server_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/servertest"
)

// slowCall is a call that holds its tool until the endpoint releases it.
var slowCall = kit.CallBody("1", kit.ToolSlow, `{}`)

// TestGracefulShutdown starts a call that waits in its tool, cancels the
// host's context, and checks the call still completes while new
// connections are refused, and that Serve returns nil once it has.
func TestGracefulShutdown(t *testing.T) {
	ep := kit.New(kitPath)
	defer ep.Release()
	addr, cancel, served := servertest.Serve(t, nil, ep.Endpoint)

	result := make(chan kit.Reply, 1)
	go func() { result <- kit.Post(t, "http://"+addr+kitPath, kit.Headers(), slowCall) }()
	ep.AwaitSlow(t) // the call is in flight
	cancel()
	// Shutdown closes the listener first; wait until new connections fail.
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		select {
		case <-served:
			t.Fatal("Serve returned while a call was in flight")
		default:
		}
	}
	ep.Release()
	r := <-result
	if r.Status != 200 || !strings.Contains(string(r.Body), `"text":"released"`) {
		t.Errorf("in-flight call: %d %s", r.Status, r.Body)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestDrainBeforeShutdown: once Serve's context is cancelled, and for
// ShutdownDelay, the host still answers, new connections included, but
// /readyz is 503 and every reply closes its connection; the listener stays
// open meanwhile, and the shutdown proper has not begun.
func TestDrainBeforeShutdown(t *testing.T) {
	ep := kit.New(kitPath)
	logs := &kit.Records{}
	addr, cancel, served := servertest.Serve(t, &server.Options{ShutdownDelay: time.Hour, Logger: slog.New(logs)}, ep.Endpoint)
	base := "http://" + addr
	call := func(path string) (status int, closes bool) {
		t.Helper()
		var r kit.Reply
		if path == kitPath {
			r = kit.Post(t, base+path, kit.Headers(), kit.CallBody("1", kit.ToolEcho, `{"text":"hi"}`))
		} else {
			r = kit.Get(t, base+path)
		}
		return r.Status, r.Close
	}
	if status, closes := call(kitPath); status != 200 || closes {
		t.Fatalf("before the drain: %d close=%v, want 200 and a kept-alive connection", status, closes)
	}
	cancel()
	// The drain starts as soon as Serve sees the cancellation.
	for {
		status, closes := call("/readyz")
		if status == http.StatusServiceUnavailable {
			if !closes {
				t.Error("/readyz during the drain kept its connection alive")
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
	for range 3 { // each on a new connection: the last reply closed its own
		if status, closes := call(kitPath); status != 200 || !closes {
			t.Errorf("during the drain: %d close=%v, want 200 and close", status, closes)
		}
	}
	if status, closes := call("/healthz"); status != 200 || !closes {
		t.Errorf("/healthz during the drain: %d close=%v, want 200 and close", status, closes)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned during the drain: %v", err)
	default:
	}
	if c, err := net.Dial("tcp", addr); err != nil {
		t.Errorf("the listener closed during the drain: %v", err)
	} else {
		c.Close()
	}
	// The listener lingers a moment after it is closed (queueListener), so
	// the log tells the drain from the shutdown: the host says which began.
	if log := logs.String(); !strings.Contains(log, "draining: ") || strings.Contains(log, "shutting down") {
		t.Errorf("the log during the drain:\n%s\nwant the drain begun and the shutdown not", log)
	}
}

// TestShutdownTimeoutClosesCalls: a call that outlives ShutdownTimeout has
// its connection closed and Serve reports the deadline, rather than Serve
// returning with the call still running on an open connection.
func TestShutdownTimeoutClosesCalls(t *testing.T) {
	ep := kit.New(kitPath)
	defer ep.Release()
	addr, cancel, served := servertest.Serve(t, &server.Options{ShutdownTimeout: 20 * time.Millisecond}, ep.Endpoint)

	callErr := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+kitPath, strings.NewReader(slowCall))
		req.Header = kit.Headers()
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		callErr <- err
	}()
	ep.AwaitSlow(t)
	cancel()
	select {
	case err := <-served:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Serve = %v, want the shutdown deadline", err)
		}
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing
		t.Fatal("Serve did not return after ShutdownTimeout")
	}
	select {
	case err := <-callErr:
		if err == nil {
			t.Error("the cut-off call got a reply; want its connection closed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cut-off call's connection stayed open")
	}
}

package trident_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// TestDrainBeforeShutdown: once Serve's context is cancelled, and for
// ShutdownDelay, the server still answers, new connections included, but
// /readyz is 503 and every reply closes its connection; after the delay
// the listener closes.
func TestDrainBeforeShutdown(t *testing.T) {
	f := &fakeGeo{}
	ln, cancel, served := serve(t, &opts{host: server.Options{ShutdownDelay: time.Hour}, ep: trident.Options{Geocoder: f, Router: f}})
	base := "http://" + ln.Addr().String()
	call := func(path string) (status int, closes bool) {
		t.Helper()
		method, body := http.MethodGet, ""
		if path == "/mcp" {
			method, body = http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh","dropoff":"Glasgow Airport"}}}`
		}
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header = mcpHeaders()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Close // net/http reads Connection: close into Close
	}
	if status, closes := call("/mcp"); status != 200 || closes {
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
		if status, closes := call("/mcp"); status != 200 || !closes {
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
	if c, err := net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Errorf("the listener closed during the drain: %v", err)
	} else {
		c.Close()
	}
}

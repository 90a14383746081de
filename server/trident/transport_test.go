package trident_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// TestOriginAndHost holds /mcp to its DNS-rebinding rules: browser Origins
// outside the configuration and foreign Host names on a loopback listener
// get 403; allowed origins get CORS headers, preflight included.
func TestOriginAndHost(t *testing.T) {
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	public := start(t, &opts{host: server.Options{PublicBaseURL: "https://taxis.example"}})
	listed := start(t, &opts{host: server.Options{AllowedOrigins: []string{"https://app.example"}}})
	tests := []struct {
		name       string
		url        string
		method     string
		header     http.Header
		host       string
		wantStatus int
		wantCORS   string // Access-Control-Allow-Origin
	}{
		{"no Origin (curl, SDKs)", public.URL, http.MethodPost, nil, "", 200, ""},
		{"loopback origin", public.URL, http.MethodPost, http.Header{"Origin": {"http://localhost:6274"}}, "", 200, "http://localhost:6274"},
		{"public base URL's origin", public.URL, http.MethodPost, http.Header{"Origin": {"https://taxis.example"}}, "", 200, "https://taxis.example"},
		{"foreign origin", public.URL, http.MethodPost, http.Header{"Origin": {"https://evil.example"}}, "", 403, ""},
		{"opaque origin", public.URL, http.MethodPost, http.Header{"Origin": {"null"}}, "", 403, ""},
		{"rebound Host on a loopback listener", public.URL, http.MethodPost, nil, "evil.example", 403, ""},
		{"public host forwarded by a local proxy", public.URL, http.MethodPost, nil, "taxis.example", 200, ""},
		{"listed origin", listed.URL, http.MethodPost, http.Header{"Origin": {"https://app.example"}}, "", 200, "https://app.example"},
		{"a list replaces the loopback default", listed.URL, http.MethodPost, http.Header{"Origin": {"http://localhost:6274"}}, "", 403, ""},
		{"preflight from an allowed origin", public.URL, http.MethodOptions, http.Header{"Origin": {"http://127.0.0.1:3000"}, "Access-Control-Request-Method": {"POST"}}, "", 204, "http://127.0.0.1:3000"},
		{"preflight from a foreign origin", public.URL, http.MethodOptions, http.Header{"Origin": {"https://evil.example"}}, "", 403, ""},
		{"plain OPTIONS", public.URL, http.MethodOptions, nil, "", 204, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url+"/mcp", strings.NewReader(ping))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = mcpHeaders()
			for k, v := range tt.header {
				req.Header[k] = v
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.wantCORS {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.wantCORS)
			}
			if tt.wantStatus == 403 {
				want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: origin not allowed"}}`
				if d := jsonDiff(t, []byte(want), body); d != "" {
					t.Errorf("403 body (-want +got):\n%s", d)
				}
			}
			if tt.method == http.MethodOptions && tt.wantStatus == 204 {
				if tt.wantCORS != "" && resp.Header.Get("Access-Control-Allow-Methods") != "POST, OPTIONS" {
					t.Errorf("preflight Access-Control-Allow-Methods = %q", resp.Header.Get("Access-Control-Allow-Methods"))
				}
				if tt.wantCORS == "" && resp.Header.Get("Allow") != "POST, OPTIONS" {
					t.Errorf("OPTIONS Allow = %q, want POST, OPTIONS", resp.Header.Get("Allow"))
				}
			}
		})
	}
}

// TestConcurrencySlotReleased: with a concurrency cap of one, a second call
// while the first is in flight gets 429, and the slot comes back when the
// first is answered.
func TestConcurrencySlotReleased(t *testing.T) {
	f := &fakeGeo{block: make(chan struct{}), entered: make(chan struct{}, 4)}
	policy := limits.Policy{Tools: map[string]limits.Rule{"estimate_fare": {Concurrent: 1}}}
	ts := start(t, &opts{ep: trident.Options{Geocoder: f, Router: f, RateLimitPolicy: &policy}})
	const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh","dropoff":"Glasgow Airport"}}}`

	first := make(chan reply, 1)
	go func() { first <- post(t, ts.URL+"/mcp", mcpHeaders(), body) }()
	<-f.entered // the first call holds the slot
	if r := post(t, ts.URL+"/mcp", mcpHeaders(), body); r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Errorf("second concurrent call: %d Retry-After=%q, want 429 and 1", r.status, r.header.Get("Retry-After"))
	}
	f.block <- struct{}{} // pickup
	<-f.entered
	f.block <- struct{}{} // dropoff
	if r := <-first; r.status != 200 {
		t.Fatalf("first call: %d %s", r.status, r.body)
	}
	close(f.block) // later calls pass; entered has room for their two signals
	if r := post(t, ts.URL+"/mcp", mcpHeaders(), body); r.status != 200 {
		t.Errorf("call after the first was answered: %d %s (slot not released)", r.status, r.body)
	}
}

// TestSlowBodyTimesOut: a client that sends headers and then trickles (or
// stalls) its body gets 408 once BodyReadTimeout passes, and the connection
// is closed, instead of holding it open for ever.
func TestSlowBodyTimesOut(t *testing.T) {
	ts := start(t, &opts{host: server.Options{BodyReadTimeout: 50 * time.Millisecond}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A guard against hanging if the deadline never fires, not a timing.
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+strings.TrimPrefix(ts.URL, "http://")+"\r\n"+
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("status %d, close %v, want 408 and the connection closed", resp.StatusCode, resp.Close)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the request body did not arrive within 50ms"}}`
	if d := jsonDiff(t, []byte(want), body); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
}

// TestShutdownTimeoutClosesCalls: a call that outlives ShutdownTimeout has
// its connection closed and Serve reports the deadline, rather than Serve
// returning with the call still running on an open connection.
func TestShutdownTimeoutClosesCalls(t *testing.T) {
	f := &fakeGeo{block: make(chan struct{}), entered: make(chan struct{}, 4)}
	defer close(f.block)
	ln, cancel, served := serve(t, &opts{host: server.Options{ShutdownTimeout: 20 * time.Millisecond}, ep: trident.Options{Geocoder: f, Router: f}})

	callErr := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh","dropoff":"Glasgow Airport"}}}`))
		req.Header = mcpHeaders()
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		callErr <- err
	}()
	<-f.entered
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

// TestSharedRegistryIsAnError: a registry that already holds the server's
// metrics (two servers sharing one) fails New with an error, not a panic.
func TestSharedRegistryIsAnError(t *testing.T) {
	reg := prometheus.NewRegistry()
	newServer(t, &opts{host: server.Options{Registry: reg}})
	ep, err := trident.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(&server.Options{Registry: reg, Logger: quietLogger()}, ep); err == nil || !strings.Contains(err.Error(), "Registry") {
		t.Errorf("second server on the same registry: err = %v, want an error naming Options.Registry", err)
	}
}

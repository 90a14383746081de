// Package servertest runs the host
// ([github.com/tridenttaxis/trident-mcp/server]) in tests, as the binary
// does and a user reaches it: endpoints mounted on one host, served on a
// loopback listener, closed when the test ends. The host's tests mount the
// front door's test endpoint
// ([github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest]); an
// endpoint's tests mount that endpoint.
//
//	ts := servertest.Start(t, nil, tridentEndpoint)
//	resp, err := http.Post(ts.URL+"/mcp", ...)
package servertest

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// New builds a host mounting endpoints with opts (nil: every default) and
// a quiet log unless opts names one, and closes it when the test ends.
func New(t testing.TB, opts *server.Options, endpoints ...*mcphttp.Endpoint) *server.Server {
	t.Helper()
	o := options(opts)
	srv, err := server.New(&o, endpoints...)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Start serves a host mounting endpoints over HTTP on loopback until the
// test ends. Its PublicBaseURL is the server's own URL unless opts sets
// one, so the links it writes (metadata, challenges, docs) are the ones a
// client of the test server follows.
func Start(t testing.TB, opts *server.Options, endpoints ...*mcphttp.Endpoint) *httptest.Server {
	t.Helper()
	o := options(opts)
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	if o.PublicBaseURL == "" {
		o.PublicBaseURL = ts.URL
	}
	ts.Config.Handler = New(t, &o, endpoints...).Handler()
	return ts
}

// Serve runs [server.Server.Serve] for a host mounting endpoints on a
// loopback listener, as the binary does: addr is where it listens, cancel
// starts its shutdown, served yields what Serve returned. A ShutdownDelay
// left zero is none (-1): no load balancer waits on a test's /readyz.
func Serve(t testing.TB, opts *server.Options, endpoints ...*mcphttp.Endpoint) (addr string, cancel context.CancelFunc, served <-chan error) {
	t.Helper()
	o := options(opts)
	if o.ShutdownDelay == 0 {
		o.ShutdownDelay = -1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.PublicBaseURL == "" {
		o.PublicBaseURL = "http://" + ln.Addr().String()
	}
	srv := New(t, &o, endpoints...)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return ln.Addr().String(), cancel, done
}

// options copies opts (nil: the zero Options) with a quiet log unless it
// names one.
func options(opts *server.Options) server.Options {
	var o server.Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

package relay_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// inProcessTrident is a Trident host served by handler only, never on a
// socket, and the number of requests it served.
func inProcessTrident(tb testing.TB) (http.Handler, *atomic.Int64) {
	tb.Helper()
	ep, err := trident.New(&trident.Options{Now: func() time.Time { return dayClock }, Logger: discard})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := server.New(&server.Options{Logger: discard}, ep)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	var served atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		srv.Handler().ServeHTTP(w, r)
	}), &served
}

// A Trident source served in process prices the search exactly as the one
// over HTTP does: the same options, prices and provider calls, through
// Trident's front door (the handler sees every call), with no listener at
// TridentURL at all.
func TestSearchWithInProcessTrident(t *testing.T) {
	h, served := inProcessTrident(t)
	_, inproc := newRelay(t, relay.Options{Now: func() time.Time { return dayClock },
		TridentURL: "http://127.0.0.1:1/mcp", TridentHandler: h})
	_, overHTTP, _ := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
	args := map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2}
	got, want := search(t, inproc, args), search(t, overHTTP, args)
	if got.Status != "ok" || len(got.Options) == 0 {
		t.Fatalf("in process: status %s with %d options; want ok with options", got.Status, len(got.Options))
	}
	if n := served.Load(); n != int64(len(got.ProviderCalls)) {
		t.Errorf("the in-process handler served %d requests for %d provider calls", n, len(got.ProviderCalls))
	}
	if len(got.Options) != len(want.Options) {
		t.Fatalf("%d options in process, %d over HTTP", len(got.Options), len(want.Options))
	}
	for i := range got.Options {
		g, w := got.Options[i], want.Options[i]
		if g.Product.ID != w.Product.ID || g.Price.AmountMinor != w.Price.AmountMinor || g.Provider != w.Provider {
			t.Errorf("option %d: %s %s %d in process, %s %s %d over HTTP", i, g.Provider, g.Product.ID, g.Price.AmountMinor, w.Provider, w.Product.ID, w.Price.AmountMinor)
		}
	}
	for i, c := range got.ProviderCalls {
		if c.Outcome != "ok" || c.HttpStatus == nil || *c.HttpStatus != 200 {
			t.Errorf("provider call %d: %+v; want ok, HTTP 200", i, c)
		}
	}
}

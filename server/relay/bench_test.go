package relay_test

import (
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// benchOptions turns Relay's limits off, as make bench's servers run
// (RELAY_RATE_LIMIT=0): a benchmark measures a search, not a refusal.
func benchOptions(o relay.Options) relay.Options {
	o.ActorLimit = limits.Limit{Rate: -1}
	o.ProviderBudget = limits.PerMinute(1_000_000_000)
	return o
}

// BenchmarkSearchRidesTrident is one search_rides over HTTP whose Trident
// source prices six vehicle classes over HTTP through the generated client:
// seven MCP round trips per search on loopback.
func BenchmarkSearchRidesTrident(b *testing.B) {
	_, c, _ := tridentRelay(b, benchOptions(relay.Options{Now: func() time.Time { return dayClock }}))
	args := map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2}
	if out := search(b, c, args); out.Status != "ok" {
		b.Fatalf("status %s", out.Status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Call(b.Context(), "search_rides", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchRidesTridentInProcess is BenchmarkSearchRidesTrident with
// the Trident source served in process (relay.Options.TridentHandler, as
// trident-mcp wires its own /mcp): the six estimate_fare calls still pass
// Trident's front door through the generated client, without a socket.
func BenchmarkSearchRidesTridentInProcess(b *testing.B) {
	c, args := inProcessSearch(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Call(b.Context(), "search_rides", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchRidesParallel is BenchmarkSearchRidesTridentInProcess
// from 16 callers at once, as make bench's 16 connections call: what it
// shows that one caller does not is what searches contend on (the store's
// writer, the GC) and what they share (a commit).
func BenchmarkSearchRidesParallel(b *testing.B) {
	c, args := inProcessSearch(b)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Call(b.Context(), "search_rides", args, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// inProcessSearch is a Relay over HTTP with an in-process Trident and
// limits off, a client speaking as make bench does, and a search's
// arguments, checked once.
func inProcessSearch(b *testing.B) (*client.Client, map[string]any) {
	h, _ := inProcessTrident(b)
	ep := mustRelay(b, benchOptions(relay.Options{Now: func() time.Time { return dayClock }, TridentURL: "http://127.0.0.1:1/mcp", TridentHandler: h}))
	// The call make bench sends: one stateless 2025-06-18 tools/call, the
	// revision assistants speak to Relay without a session.
	url, hc := hostURL(b, ep)
	c, err := client.New(url, client.WithHTTPClient(hc), client.WithProtocolVersion(client.DocumentedProtocolVersion))
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2}
	if out := search(b, c, args); out.Status != "ok" {
		b.Fatalf("status %s", out.Status)
	}
	return c, args
}

package relay_test

import (
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// BenchmarkSearchRidesTrident is one search_rides over HTTP whose Trident
// source prices six vehicle classes over HTTP through the generated client:
// seven MCP round trips per search on loopback.
func BenchmarkSearchRidesTrident(b *testing.B) {
	_, c, _ := tridentRelay(b, relay.Options{Now: func() time.Time { return dayClock }})
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
	h, _ := inProcessTrident(b)
	_, c := newRelay(b, relay.Options{Now: func() time.Time { return dayClock }, TridentURL: "http://127.0.0.1:1/mcp", TridentHandler: h})
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

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

package lyft_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

func TestETAsFromEta(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	ctx := context.Background()
	if _, err := c.Estimate(ctx, upstream.Request{Pickup: sfo, Dropoff: pre}); err != nil {
		t.Fatal(err)
	}
	got, err := c.ETAs(ctx, upstream.Request{Pickup: sfo, Dropoff: pre})
	if err != nil {
		t.Fatal(err)
	}
	// Lux Black is marked invalid, with no seconds: absent.
	if d := cmp.Diff(map[string]int64{"lyft": 240, "lyft_line": 120}, got); d != "" {
		t.Errorf("ETAs (-want +got):\n%s", d)
	}
	calls := fake.ETACalls()
	if len(calls) != 1 || len(fake.TokenCalls()) != 1 {
		t.Fatalf("%d ETA calls, %d token calls: the cost call's token is reused", len(calls), len(fake.TokenCalls()))
	}
	q := calls[0].Query
	if q.Get("lat") != "37.7763" || q.Get("lng") != "-122.3918" || q.Get("destination_lat") != "37.7972" || q.Get("destination_lng") != "-122.4533" {
		t.Errorf("query %v", q)
	}
}

func TestETAsRefusals(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	ctx := context.Background()
	fake.SetETAs([]fakeproviders.LyftETAEstimate{{DisplayName: "Lyft", ETASeconds: fakeproviders.N("60"), IsValidEstimate: true}})
	if _, err := c.ETAs(ctx, upstream.Request{Pickup: sfo, Dropoff: pre}); upstream.KindOf(err) != upstream.Malformed {
		t.Errorf("no ride_type: %v", err)
	}
	fake.SetETAKnob(fakeproviders.ServerError)
	if _, err := c.ETAs(ctx, upstream.Request{Pickup: sfo, Dropoff: pre}); upstream.KindOf(err) != upstream.Unavailable {
		t.Errorf("500: %v", err)
	}
	_, none, _ := setup(t, "", "")
	if _, err := none.ETAs(ctx, upstream.Request{Pickup: sfo, Dropoff: pre}); upstream.KindOf(err) != upstream.NotConfigured {
		t.Errorf("no credentials: %v", err)
	}
}

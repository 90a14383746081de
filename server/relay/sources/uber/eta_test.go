package uber_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

func TestETAsFromTimeEstimates(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	c := newClient(t, fake.URL, token)
	got, err := c.ETAs(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"a1111c8c-c720-46c3-8534-2fcdd730040d": 180,
		"d4abaae7-f4d6-4152-91cc-77523e8165a4": 420,
		"3ab64887-4842-4c8e-9780-ccecd3a0391d": 300,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ETAs (-want +got):\n%s", d)
	}
	calls := fake.TimeCalls()
	if len(calls) != 1 {
		t.Fatalf("%d time calls", len(calls))
	}
	q := calls[0].Query
	if q.Get("start_latitude") != "40.6413" || q.Get("start_longitude") != "-73.7781" || q.Has("end_latitude") || calls[0].Authorization != "Bearer "+token {
		t.Errorf("request %+v", calls[0])
	}
}

func TestETAsRefusals(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	c := newClient(t, fake.URL, token)
	ctx := context.Background()

	fake.SetTimes([]fakeproviders.UberTime{{DisplayName: "UberX", ProductID: "x", Estimate: fakeproviders.N("60.5")}})
	if _, err := c.ETAs(ctx, upstream.Request{Pickup: jfk, Dropoff: tsq}); upstream.KindOf(err) != upstream.Malformed {
		t.Errorf("fractional seconds: %v", err)
	}
	fake.SetTimeKnob(fakeproviders.EmptyObject)
	if _, err := c.ETAs(ctx, upstream.Request{Pickup: jfk, Dropoff: tsq}); upstream.KindOf(err) != upstream.Malformed {
		t.Errorf("no times[]: %v", err)
	}
	fake.SetTimeKnob(fakeproviders.RateLimited)
	if _, err := c.ETAs(ctx, upstream.Request{Pickup: jfk, Dropoff: tsq}); upstream.KindOf(err) != upstream.RateLimited {
		t.Errorf("429: %v", err)
	}
	none := newClient(t, fake.URL, "")
	n := len(fake.Calls())
	if _, err := none.ETAs(ctx, upstream.Request{Pickup: jfk, Dropoff: tsq}); upstream.KindOf(err) != upstream.NotConfigured || len(fake.Calls()) != n {
		t.Errorf("no token: %v, %d calls", err, len(fake.Calls())-n)
	}
}

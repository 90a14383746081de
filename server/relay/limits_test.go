package relay_test

import (
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

// A caller over its limit gets the rate_limited refusal with
// retry_after_seconds, over HTTP, before the tool runs; once the clock has
// earned a call back, it is served again.
func TestActorRateLimit(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)}
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}
	_, c := newRelay(t, relay.Options{Sources: map[string]sources.Source{"uber": uber}, Now: clock.Now,
		ActorLimit: limits.PerMinute(2), Limiter: limits.NewLocal(clock.Now)})
	args := map[string]any{"pickup": jfk, "dropoff": timesSquare}
	search(t, c, args)
	search(t, c, args)
	r := refusalOf(t, c, "search_rides", args)
	if r.Status != "rate_limited" || r.RetryAfterSeconds == nil || *r.RetryAfterSeconds != 30 {
		t.Fatalf("third call in a minute = %+v, want rate_limited with retry_after_seconds 30", r)
	}
	if n := uber.calls.Load(); n != 2 {
		t.Errorf("uber called %d times, want 2 (the limited call never reaches a source)", n)
	}
	clock.Add(30 * time.Second)
	search(t, c, args)
}

// A provider whose request budget is spent is not called: the search
// reports it rate_limited with retry_after_seconds in errors[], and the
// cool-down keeps it out of the next search too.
func TestProviderBudget(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)}
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}
	_, c := newRelay(t, relay.Options{Sources: map[string]sources.Source{"uber": uber}, Now: clock.Now,
		ProviderBudget: limits.PerMinute(1), Limiter: limits.NewLocal(clock.Now)})
	args := map[string]any{"pickup": jfk, "dropoff": timesSquare}
	if res := search(t, c, args); len(res.Options) == 0 {
		t.Fatalf("first search: no options: %+v", res)
	}
	res := search(t, c, args)
	if len(res.Errors) != 1 || res.Errors[0].Code != "rate_limited" || res.Errors[0].RetryAfterSeconds == nil || *res.Errors[0].RetryAfterSeconds != 60 {
		t.Fatalf("second search errors = %+v, want uber rate_limited with retry_after_seconds 60", res.Errors)
	}
	if st := statusOf(res, "uber"); st.Status != "rate_limited" || st.RetryAfterSeconds == nil || *st.RetryAfterSeconds != 60 {
		t.Errorf("second search: uber %+v, want rate_limited with retry_after_seconds 60", st)
	}
	for _, pc := range res.ProviderCalls {
		if pc.Provider == "uber" {
			t.Errorf("a provider over budget was called: %+v", pc)
		}
	}
	// Twenty seconds on, the cool-down has forty left, and says so.
	clock.Add(20 * time.Second)
	if st := statusOf(search(t, c, args), "uber"); st.Status != "rate_limited" || st.RetryAfterSeconds == nil || *st.RetryAfterSeconds != 40 {
		t.Errorf("third search: uber %+v, want rate_limited (cooling down) with retry_after_seconds 40", st)
	}
	if n := uber.calls.Load(); n != 1 {
		t.Errorf("uber called %d times, want 1", n)
	}
}

package limits_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/limits"
)

var ctx = context.Background()

// seedShaped is a policy with the numbers of Trident's preset (the
// specification's suggested caps), the shapes a real policy has: a rate
// with a concurrency cap, a rate per end user, a generous rate.
func seedShaped() limits.Policy {
	return limits.Policy{Tools: map[string]limits.Rule{
		"estimate_fare":    {PerMinute: 30, Concurrent: 2},
		"start_booking":    {PerMinute: 10, ByEndUser: true},
		"get_service_info": {PerMinute: 120},
	}}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestSeedEstimateFareRate(t *testing.T) {
	c := &clock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	l := limits.NewCallLimiter(seedShaped(), c.now)
	for i := range 30 {
		release, _, ok := l.Acquire(ctx, "estimate_fare", "a")
		if !ok {
			t.Fatalf("call %d refused within the burst of 30", i+1)
		}
		release()
	}
	_, retry, ok := l.Acquire(ctx, "estimate_fare", "a")
	if ok {
		t.Fatal("31st call in the same instant allowed")
	}
	if retry != 2*time.Second {
		t.Errorf("retryAfter = %v, want 2s (30/min refills one token every 2 s)", retry)
	}
	if _, _, ok := l.Acquire(ctx, "estimate_fare", "b"); !ok {
		t.Error("another client was refused: limits must be per client")
	}
	c.advance(2 * time.Second)
	if _, _, ok := l.Acquire(ctx, "estimate_fare", "a"); !ok {
		t.Error("call after Retry-After refused")
	}
}

func TestSeedEstimateFareConcurrency(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	l := limits.NewCallLimiter(seedShaped(), c.now)
	r1, _, ok1 := l.Acquire(ctx, "estimate_fare", "a")
	r2, _, ok2 := l.Acquire(ctx, "estimate_fare", "a")
	if !ok1 || !ok2 {
		t.Fatal("two concurrent calls must be allowed")
	}
	if _, retry, ok := l.Acquire(ctx, "estimate_fare", "a"); ok || retry != time.Second {
		t.Fatalf("third concurrent call: ok=%v retry=%v, want refused with 1s", ok, retry)
	}
	r1()
	r1() // releasing twice must not free a second slot
	if _, _, ok := l.Acquire(ctx, "estimate_fare", "a"); !ok {
		t.Fatal("call after a release refused")
	}
	if _, _, ok := l.Acquire(ctx, "estimate_fare", "a"); ok {
		t.Fatal("double release freed two slots")
	}
	r2()
}

func TestSeedStartBookingAndUnlimited(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	l := limits.NewCallLimiter(seedShaped(), c.now)
	for i := range 10 {
		if _, _, ok := l.Acquire(ctx, "start_booking", "user:1"); !ok {
			t.Fatalf("booking %d refused", i+1)
		}
	}
	if _, retry, ok := l.Acquire(ctx, "start_booking", "user:1"); ok || retry != 6*time.Second {
		t.Fatalf("11th booking: ok=%v retry=%v, want refused with 6s", ok, retry)
	}
	if r, _ := l.Rule("start_booking"); !r.ByEndUser {
		t.Error("start_booking must be keyed per end user")
	}
	for range 1000 {
		if _, _, ok := l.Acquire(ctx, "ping", "user:1"); !ok {
			t.Fatal("a method without a rule was limited")
		}
	}
}

func TestEviction(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	l := limits.NewCallLimiter(seedShaped(), c.now)
	release, _, _ := l.Acquire(ctx, "estimate_fare", "busy")
	releaseIdle, _, _ := l.Acquire(ctx, "get_service_info", "idle")
	releaseIdle()
	c.advance(10 * time.Minute)
	l.Acquire(ctx, "get_service_info", "new")
	if got := l.Len(); got != 2 {
		t.Errorf("entries after sweep = %d, want 2 (busy kept while in flight, idle evicted, new added)", got)
	}
	release()
}

// TestSharedRates: two limiters (two replicas) over one shared store spend
// one budget, while each holds its own concurrency slots.
func TestSharedRates(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	p := seedShaped()
	p.Shared = limits.NewLocal(c.now) // stands in for Redis: one store, two replicas
	a, b := limits.NewCallLimiter(p, c.now), limits.NewCallLimiter(p, c.now)
	for i := range 10 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if _, _, ok := l.Acquire(ctx, "start_booking", "user:1"); !ok {
			t.Fatalf("booking %d refused within the shared 10", i+1)
		}
	}
	for name, l := range map[string]*limits.CallLimiter{"a": a, "b": b} {
		if _, retry, ok := l.Acquire(ctx, "start_booking", "user:1"); ok || retry != 6*time.Second {
			t.Errorf("replica %s, 11th booking: ok=%v retry=%v, want refused with 6s", name, ok, retry)
		}
	}
	ra, _, _ := a.Acquire(ctx, "estimate_fare", "ip:1")
	a.Acquire(ctx, "estimate_fare", "ip:1")
	if _, _, ok := b.Acquire(ctx, "estimate_fare", "ip:1"); !ok {
		t.Error("replica b refused a call because replica a has two in flight: concurrency is per replica")
	}
	ra()
}

type brokenStore struct{}

func (brokenStore) Allow(context.Context, string, limits.Limit) (limits.Decision, error) {
	return limits.Decision{}, errors.New("redis: connection refused")
}

// TestSharedErrorLetsCallsThrough: when the shared store cannot decide,
// the call goes through and the error is reported.
func TestSharedErrorLetsCallsThrough(t *testing.T) {
	var heard []error
	p := seedShaped()
	p.Shared, p.OnSharedError = brokenStore{}, func(err error) { heard = append(heard, err) }
	l := limits.NewCallLimiter(p, nil)
	for range 50 {
		release, _, ok := l.Acquire(ctx, "start_booking", "user:1")
		if !ok {
			t.Fatal("a call was refused because the shared store failed")
		}
		release()
	}
	if len(heard) != 50 {
		t.Errorf("OnSharedError heard %d errors, want 50", len(heard))
	}
}

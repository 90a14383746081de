package ratelimit_test

import (
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/ratelimit"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestSeedEstimateFareRate(t *testing.T) {
	c := &clock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	l := ratelimit.New(ratelimit.SeedPolicy(), c.now)
	for i := range 30 {
		release, _, ok := l.Acquire("estimate_fare", "a")
		if !ok {
			t.Fatalf("call %d refused within the burst of 30", i+1)
		}
		release()
	}
	_, retry, ok := l.Acquire("estimate_fare", "a")
	if ok {
		t.Fatal("31st call in the same instant allowed")
	}
	if retry != 2*time.Second {
		t.Errorf("retryAfter = %v, want 2s (30/min refills one token every 2 s)", retry)
	}
	if _, _, ok := l.Acquire("estimate_fare", "b"); !ok {
		t.Error("another client was refused: limits must be per client")
	}
	c.advance(2 * time.Second)
	if _, _, ok := l.Acquire("estimate_fare", "a"); !ok {
		t.Error("call after Retry-After refused")
	}
}

func TestSeedEstimateFareConcurrency(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	l := ratelimit.New(ratelimit.SeedPolicy(), c.now)
	r1, _, ok1 := l.Acquire("estimate_fare", "a")
	r2, _, ok2 := l.Acquire("estimate_fare", "a")
	if !ok1 || !ok2 {
		t.Fatal("two concurrent calls must be allowed")
	}
	if _, retry, ok := l.Acquire("estimate_fare", "a"); ok || retry != time.Second {
		t.Fatalf("third concurrent call: ok=%v retry=%v, want refused with 1s", ok, retry)
	}
	r1()
	r1() // releasing twice must not free a second slot
	if _, _, ok := l.Acquire("estimate_fare", "a"); !ok {
		t.Fatal("call after a release refused")
	}
	if _, _, ok := l.Acquire("estimate_fare", "a"); ok {
		t.Fatal("double release freed two slots")
	}
	r2()
}

func TestSeedStartBookingAndUnlimited(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	l := ratelimit.New(ratelimit.SeedPolicy(), c.now)
	for i := range 10 {
		if _, _, ok := l.Acquire("start_booking", "user:1"); !ok {
			t.Fatalf("booking %d refused", i+1)
		}
	}
	if _, retry, ok := l.Acquire("start_booking", "user:1"); ok || retry != 6*time.Second {
		t.Fatalf("11th booking: ok=%v retry=%v, want refused with 6s", ok, retry)
	}
	if r, _ := l.Rule("start_booking"); !r.ByEndUser {
		t.Error("start_booking must be keyed per end user")
	}
	for range 1000 {
		if _, _, ok := l.Acquire("ping", "user:1"); !ok {
			t.Fatal("a method without a rule was limited")
		}
	}
}

func TestEviction(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	l := ratelimit.New(ratelimit.SeedPolicy(), c.now)
	release, _, _ := l.Acquire("estimate_fare", "busy")
	releaseIdle, _, _ := l.Acquire("get_service_info", "idle")
	releaseIdle()
	c.advance(10 * time.Minute)
	l.Acquire("get_service_info", "new")
	if got := l.Len(); got != 2 {
		t.Errorf("entries after sweep = %d, want 2 (busy kept while in flight, idle evicted, new added)", got)
	}
	release()
}

package limits

import (
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestLocalRefills: with the clock stepped rather than slept, a spent bucket
// earns one event per interval, exactly when RetryAfter said.
func TestLocalRefills(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	lim := NewLocal(c.now)
	l := PerMinute(2) // one every 30s
	lim.Allow(bg, "k", l)
	lim.Allow(bg, "k", l)
	d, _ := lim.Allow(bg, "k", l)
	if d.Allowed || d.RetryAfter != 30*time.Second {
		t.Fatalf("spent: %+v, want refused for 30s", d)
	}
	c.advance(29 * time.Second)
	if d, _ := lim.Allow(bg, "k", l); d.Allowed || d.RetryAfter != time.Second {
		t.Fatalf("29s later: %+v, want refused for 1s more", d)
	}
	c.advance(time.Second)
	if d, _ := lim.Allow(bg, "k", l); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("30s later: %+v, want one allowed, none remaining", d)
	}
	c.advance(time.Hour)
	if d, _ := lim.Allow(bg, "k", l); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after an hour: %+v, want a full burst again (1 remaining after this)", d)
	}
}

// TestLocalForgetsIdleKeys: buckets that have refilled are dropped, so
// memory follows the keys active recently, and dropping changes nothing.
func TestLocalForgetsIdleKeys(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	lim := NewLocal(c.now)
	for _, k := range []string{"a", "b", "c"} {
		lim.Allow(bg, k, PerSecond(1))
	}
	lim.Allow(bg, "slow", PerHour(1))
	c.advance(2 * time.Minute)
	lim.Allow(bg, "d", PerSecond(1))
	if _, kept := lim.buckets["slow"]; len(lim.buckets) != 2 || !kept {
		t.Errorf("after 2 idle minutes: buckets %v, want only the hourly one and the new one", keys(lim.buckets))
	}
	if d, _ := lim.Allow(bg, "slow", PerHour(1)); d.Allowed {
		t.Errorf("the kept hourly bucket forgot its spend: %+v", d)
	}
}

// TestLocalLimitChange: a key whose limit changes keeps what it spent.
func TestLocalLimitChange(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	lim := NewLocal(c.now)
	for range 3 {
		lim.Allow(bg, "k", PerHour(3))
	}
	if d, _ := lim.Allow(bg, "k", PerHour(4)); d.Allowed {
		t.Errorf("raised limit after a spent burst: %+v, want still refused (the burst grows, the spend stays)", d)
	}
}

func keys(m map[string]*bucket) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

package ratelimit

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rule caps one tool's calls for one client.
type Rule struct {
	// PerMinute is the sustained rate. Zero: no rate cap.
	PerMinute int
	// Burst is how many calls a quiet client may make at once.
	// Zero: PerMinute.
	Burst int
	// Concurrent caps calls in flight at once. Zero: no cap.
	Concurrent int
	// ByEndUser keys the rule on the authenticated end user rather than the
	// client (the specification's start_booking cap is "per end user"). The server
	// falls back to the client when the caller is anonymous.
	ByEndUser bool
}

// Policy maps tool names to rules. Tools without a rule are not limited.
type Policy struct {
	Tools map[string]Rule
}

// SeedPolicy is the specification's "Recommended client behavior" table made into
// server-side caps: estimate_fare ≤30/min and ≤2 concurrent, start_booking
// ≤10/min per end user, get_service_info generous (120/min: the specification asks
// clients to cache it for a day, so this only stops a runaway loop).
func SeedPolicy() Policy {
	return Policy{Tools: map[string]Rule{
		"estimate_fare":    {PerMinute: 30, Concurrent: 2},
		"start_booking":    {PerMinute: 10, ByEndUser: true},
		"get_service_info": {PerMinute: 120},
	}}
}

// idleEvict is how long an unused client entry is kept. Every bucket of the
// SeedPolicy refills within a minute, so an entry idle this long holds the
// same state as a new one and forgetting it changes nothing.
const idleEvict = 5 * time.Minute

// Limiter applies a [Policy]. It is safe for concurrent use.
type Limiter struct {
	policy Policy
	now    func() time.Time

	mu        sync.Mutex
	entries   map[entryKey]*entry
	lastSweep time.Time
}

type entryKey struct{ tool, client string }

type entry struct {
	bucket   *rate.Limiter // nil when the rule has no rate
	inflight int
	lastSeen time.Time
}

// New returns a limiter for p reading time from now (time.Now if nil).
func New(p Policy, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{policy: p, now: now, entries: make(map[entryKey]*entry)}
}

// Rule returns the rule for tool, if the policy has one.
func (l *Limiter) Rule(tool string) (Rule, bool) {
	r, ok := l.policy.Tools[tool]
	return r, ok
}

// Acquire asks to start one call of tool for client (an opaque key such as
// "ip:203.0.113.9" or "user:<sub>"). When ok, the call may run and release
// must be called when it ends (it is safe to call more than once). When not
// ok, retryAfter says when a retry may succeed (at least one second).
func (l *Limiter) Acquire(tool, client string) (release func(), retryAfter time.Duration, ok bool) {
	rule, limited := l.policy.Tools[tool]
	if !limited {
		return func() {}, 0, true
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	k := entryKey{tool, client}
	e := l.entries[k]
	if e == nil {
		e = &entry{}
		if rule.PerMinute > 0 {
			burst := rule.Burst
			if burst <= 0 {
				burst = rule.PerMinute
			}
			e.bucket = rate.NewLimiter(rate.Limit(float64(rule.PerMinute)/60), burst)
		}
		l.entries[k] = e
	}
	e.lastSeen = now
	// Concurrency first, so a refused call does not spend a token.
	if rule.Concurrent > 0 && e.inflight >= rule.Concurrent {
		return nil, time.Second, false
	}
	if e.bucket != nil {
		r := e.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); !r.OK() || d > 0 {
			r.CancelAt(now)
			return nil, roundUpSecond(d), false
		}
	}
	e.inflight++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			e.inflight--
			e.lastSeen = l.now()
			l.mu.Unlock()
		})
	}, 0, true
}

// Len reports how many client entries are held (for tests of eviction).
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *Limiter) sweepLocked(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for k, e := range l.entries {
		if e.inflight == 0 && now.Sub(e.lastSeen) >= idleEvict {
			delete(l.entries, k)
		}
	}
}

// roundUpSecond turns a wait into whole seconds for Retry-After, at least 1.
func roundUpSecond(d time.Duration) time.Duration {
	s := math.Ceil(d.Seconds())
	if s < 1 {
		s = 1
	}
	return time.Duration(s) * time.Second
}

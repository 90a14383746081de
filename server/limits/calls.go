package limits

import (
	"context"
	"sync"
	"time"
)

// Rule caps one tool's calls for one client: the per-client limit the front
// door applies to an endpoint's tools ([CallLimiter]).
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

// Policy maps tool names to rules. Tools without a rule are not limited. An
// endpoint names its own (Trident's is the specification's suggested caps)
// and hands it to the front door in its mcphttp.Endpoint.
type Policy struct {
	Tools map[string]Rule

	// Shared counts the rates in a limiter every replica of the server
	// shares ([Redis], when REDIS_URL is set), so a client's rate
	// cap holds whichever replica it reaches. Concurrency caps stay per
	// replica: a call in flight is held by the process serving it. Zero:
	// rates are counted in this process. Shared bounds its own decisions:
	// the Redis client of [Connect] gives each call REDIS_TIMEOUT,
	// the one place that budget is kept, and a decision not made in time
	// is an error, which lets the call through.
	Shared Limiter

	// OnSharedError hears each time Shared could not decide (Redis
	// unreachable, too slow). The call is then let through: the limiter
	// guards the tools, and an outage of the limiter must not become an
	// outage of the tools. Zero: errors are dropped.
	OnSharedError func(error)
}

// idleEvict is how long an unused concurrency entry is kept. An entry with
// nothing in flight holds the same state as a new one, so forgetting it
// changes nothing; the delay only spares the map churn.
const idleEvict = 5 * time.Minute

// CallLimiter applies a [Policy] to tool calls: a concurrency cap counted in
// this process and a rate counted by a [Limiter]. It is safe for concurrent
// use.
type CallLimiter struct {
	policy Policy
	now    func() time.Time
	rates  Limiter // Policy.Shared, or an in-process one

	mu        sync.Mutex
	entries   map[entryKey]*entry // calls in flight, per tool and client
	lastSweep time.Time
}

type entryKey struct{ tool, client string }

type entry struct {
	inflight int
	lastSeen time.Time
}

// NewCallLimiter returns a limiter for p reading time from now (time.Now if
// nil); the in-process rate counts read the same clock.
func NewCallLimiter(p Policy, now func() time.Time) *CallLimiter {
	if now == nil {
		now = time.Now
	}
	l := &CallLimiter{policy: p, now: now, rates: p.Shared, entries: make(map[entryKey]*entry)}
	if l.rates == nil {
		l.rates = NewLocal(now)
	}
	return l
}

// Rule returns the rule for tool, if the policy has one.
func (l *CallLimiter) Rule(tool string) (Rule, bool) {
	r, ok := l.policy.Tools[tool]
	return r, ok
}

// Acquire asks to start one call of tool for client (an opaque key such as
// "ip:203.0.113.9" or "user:<sub>"). When ok, the call may run and release
// must be called when it ends (it is safe to call more than once). When not
// ok, retryAfter says when a retry may succeed (whole seconds, at least
// one). ctx bounds the shared limiter's decision.
func (l *CallLimiter) Acquire(ctx context.Context, tool, client string) (release func(), retryAfter time.Duration, ok bool) {
	rule, limited := l.policy.Tools[tool]
	if !limited {
		return func() {}, 0, true
	}
	// Concurrency first, so a refused call does not spend a token; the
	// slot is held while the rate is decided, and given back if refused.
	e, ok := l.enter(tool, client, rule)
	if !ok {
		return nil, time.Second, false
	}
	var once sync.Once
	release = func() { once.Do(func() { l.leave(e) }) }
	if rule.PerMinute > 0 {
		lim := Limit{Rate: rule.PerMinute, Period: time.Minute, Burst: rule.Burst}
		d, err := l.rates.Allow(ctx, tool+":"+client, lim)
		switch {
		case err != nil:
			if l.policy.OnSharedError != nil {
				l.policy.OnSharedError(err)
			}
		case !d.Allowed:
			release()
			return nil, time.Duration(RetryAfterSeconds(d.RetryAfter)) * time.Second, false
		}
	}
	return release, 0, true
}

// enter takes one concurrency slot of rule, if it has a free one.
func (l *CallLimiter) enter(tool, client string, rule Rule) (*entry, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	k := entryKey{tool, client}
	e := l.entries[k]
	if e == nil {
		e = &entry{}
		l.entries[k] = e
	}
	e.lastSeen = now
	if rule.Concurrent > 0 && e.inflight >= rule.Concurrent {
		return nil, false
	}
	e.inflight++
	return e, true
}

func (l *CallLimiter) leave(e *entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.inflight--
	e.lastSeen = l.now()
}

// Len reports how many client entries are held (for tests of eviction).
func (l *CallLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *CallLimiter) sweepLocked(now time.Time) {
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

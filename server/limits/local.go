package limits

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Local is the in-process [Limiter]: a token bucket per key from
// golang.org/x/time/rate. It is the default (no REDIS_URL); each replica
// then limits on its own.
type Local struct {
	now func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	full time.Duration // how long an idle bucket takes to refill completely
	used time.Time
}

// sweepEvery is how often Allow looks for buckets to forget.
const sweepEvery = time.Minute

// NewLocal returns an in-process limiter reading time from now (nil:
// time.Now), so tests step the clock instead of sleeping.
func NewLocal(now func() time.Time) *Local {
	if now == nil {
		now = time.Now
	}
	return &Local{now: now, buckets: map[string]*bucket{}}
}

// Allow implements [Limiter].
func (l *Local) Allow(_ context.Context, key string, limit Limit) (Decision, error) {
	if err := limit.check(); err != nil {
		return Decision{}, err
	}
	now := l.now()
	every, burst := rate.Every(limit.interval()), limit.burst()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(every, burst)}
		l.buckets[key] = b
	} else if b.lim.Limit() != every || b.lim.Burst() != burst {
		// The key's limit changed (a new policy): keep what was spent.
		b.lim.SetLimitAt(now, every)
		b.lim.SetBurstAt(now, burst)
	}
	b.used, b.full = now, limit.interval()*time.Duration(burst)
	if tokens := b.lim.TokensAt(now); tokens < 1 {
		wait := time.Duration(math.Ceil((1 - tokens) * float64(limit.interval())))
		return Decision{RetryAfter: wait}, nil
	}
	b.lim.AllowN(now, 1)
	return Decision{Allowed: true, Remaining: int(math.Floor(b.lim.TokensAt(now)))}, nil
}

// sweep forgets buckets idle long enough to have refilled: such a bucket is
// the same as a new one, so forgetting it changes no decision and keeps
// memory bounded by the keys active recently.
func (l *Local) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < sweepEvery {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.used) >= b.full {
			delete(l.buckets, k)
		}
	}
}

package limits

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limiter decides whether one more event may happen under key now.
// Implementations are safe for concurrent use.
type Limiter interface {
	// Allow spends one event of limit under key, or refuses it and says
	// when the next would be allowed. An error means the limiter could not
	// decide (Redis unreachable, an invalid limit): the caller chooses to
	// fail open or closed, and should log it.
	Allow(ctx context.Context, key string, limit Limit) (Decision, error)
}

// Limit is Rate events per Period, with up to Burst of them at once after
// a quiet spell. Both implementations read it the same way (GCRA and a
// token bucket agree): one event is earned every Period/Rate, and at most
// Burst are banked.
type Limit struct {
	Rate   int
	Period time.Duration
	// Burst: zero means Rate.
	Burst int
}

// PerSecond is n events a second, n at once.
func PerSecond(n int) Limit { return Limit{Rate: n, Period: time.Second} }

// PerMinute is n events a minute, n at once.
func PerMinute(n int) Limit { return Limit{Rate: n, Period: time.Minute} }

// PerHour is n events an hour, n at once.
func PerHour(n int) Limit { return Limit{Rate: n, Period: time.Hour} }

func (l Limit) burst() int {
	if l.Burst == 0 {
		return l.Rate
	}
	return l.Burst
}

// interval is the time it takes to earn one event.
func (l Limit) interval() time.Duration { return l.Period / time.Duration(l.Rate) }

// ErrInvalidLimit: a Limit with no rate, no period or a negative burst.
var ErrInvalidLimit = errors.New("limits: invalid limit")

func (l Limit) check() error {
	if l.Rate <= 0 || l.Period <= 0 || l.Burst < 0 || l.interval() <= 0 {
		return fmt.Errorf("%w: %d per %v, burst %d", ErrInvalidLimit, l.Rate, l.Period, l.Burst)
	}
	return nil
}

// Decision is what [Limiter.Allow] answered.
type Decision struct {
	// Allowed: the event may happen (and has been counted).
	Allowed bool
	// RetryAfter is how long until one event would be allowed: zero when
	// Allowed. Answer it as HTTP Retry-After, rounded up to whole seconds
	// (see [RetryAfterSeconds]).
	RetryAfter time.Duration
	// Remaining is how many more events would be allowed at once now.
	Remaining int
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1, for a
// Retry-After header or retry_after_seconds: rounding down would invite a
// retry that is refused again.
func RetryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		return 1
	}
	return s
}

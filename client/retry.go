package client

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy is the specification's backoff strategy: full-jitter exponential
// backoff on transient failures, Retry-After honoured verbatim.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 1 turns retries off. Zero means 3.
	MaxAttempts int
	// BaseDelay is the ceiling of the first wait; each later ceiling
	// doubles (1 s, 2 s, 4 s). Zero means 1 s.
	BaseDelay time.Duration
	// MaxDelay caps the ceiling. Zero means 8 s, the specification's cap.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a
	// longer one ends the call with the [TransportError], whose RetryAfter
	// tells the caller when to come back. Zero means 60 s.
	MaxRetryAfter time.Duration
	// Jitter picks the wait in [0, ceiling]. Nil means uniformly at random
	// ("full jitter"); tests pass a fixed function.
	Jitter func(ceiling time.Duration) time.Duration
}

// DefaultRetryPolicy is 3 attempts, waits drawn from [0,1 s] then [0,2 s].
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: 8 * time.Second, MaxRetryAfter: time.Minute}
}

func (p RetryPolicy) attempts() int {
	if p.MaxAttempts <= 0 {
		return 3
	}
	return p.MaxAttempts
}

// delay returns the wait before attempt+1, after attempt (1-based) failed.
// retryAfter, when positive, is used as is: "honor it verbatim". ok is false
// when the server asked for longer than MaxRetryAfter.
func (p RetryPolicy) delay(attempt int, retryAfter time.Duration) (d time.Duration, ok bool) {
	if retryAfter > 0 {
		limit := p.MaxRetryAfter
		if limit <= 0 {
			limit = time.Minute
		}
		return retryAfter, retryAfter <= limit
	}
	base, maxd := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = time.Second
	}
	if maxd <= 0 {
		maxd = 8 * time.Second
	}
	ceiling := base
	for i := 1; i < attempt && ceiling < maxd; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, maxd)
	if p.Jitter != nil {
		return p.Jitter(ceiling), true
	}
	return rand.N(ceiling + 1), true
}

// parseRetryAfter reads Retry-After as delay-seconds or an HTTP date
// (RFC 9110 §10.2.3). A date in the past means "now", which is no wait at
// all, and is reported as 0 so the normal backoff applies.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

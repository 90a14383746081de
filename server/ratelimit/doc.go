// Package ratelimit is the optional per-client limiter in front of the tools.
//
// The specification's endpoint enforces no limit yet; it publishes suggested caps
// (estimate_fare at most 30 a minute and 2 at once, start_booking at most 10
// a minute per end user, get_service_info cached by clients) and promises
// that a real limiter will answer HTTP 429 with Retry-After. [SeedPolicy]
// holds those caps; the server turns the limiter on with RATE_LIMIT=seed and
// leaves it off by default.
//
// Rates are counted by [limits.Limiter]: a rule of N per minute lets a
// quiet client send N at once and then N a minute. By default the counts
// are in process ([limits.Local], token buckets from golang.org/x/time/rate),
// so each replica limits on its own; with [Policy.Shared] (the server sets
// it to [limits.Redis] when REDIS_URL is set) every replica spends one
// budget, so the caps hold whichever replica a client reaches. Concurrency
// caps count calls in flight in this process. Time is read from an
// injected clock, so tests never sleep.
//
//	l := ratelimit.New(ratelimit.SeedPolicy(), time.Now)
//	release, retryAfter, ok := l.Acquire(ctx, "estimate_fare", "ip:203.0.113.9")
//	if !ok {
//		// answer 429 with Retry-After: retryAfter, rounded up to seconds
//	}
//	defer release()
package ratelimit

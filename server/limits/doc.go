// Package limits is every limit the server keeps, for any endpoint: the
// per-client caps the front door puts on an endpoint's tools
// ([CallLimiter], applying an endpoint's [Policy]), and the counters an
// endpoint spends itself (Relay's per-actor limits and per-provider request
// budgets) through one [Limiter] interface, answered in process by [Local]
// (the default) or across replicas by [Redis] (REDIS_URL set), so that a
// client limited on one replica is limited on the others; and the
// cool-downs an endpoint keeps itself ([Cooldowns]: keys left alone until a
// wait passes, such as an upstream that answered 429 with Retry-After), in
// process ([LocalCooldowns]) or across replicas ([RedisCooldowns]).
// [Connect] opens the one Redis client a process shares, with every call
// bounded.
//
//	lim := limits.NewLocal(time.Now) // or limits.NewRedis(client, "relay:")
//	d, err := lim.Allow(ctx, "actor:"+actor, limits.PerMinute(30))
//	if err == nil && !d.Allowed {
//		// 429 with Retry-After: limits.RetryAfterSeconds(d.RetryAfter)
//	}
//
//	cool := limits.NewRedisCooldowns(client, "relay:cooldown:", time.Now)
//	_ = cool.Hold(ctx, "uber", retryAfter) // an error: kept in process only; log it
//	if wait, _ := cool.Remaining(ctx, "uber"); wait > 0 {
//		// leave it alone for wait
//	}
//
//	calls := limits.NewCallLimiter(policy, time.Now)
//	release, retryAfter, ok := calls.Acquire(ctx, "estimate_fare", "ip:203.0.113.9")
//
// A [Policy]'s rates are counted by a [Limiter]: a rule of N per minute lets
// a quiet client send N at once and then N a minute; with [Policy.Shared]
// every replica spends one budget. Concurrency caps count calls in flight
// in this process. Time is read from an injected clock, so tests never
// sleep.
//
// Keys are the caller's ("actor:…", "provider:uber"); a key should always be
// used with the same [Limit].
package limits

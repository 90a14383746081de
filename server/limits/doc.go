// Package limits is the rate limiter Relay's per-actor limits and
// per-provider request budgets use, and that Trident's limiter can share
// across replicas: one [Limiter] interface, answered in process by [Local]
// (the default) or across replicas by [Redis] (REDIS_URL set), so that a
// client limited on one replica is limited on the others.
//
//	lim, closeLim, err := limits.Open(ctx, os.Getenv("REDIS_URL"), "relay:")
//	if err != nil { … }
//	defer closeLim()
//	d, err := lim.Allow(ctx, "actor:"+actor, limits.PerMinute(30))
//	if err == nil && !d.Allowed {
//		// 429 with Retry-After: limits.RetryAfterSeconds(d.RetryAfter)
//	}
//
// Keys are the caller's ("actor:…", "provider:uber"); a key should always be
// used with the same [Limit].
package limits

package relay

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// cooldownStore remembers providers that answered 429 (or whose request
// budget is spent) until their Retry-After passes, so that Relay does not
// ask them again meanwhile: a search reports such a provider rate_limited
// and resolve_ride refuses its options, without calling it.
type cooldownStore interface {
	// hold puts provider in cool-down for wait from now, unless it already
	// cools down for longer.
	hold(ctx context.Context, provider string, wait time.Duration)
	// remaining is how long provider still cools down (0: not at all).
	remaining(ctx context.Context, provider string) time.Duration
}

// newCooldowns is the in-process store, or, with a Redis client, the one
// every replica shares.
func newCooldowns(o *Options, now func() time.Time, log *slog.Logger) cooldownStore {
	local := &localCooldowns{now: now}
	if o.Redis == nil {
		return local
	}
	return &redisCooldowns{rdb: o.Redis, prefix: o.RedisPrefix + "cooldown:", local: local, log: log}
}

// localCooldowns is the in-process store (no REDIS_URL): each replica
// keeps its own cool-downs, on the server's clock.
type localCooldowns struct {
	now   func() time.Time
	mu    sync.Mutex
	until map[string]time.Time
}

func (c *localCooldowns) hold(_ context.Context, provider string, wait time.Duration) {
	until := c.now().Add(wait)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.until == nil {
		c.until = map[string]time.Time{}
	}
	if until.After(c.until[provider]) {
		c.until[provider] = until
	}
}

func (c *localCooldowns) remaining(_ context.Context, provider string) time.Duration {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.until[provider].Sub(now); d > 0 {
		return d
	}
	return 0
}

// redisCooldowns keeps each cool-down in Redis as a key that expires when
// it ends (prefix + provider, PX the wait), so that a provider that
// answered 429 to one replica is left alone by all of them, and the
// remaining time is the Redis server's, whatever the replicas' clocks say.
// It keeps the local store too: Redis failing or hanging (logged; the
// client bounds each call by REDIS_TIMEOUT, limits.Connect) must not take Relay
// down, nor make this replica forget what it saw, so an error falls back to
// the local answer, and the longer of the two wins.
type redisCooldowns struct {
	rdb    redis.UniversalClient
	prefix string
	local  *localCooldowns
	log    *slog.Logger
}

// holdScript sets the key for ARGV[1] milliseconds unless it already lives
// longer: one script, so two replicas holding at once keep the longest.
var holdScript = redis.NewScript(`
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
  return 1
end
return 0`)

func (c *redisCooldowns) hold(ctx context.Context, provider string, wait time.Duration) {
	c.local.hold(ctx, provider, wait)
	ms := max(wait.Milliseconds(), 1)
	if err := holdScript.Run(ctx, c.rdb, []string{c.prefix + provider}, ms).Err(); err != nil {
		c.log.Log(ctx, unavailableLevel(err), "relay: cool-down store unavailable; this replica alone holds the cool-down", "provider", provider, "error", err.Error())
	}
}

func (c *redisCooldowns) remaining(ctx context.Context, provider string) time.Duration {
	local := c.local.remaining(ctx, provider)
	ttl, err := c.rdb.PTTL(ctx, c.prefix+provider).Result()
	if err != nil {
		c.log.Log(ctx, unavailableLevel(err), "relay: cool-down store unavailable; answering from this replica's own", "provider", provider, "error", err.Error())
		return local
	}
	// PTTL's -2 (no key) and -1 (no expiry, never written so) are no
	// cool-down.
	return max(ttl, local, 0)
}

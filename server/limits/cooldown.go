package limits

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cooldowns remember keys to leave alone until a wait passes: an upstream
// that answered 429 with Retry-After, a budget spent until it refills. A
// caller holds a key when it learns of the wait and asks how long remains
// before it calls again, so that nothing knocks on that door meanwhile.
// Implementations are safe for concurrent use.
type Cooldowns interface {
	// Hold puts key in cool-down for wait from now, unless it already
	// cools down for longer. An error means the hold was kept in this
	// process only (Redis did not take it); the caller should log it.
	Hold(ctx context.Context, key string, wait time.Duration) error
	// Remaining is how long key still cools down (0: not at all). With an
	// error the answer is this process's own (Redis did not answer): still
	// an answer to act on, and the caller should log the error.
	Remaining(ctx context.Context, key string) (time.Duration, error)
}

// LocalCooldowns is the in-process [Cooldowns] (no REDIS_URL): each replica
// keeps its own, on its own clock.
type LocalCooldowns struct {
	now   func() time.Time
	mu    sync.Mutex
	until map[string]time.Time
}

// NewLocalCooldowns keeps cool-downs in this process, reading time from now
// (nil: time.Now), so tests step the clock instead of sleeping.
func NewLocalCooldowns(now func() time.Time) *LocalCooldowns {
	if now == nil {
		now = time.Now
	}
	return &LocalCooldowns{now: now, until: map[string]time.Time{}}
}

// Hold implements [Cooldowns]; it never fails.
func (c *LocalCooldowns) Hold(_ context.Context, key string, wait time.Duration) error {
	until := c.now().Add(wait)
	c.mu.Lock()
	defer c.mu.Unlock()
	if until.After(c.until[key]) {
		c.until[key] = until
	}
	return nil
}

// Remaining implements [Cooldowns]; it never fails.
func (c *LocalCooldowns) Remaining(_ context.Context, key string) (time.Duration, error) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.until[key].Sub(now); d > 0 {
		return d, nil
	}
	return 0, nil
}

// RedisCooldowns keep each cool-down in Redis as a key that expires when it
// ends (prefix + key, PX the wait), so that what one replica learnt every
// replica honours, and the time remaining is the Redis server's, whatever
// the replicas' clocks say. They keep a [LocalCooldowns] too: Redis failing
// or hanging (give a client from [Connect], whose calls are bounded by
// REDIS_TIMEOUT) must neither fail the caller nor make this replica forget
// what it saw, so an error falls back to the local answer, and otherwise
// the longer of the two wins.
type RedisCooldowns struct {
	rdb    redis.UniversalClient
	prefix string
	local  *LocalCooldowns
}

// NewRedisCooldowns keeps cool-downs in client under prefix (e.g.
// "trident-mcp:relay:cooldown:"), and in this process on now's clock (nil:
// time.Now). The caller owns client.
func NewRedisCooldowns(client redis.UniversalClient, prefix string, now func() time.Time) *RedisCooldowns {
	return &RedisCooldowns{rdb: client, prefix: prefix, local: NewLocalCooldowns(now)}
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

// Hold implements [Cooldowns].
func (c *RedisCooldowns) Hold(ctx context.Context, key string, wait time.Duration) error {
	_ = c.local.Hold(ctx, key, wait)
	ms := max(wait.Milliseconds(), 1)
	if err := holdScript.Run(ctx, c.rdb, []string{c.prefix + key}, ms).Err(); err != nil {
		return fmt.Errorf("limits: redis: %w", err)
	}
	return nil
}

// Remaining implements [Cooldowns].
func (c *RedisCooldowns) Remaining(ctx context.Context, key string) (time.Duration, error) {
	local, _ := c.local.Remaining(ctx, key)
	ttl, err := c.rdb.PTTL(ctx, c.prefix+key).Result()
	if err != nil {
		return local, fmt.Errorf("limits: redis: %w", err)
	}
	// PTTL's -2 (no key) and -1 (no expiry, never written so) are no
	// cool-down.
	return max(ttl, local, 0), nil
}

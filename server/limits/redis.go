package limits

import (
	"context"
	"fmt"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis is the [Limiter] shared across replicas (REDIS_URL set): the GCRA
// of github.com/go-redis/redis_rate, one Lua script per decision, so a check
// and its spend are atomic however many replicas ask at once, and time is
// the Redis server's clock, so replicas with skewed clocks still agree.
// Keys are stored as "rate:" + prefix + key.
type Redis struct {
	lim    *redis_rate.Limiter
	prefix string
}

// NewRedis limits through client. prefix keeps one deployment's keys apart
// from another's on a shared Redis (e.g. "trident:"). The caller owns client.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{lim: redis_rate.NewLimiter(client), prefix: prefix}
}

// Allow implements [Limiter].
func (r *Redis) Allow(ctx context.Context, key string, limit Limit) (Decision, error) {
	if err := limit.check(); err != nil {
		return Decision{}, err
	}
	res, err := r.lim.Allow(ctx, r.prefix+key, redis_rate.Limit{Rate: limit.Rate, Period: limit.Period, Burst: limit.burst()})
	if err != nil {
		return Decision{}, fmt.Errorf("limits: redis: %w", err)
	}
	d := Decision{Allowed: res.Allowed > 0, Remaining: res.Remaining}
	if !d.Allowed && res.RetryAfter > 0 {
		d.RetryAfter = res.RetryAfter
	}
	return d, nil
}

// Open returns the limiter REDIS_URL selects: with redisURL empty, a [Local]
// one; otherwise a [Redis] one over a new client from [Connect]. closeFn
// releases the client (a no-op for Local): call it at shutdown. A process
// with several limiters on one Redis opens the client once with Connect and
// hands it to [NewRedis] under each prefix instead.
func Open(ctx context.Context, redisURL, prefix string) (lim Limiter, closeFn func() error, err error) {
	if redisURL == "" {
		return NewLocal(nil), func() error { return nil }, nil
	}
	client, err := Connect(ctx, redisURL, ConnectOptions{})
	if err != nil {
		return nil, nil, err
	}
	return NewRedis(client, prefix), client.Close, nil
}

package main

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// openRedis opens the process's one Redis client when REDIS_URL is set, for
// every endpoint to share: Trident's limiter (when RATE_LIMIT is on) counts
// under REDIS_KEY_PREFIX + "trident:", Relay's limits and provider
// cool-downs under REDIS_KEY_PREFIX + "relay:", so replicas agree and the
// endpoints' keys stay apart. One client rather than one per endpoint: one
// pool of connections to size and watch, one PING at start, one Close at
// shutdown, one budget (REDIS_TIMEOUT) for each call, so a hung Redis
// costs a call that much at most, and one breaker that stops asking it for
// a moment after a call failed (limits.Connect). A wrong URL or an
// unreachable Redis stops the server at start.
// It returns the client (nil without REDIS_URL), for Relay's options, and
// the function that closes it (a no-op without REDIS_URL), to be called
// once, after the endpoints have closed.
func openRedis(ctx context.Context, c *config) (redis.UniversalClient, func() error, error) {
	if c.redisURL == "" {
		return nil, func() error { return nil }, nil
	}
	client, err := limits.Connect(ctx, c.redisURL, limits.ConnectOptions{Timeout: c.redisTimeout, Logger: c.host.Logger})
	if err != nil {
		return nil, nil, err
	}
	if c.tracing.on {
		client.AddHook(telemetry.RedisHook()) // a client span per command, its name only
	}
	shareRedis(c, client)
	return client, client.Close, nil
}

// shareRedis points Trident's limiter at client, when the limiter is on.
func shareRedis(c *config, client redis.UniversalClient) {
	if c.trident.RateLimit != "" && c.trident.RateLimit != "off" {
		c.trident.SharedLimiter = limits.NewRedis(client, c.redisPrefix+"trident:")
	}
}

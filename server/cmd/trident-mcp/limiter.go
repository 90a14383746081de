package main

import (
	"context"

	"github.com/tridenttaxis/trident-mcp/server/limits"
)

// openSharedLimiter connects the Trident endpoint's rate limiter to Redis
// when REDIS_URL is set and the limiter is on, so every replica spends one
// budget per client; Trident's keys are under REDIS_KEY_PREFIX + "trident:".
// A wrong URL or an unreachable Redis stops the server at start. The
// returned function releases the client.
func openSharedLimiter(ctx context.Context, c *config) (func() error, error) {
	if c.redisURL == "" || c.trident.RateLimit == "" || c.trident.RateLimit == "off" {
		return func() error { return nil }, nil
	}
	lim, closeFn, err := limits.Open(ctx, c.redisURL, c.redisPrefix+"trident:")
	if err != nil {
		return nil, err
	}
	c.trident.SharedLimiter = lim
	return closeFn, nil
}

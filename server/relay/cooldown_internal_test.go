package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testRedis is the machine's Redis (RELAY_TEST_REDIS_ADDR elsewhere) and a
// prefix for this test alone, whose keys are deleted when it ends; without
// a server the test is skipped, except under CI, where it fails.
func testRedis(t *testing.T) (*redis.Client, string) {
	t.Helper()
	addr := os.Getenv("RELAY_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s: %v", addr, err)
		}
		t.Skipf("Redis at %s does not answer: %v", addr, err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "relay-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		for iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator(); iter.Next(ctx); {
			c.Del(ctx, iter.Val())
		}
		c.Close()
	})
	return c, prefix
}

// Two replicas' cool-down stores over one Redis: what one holds, the other
// sees, on the Redis server's clock; the longest hold wins; the key lives
// under the relay prefix and expires with the cool-down.
func TestRedisCooldownsAreShared(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	frozen := func() time.Time { return time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC) }
	o := &Options{Redis: rdb, RedisPrefix: prefix}
	a, b := newCooldowns(o, frozen, slog.Default()), newCooldowns(o, frozen, slog.Default())

	if d := b.remaining(ctx, "uber"); d != 0 {
		t.Fatalf("before any 429: %v, want 0", d)
	}
	a.hold(ctx, "uber", 120*time.Second)
	if d := b.remaining(ctx, "uber"); d <= 110*time.Second || d > 120*time.Second {
		t.Errorf("B after A held uber for 120s: %v, want just under 120s", d)
	}
	if d := b.remaining(ctx, "lyft"); d != 0 {
		t.Errorf("another provider: %v, want 0", d)
	}
	b.hold(ctx, "uber", 10*time.Second) // shorter: the longer stays
	if d := a.remaining(ctx, "uber"); d <= 110*time.Second {
		t.Errorf("after a shorter hold on B: %v, want the 120s kept", d)
	}
	b.hold(ctx, "uber", 300*time.Second) // longer: it wins
	if d := a.remaining(ctx, "uber"); d <= 290*time.Second || d > 300*time.Second {
		t.Errorf("after a longer hold on B: %v, want just under 300s", d)
	}
	ttl, err := rdb.PTTL(ctx, prefix+"cooldown:uber").Result()
	if err != nil || ttl <= 290*time.Second {
		t.Errorf("key %scooldown:uber: PTTL %v, %v; want it to expire with the cool-down", prefix, ttl, err)
	}
	// The key's expiry ends the cool-down everywhere (B never held lyft
	// locally, so its answer is Redis's alone).
	a.hold(ctx, "lyft", 60*time.Second)
	rdb.Del(ctx, prefix+"cooldown:lyft")
	if d := b.remaining(ctx, "lyft"); d != 0 {
		t.Errorf("lyft once its key is gone: %v, want 0 on B", d)
	}
}

// A Redis that fails neither fails the call nor loses the cool-down: the
// replica answers from its own store, and logs why.
func TestRedisCooldownsFallBackToLocal(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer down.Close()
	var logs bytes.Buffer
	now := time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)
	c := newCooldowns(&Options{Redis: down, RedisPrefix: "p:"}, func() time.Time { return now }, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := context.Background()
	c.hold(ctx, "uber", 45*time.Second)
	if d := c.remaining(ctx, "uber"); d != 45*time.Second {
		t.Errorf("remaining with Redis down: %v, want the local 45s", d)
	}
	if d := c.remaining(ctx, "lyft"); d != 0 {
		t.Errorf("another provider with Redis down: %v, want 0", d)
	}
	if !strings.Contains(logs.String(), "cool-down store unavailable") || !strings.Contains(logs.String(), "provider=uber") {
		t.Errorf("logs = %q, want the failure logged with the provider", logs.String())
	}
}

// Without Redis the store is the process's own, on the server's clock.
func TestLocalCooldowns(t *testing.T) {
	now := time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)
	c := newCooldowns(&Options{}, func() time.Time { return now }, slog.Default())
	if _, ok := c.(*localCooldowns); !ok {
		t.Fatalf("without Redis: %T, want the in-process store", c)
	}
	ctx := context.Background()
	c.hold(ctx, "uber", time.Minute)
	c.hold(ctx, "uber", time.Second)
	now = now.Add(20 * time.Second)
	if d := c.remaining(ctx, "uber"); d != 40*time.Second {
		t.Errorf("20s into a 1m cool-down: %v, want 40s (the longer hold kept)", d)
	}
	now = now.Add(40 * time.Second)
	if d := c.remaining(ctx, "uber"); d != 0 {
		t.Errorf("when it ends: %v, want 0", d)
	}
}

// BenchmarkCooldownRemaining is what a search adds per eligible provider
// to ask whether it cools down: a map read in process, one PTTL with Redis.
func BenchmarkCooldownRemaining(b *testing.B) {
	ctx := context.Background()
	b.Run("local", func(b *testing.B) {
		c := newCooldowns(&Options{}, time.Now, slog.Default())
		c.hold(ctx, "uber", time.Minute)
		for b.Loop() {
			c.remaining(ctx, "uber")
		}
	})
	b.Run("redis", func(b *testing.B) {
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
		defer rdb.Close()
		if err := rdb.Ping(ctx).Err(); err != nil {
			b.Skipf("Redis: %v", err)
		}
		prefix := "relay-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
		defer rdb.Del(ctx, prefix+"cooldown:uber")
		c := newCooldowns(&Options{Redis: rdb, RedisPrefix: prefix}, time.Now, slog.Default())
		c.hold(ctx, "uber", time.Minute)
		for b.Loop() {
			c.remaining(ctx, "uber")
		}
	})
}

package limits

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// cooldownPrefix is a Redis prefix for this test alone, whose keys are
// deleted when it ends.
func cooldownPrefix(t testing.TB, c *redis.Client) string {
	prefix := testPrefix(t, c) + "cooldown:"
	t.Cleanup(func() {
		ctx := context.Background()
		for iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator(); iter.Next(ctx); {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// Two replicas' cool-downs over one Redis: what one holds, the other sees,
// on the Redis server's clock; the longest hold wins; the key lives under
// the prefix and expires with the cool-down.
func TestRedisCooldownsAreShared(t *testing.T) {
	rdb := newRedisClient(t)
	prefix := cooldownPrefix(t, rdb)
	frozen := func() time.Time { return time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC) }
	a, b := NewRedisCooldowns(rdb, prefix, frozen), NewRedisCooldowns(newRedisClient(t), prefix, frozen)
	remaining := func(c Cooldowns, key string) time.Duration {
		t.Helper()
		d, err := c.Remaining(bg, key)
		if err != nil {
			t.Fatalf("Remaining(%s): %v", key, err)
		}
		return d
	}
	hold := func(c Cooldowns, key string, wait time.Duration) {
		t.Helper()
		if err := c.Hold(bg, key, wait); err != nil {
			t.Fatalf("Hold(%s): %v", key, err)
		}
	}

	if d := remaining(b, "uber"); d != 0 {
		t.Fatalf("before any hold: %v, want 0", d)
	}
	hold(a, "uber", 120*time.Second)
	if d := remaining(b, "uber"); d <= 110*time.Second || d > 120*time.Second {
		t.Errorf("B after A held uber for 120s: %v, want just under 120s", d)
	}
	if d := remaining(b, "lyft"); d != 0 {
		t.Errorf("another key: %v, want 0", d)
	}
	hold(b, "uber", 10*time.Second) // shorter: the longer stays
	if d := remaining(a, "uber"); d <= 110*time.Second {
		t.Errorf("after a shorter hold on B: %v, want the 120s kept", d)
	}
	hold(b, "uber", 300*time.Second) // longer: it wins
	if d := remaining(a, "uber"); d <= 290*time.Second || d > 300*time.Second {
		t.Errorf("after a longer hold on B: %v, want just under 300s", d)
	}
	ttl, err := rdb.PTTL(bg, prefix+"uber").Result()
	if err != nil || ttl <= 290*time.Second {
		t.Errorf("key %suber: PTTL %v, %v; want it to expire with the cool-down", prefix, ttl, err)
	}
	// The key's expiry ends the cool-down everywhere (B never held lyft
	// locally, so its answer is Redis's alone).
	hold(a, "lyft", 60*time.Second)
	rdb.Del(bg, prefix+"lyft")
	if d := remaining(b, "lyft"); d != 0 {
		t.Errorf("lyft once its key is gone: %v, want 0 on B", d)
	}
}

// A Redis that fails neither loses the cool-down nor leaves the caller
// without an answer: it is this replica's own, with the error to log.
func TestRedisCooldownsFallBackToLocal(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer down.Close()
	now := time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)
	c := NewRedisCooldowns(down, "p:", func() time.Time { return now })
	if err := c.Hold(bg, "uber", 45*time.Second); err == nil {
		t.Error("Hold with Redis down: no error, want one to log")
	}
	if d, err := c.Remaining(bg, "uber"); d != 45*time.Second || err == nil {
		t.Errorf("Remaining with Redis down: %v, %v; want the local 45s and the error", d, err)
	}
	if d, err := c.Remaining(bg, "lyft"); d != 0 || err == nil {
		t.Errorf("another key with Redis down: %v, %v; want 0 and the error", d, err)
	}
}

// Behind Connect's breaker, the calls not sent while Redis is down say so
// (ErrUnavailable), so that a caller can log them quietly.
func TestRedisCooldownsUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(bg, 2*time.Second)
	defer cancel()
	client, err := Connect(ctx, "redis://"+redisAddr()+"/0", ConnectOptions{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Skipf("Redis: %v", err)
	}
	defer client.Close()
	c := NewRedisCooldowns(client, testPrefix(t, newRedisClient(t))+"cooldown:", nil)
	if err := c.Hold(bg, "uber", time.Minute); err != nil {
		t.Fatal(err)
	}
	client.Close() // every call from now fails; the first opens the breaker
	_, first := c.Remaining(bg, "uber")
	d, second := c.Remaining(bg, "uber")
	if first == nil || errors.Is(first, ErrUnavailable) || !errors.Is(second, ErrUnavailable) || d <= 0 {
		t.Errorf("after Redis went away: %v, then %v (%v left); want a failure, then ErrUnavailable with the local answer", first, second, d)
	}
}

// Without Redis the cool-downs are the process's own, on its clock.
func TestLocalCooldowns(t *testing.T) {
	now := time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)
	c := NewLocalCooldowns(func() time.Time { return now })
	c.Hold(bg, "uber", time.Minute)
	c.Hold(bg, "uber", time.Second)
	now = now.Add(20 * time.Second)
	if d, _ := c.Remaining(bg, "uber"); d != 40*time.Second {
		t.Errorf("20s into a 1m cool-down: %v, want 40s (the longer hold kept)", d)
	}
	now = now.Add(40 * time.Second)
	if d, _ := c.Remaining(bg, "uber"); d != 0 {
		t.Errorf("when it ends: %v, want 0", d)
	}
}

// BenchmarkCooldownRemaining is what a caller adds per key to ask whether
// it cools down: a map read in process, one PTTL with Redis.
func BenchmarkCooldownRemaining(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		c := NewLocalCooldowns(nil)
		c.Hold(bg, "uber", time.Minute)
		for b.Loop() {
			c.Remaining(bg, "uber")
		}
	})
	b.Run("redis", func(b *testing.B) {
		rdb := newRedisClient(b)
		c := NewRedisCooldowns(rdb, cooldownPrefix(b, rdb), nil)
		c.Hold(bg, "uber", time.Minute)
		for b.Loop() {
			c.Remaining(bg, "uber")
		}
	})
}

package limits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var bg = context.Background()

// redisAddr is the machine's local Redis; RELAY_TEST_REDIS_ADDR points the
// tests elsewhere.
func redisAddr() string {
	if a := os.Getenv("RELAY_TEST_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

var (
	redisOnce sync.Once
	redisErr  error
)

// newRedisClient connects to the local Redis, or skips the test when it
// does not answer (fails instead under CI, which starts it). The server is
// probed once per run.
func newRedisClient(t testing.TB) *redis.Client {
	t.Helper()
	redisOnce.Do(func() {
		probe := redis.NewClient(&redis.Options{Addr: redisAddr(), MaxRetries: -1})
		defer probe.Close()
		ctx, cancel := context.WithTimeout(bg, 2*time.Second)
		defer cancel()
		redisErr = probe.Ping(ctx).Err()
	})
	if redisErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s does not answer (CI is set, so this fails rather than skips): %v", redisAddr(), redisErr)
		}
		t.Skipf("Redis at %s does not answer, skipping (start it, or set CI=true to make this fail): %v", redisAddr(), redisErr)
	}
	c := redis.NewClient(&redis.Options{Addr: redisAddr()})
	t.Cleanup(func() { c.Close() })
	return c
}

// testPrefix is unique per test; its keys are deleted when the test ends.
func testPrefix(t testing.TB, c *redis.Client) string {
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "limits-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, "rate:"+prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// implementations gives each test a fresh limiter of each kind. The
// behaviour tests use limits measured in hours, so the real clock Redis
// reads cannot move a decision during a test.
func implementations() map[string]func(t *testing.T) Limiter {
	return map[string]func(t *testing.T) Limiter{
		"local": func(t *testing.T) Limiter { return NewLocal(nil) },
		"redis": func(t *testing.T) Limiter {
			c := newRedisClient(t)
			return NewRedis(c, testPrefix(t, c))
		},
	}
}

func forEach(t *testing.T, f func(t *testing.T, lim Limiter)) {
	for name, mk := range implementations() {
		t.Run(name, func(t *testing.T) { f(t, mk(t)) })
	}
}

func TestBurstThenRefuse(t *testing.T) {
	forEach(t, func(t *testing.T, lim Limiter) {
		l := Limit{Rate: 3, Period: time.Hour} // one every 20 minutes
		for i, wantRemaining := range []int{2, 1, 0} {
			d, err := lim.Allow(bg, "actor:alice", l)
			if err != nil || !d.Allowed || d.Remaining != wantRemaining || d.RetryAfter != 0 {
				t.Fatalf("call %d = %+v, %v; want allowed with %d remaining", i+1, d, err, wantRemaining)
			}
		}
		d, err := lim.Allow(bg, "actor:alice", l)
		if err != nil || d.Allowed || d.Remaining != 0 {
			t.Fatalf("4th call = %+v, %v; want refused", d, err)
		}
		if d.RetryAfter <= 19*time.Minute || d.RetryAfter > 20*time.Minute {
			t.Errorf("RetryAfter = %v, want just under 20m (one event per 20m)", d.RetryAfter)
		}
		// Another key has its own budget.
		if d, err := lim.Allow(bg, "actor:bob", l); err != nil || !d.Allowed {
			t.Errorf("another key = %+v, %v; want allowed", d, err)
		}
	})
}

func TestBurstDiffersFromRate(t *testing.T) {
	forEach(t, func(t *testing.T, lim Limiter) {
		l := Limit{Rate: 10, Period: time.Hour, Burst: 2}
		var allowed int
		for range 5 {
			if d, err := lim.Allow(bg, "provider:uber", l); err != nil {
				t.Fatal(err)
			} else if d.Allowed {
				allowed++
			}
		}
		if allowed != 2 {
			t.Errorf("%d allowed at once, want the burst of 2", allowed)
		}
	})
}

func TestConcurrentCallersShareOneBudget(t *testing.T) {
	forEach(t, func(t *testing.T, lim Limiter) {
		l := PerHour(20)
		var wg sync.WaitGroup
		var mu sync.Mutex
		allowed := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					d, err := lim.Allow(bg, "actor:alice", l)
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if allowed != 20 {
			t.Errorf("80 concurrent calls: %d allowed, want exactly 20", allowed)
		}
	})
}

func TestInvalidLimit(t *testing.T) {
	forEach(t, func(t *testing.T, lim Limiter) {
		for _, l := range []Limit{{}, {Rate: 1}, {Period: time.Second}, {Rate: -1, Period: time.Second}, {Rate: 1, Period: time.Second, Burst: -1}, {Rate: 10, Period: 5}} {
			if _, err := lim.Allow(bg, "k", l); !errors.Is(err, ErrInvalidLimit) {
				t.Errorf("Allow with %+v: err = %v, want ErrInvalidLimit", l, err)
			}
		}
	})
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, 20 * time.Minute: 1200} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", d, got, want)
		}
	}
}

package limits

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisReplicasShareOneLimit: two limiters over two independent clients
// (two replicas) spend one budget: what one spent, the other sees.
func TestRedisReplicasShareOneLimit(t *testing.T) {
	first := newRedisClient(t)
	second := newRedisClient(t)
	prefix := testPrefix(t, first)
	a, b := NewRedis(first, prefix), NewRedis(second, prefix)
	l := PerHour(5)
	for i := range 3 {
		if d, err := a.Allow(bg, "actor:alice", l); err != nil || !d.Allowed {
			t.Fatalf("replica A call %d = %+v, %v", i+1, d, err)
		}
	}
	d, err := b.Allow(bg, "actor:alice", l)
	if err != nil || !d.Allowed || d.Remaining != 1 {
		t.Fatalf("replica B after A spent 3 of 5 = %+v, %v; want allowed with 1 remaining", d, err)
	}
	b.Allow(bg, "actor:alice", l)
	for name, lim := range map[string]*Redis{"A": a, "B": b} {
		if d, err := lim.Allow(bg, "actor:alice", l); err != nil || d.Allowed || d.RetryAfter <= 0 {
			t.Errorf("replica %s after 5 of 5 = %+v, %v; want refused with a RetryAfter", name, d, err)
		}
	}
	// Another deployment's prefix is another budget.
	if d, err := NewRedis(second, prefix+"other:").Allow(bg, "actor:alice", l); err != nil || !d.Allowed {
		t.Errorf("another prefix = %+v, %v; want allowed", d, err)
	}
}

func TestRedisUnreachableIsAnError(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	if d, err := NewRedis(c, "x:").Allow(bg, "k", PerSecond(1)); err == nil || d.Allowed {
		t.Errorf("Allow with Redis down = %+v, %v; want an error and no allowance", d, err)
	}
}

func TestOpen(t *testing.T) {
	lim, closeLim, err := Open(bg, "", "p:")
	if _, local := lim.(*Local); err != nil || !local {
		t.Fatalf("Open with no REDIS_URL = %T, %v; want *Local", lim, err)
	}
	closeLim()
	newRedisClient(t) // skip (or fail in CI) when Redis is not there
	lim, closeLim, err = Open(bg, "redis://"+redisAddr()+"/0", "p:")
	if _, shared := lim.(*Redis); err != nil || !shared {
		t.Fatalf("Open with REDIS_URL = %T, %v; want *Redis", lim, err)
	}
	closeLim()
	if _, _, err := Open(bg, "redis://:secret@127.0.0.1:1/0?max_retries=-1", "p:"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open with Redis down = %v; want an error that does not repeat the password", err)
	}
	if _, _, err := Open(bg, "http://nope", "p:"); err == nil {
		t.Errorf("Open with a non-Redis URL succeeded")
	}
}

// A REDIS_URL that does not parse fails without repeating its password;
// one that does not answer fails naming the address.
func TestConnectErrors(t *testing.T) {
	_, err := Connect(bg, "redis://:hunter2@127.0.0.1:bad/0", ConnectOptions{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "REDIS_URL") {
		t.Errorf("unparsable URL: %v, want an error naming REDIS_URL without the password", err)
	}
	_, err = Connect(bg, "redis://:hunter2@127.0.0.1:1/0", ConnectOptions{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable Redis: %v, want an error naming the address without the password", err)
	}
}

package limits

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/internal/hangproxy"
)

// TestConnectHungRedis: a Redis that stops answering (connections kept,
// no replies) makes Allow fail rather than wait, the calls right after it
// fail without being sent (ErrUnavailable), and once Redis answers again
// the limiter decides through it again, by itself.
func TestConnectHungRedis(t *testing.T) {
	direct := newRedisClient(t)
	prefix := testPrefix(t, direct)
	proxy := hangproxy.Start(t, redisAddr())
	client, err := Connect(bg, "redis://"+proxy.Addr+"/0", ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	lim := NewRedis(client, prefix)
	l := PerHour(3)
	if d, err := lim.Allow(bg, "actor:alice", l); err != nil || !d.Allowed {
		t.Fatalf("Allow with Redis answering = %+v, %v", d, err)
	}

	proxy.Hang()
	start := time.Now()
	_, err = lim.Allow(bg, "actor:alice", l)
	took := time.Since(start)
	if err == nil || errors.Is(err, ErrUnavailable) {
		t.Fatalf("first Allow with Redis hung = %v, want the failure of a call sent and not answered", err)
	}
	t.Logf("first Allow with Redis hung failed after %s: %v", took.Round(time.Millisecond), err)
	if _, err := lim.Allow(bg, "actor:alice", l); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Allow right after a failed one = %v, want ErrUnavailable (not sent)", err)
	}

	proxy.Forward()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := lim.Allow(bg, "actor:alice", l)
		if err == nil {
			if !d.Allowed || d.Remaining != 1 {
				t.Errorf("Allow once Redis answers again = %+v, want allowed with 1 of 3 remaining (2 spent through Redis)", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Allow still fails 10s after Redis answers again: %v", err)
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Logf("probe: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // poll interval, not a synchronisation
	}
	if n, err := direct.Exists(bg, "rate:"+prefix+"actor:alice").Result(); err != nil || n != 1 {
		t.Errorf("the limit's key in Redis: %d, %v; want it there", n, err)
	}
}

// A Redis that accepts the connection but never answers fails the start,
// naming the address, rather than the first calls.
func TestConnectHungAtStart(t *testing.T) {
	newRedisClient(t)
	proxy := hangproxy.Start(t, redisAddr())
	proxy.Hang()
	start := time.Now()
	_, err := Connect(bg, "redis://:hunter2@"+proxy.Addr+"/0", ConnectOptions{})
	if err == nil || !strings.Contains(err.Error(), proxy.Addr) || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("Connect to a hung Redis = %v, want an error naming %s without the password", err, proxy.Addr)
	}
	t.Logf("Connect to a hung Redis failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
}

// The budget sets go-redis's socket timeouts the URL leaves unset, and the
// context's deadline reaches the socket; what the URL sets is kept.
func TestConnectTimeouts(t *testing.T) {
	newRedisClient(t)
	for _, tc := range []struct {
		query      string
		budget     time.Duration
		read, pool time.Duration
	}{
		{"", 0, DefaultTimeout, DefaultTimeout},
		{"", time.Second, time.Second, time.Second},
		{"?read_timeout=2s", 0, 2 * time.Second, DefaultTimeout},
		{"?pool_timeout=3s", 0, DefaultTimeout, 3 * time.Second},
	} {
		c, err := Connect(bg, "redis://"+redisAddr()+"/0"+tc.query, ConnectOptions{Timeout: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		o := c.(*redis.Client).Options()
		if o.ReadTimeout != tc.read || o.WriteTimeout != tc.read || o.PoolTimeout != tc.pool || !o.ContextTimeoutEnabled {
			t.Errorf("URL %q, budget %s: read %s, write %s, pool %s, context %v; want read and write %s, pool %s, context on",
				tc.query, tc.budget, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.ContextTimeoutEnabled, tc.read, tc.pool)
		}
		c.Close()
	}
}

package main_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/hangproxy"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// pricedSearch is a search_rides call Relay prices through Trident (this
// server's own /mcp): the call that touches Redis most, with Relay's
// caller limit, Trident's cool-down and request budget, and Trident's own
// limiter on estimate_fare (RATE_LIMIT=seed).
const pricedSearch = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_rides","arguments":{"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306},"party_size":2}}}`

// hungBound is how long a tool call may take while Redis hangs: well above
// a call's own time plus the Redis budget (REDIS_TIMEOUT, 250ms by
// default), well below go-redis's own timeouts (3 to 5 s a read, retried),
// which the calls waited out before the client had a budget.
const hungBound = 1500 * time.Millisecond

// TestHungRedisDegrades runs the server with REDIS_URL pointing through a
// proxy to the machine's Redis, then makes the proxy hang (connections
// accepted and kept, nothing answered), as a hung or partitioned Redis
// does. Tool calls of both endpoints still answer, each within hungBound,
// the limiters admitting them and the cool-downs answered from the
// replica's own; when the proxy forwards again, the limits are shared
// through Redis again by themselves: a caller over its limit is refused.
func TestHungRedisDegrades(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	rc := redisOrSkip(t)
	prefix := keyPrefix(t, rc)
	proxy := hangproxy.Start(t, rc.Options().Addr)
	srv := testserver.Run(t, testserver.Build(t), testserver.FreeAddr(t), "RATE_LIMIT=seed", "RELAY_RATE_LIMIT=20",
		"REDIS_URL=redis://"+proxy.Addr+"/0", "REDIS_KEY_PREFIX="+prefix, "LOG_LEVEL=warn")
	post := func(path, body string) (status int, reply string, took time.Duration) {
		t.Helper()
		start := time.Now()
		status, _, reply = post(t, srv.Base+path, body)
		return status, reply, time.Since(start)
	}
	// short is enough of a reply to say what went wrong.
	short := func(reply string) string {
		if len(reply) > 600 {
			return reply[:600] + "…"
		}
		return reply
	}
	priced := func(reply string) bool {
		return !strings.Contains(reply, `"isError":true`) && strings.Contains(reply, `\"status\":\"ok\"`) && strings.Contains(reply, `\"provider\":\"trident\"`)
	}

	// Healthy: both endpoints count in Redis.
	if status, reply, _ := post("/mcp/rides", pricedSearch); status != http.StatusOK || !priced(reply) {
		t.Fatalf("search with Redis answering: HTTP %d %s, want Trident's options", status, reply)
	}
	if status, reply, _ := post("/mcp", bookingCall); status != http.StatusOK {
		t.Fatalf("booking with Redis answering: HTTP %d %s", status, reply)
	}

	// Hung: each call falls back within hungBound. The calls go on until
	// the client has probed the hung Redis again (a second record of a
	// call that failed), so both the first failure and a failed probe are
	// among them; the rest are not sent to Redis, and not logged one by one.
	proxy.Hang()
	failures := func() int {
		n := 0
		for _, line := range strings.Split(srv.Logs(), "\n") {
			if strings.Contains(line, `"level":"WARN"`) && (strings.Contains(line, "limiter unavailable") ||
				strings.Contains(line, "cool-down store unavailable") || strings.Contains(line, "shared limiter could not decide")) {
				n++
			}
		}
		return n
	}
	var slowest [2]time.Duration
	calls := 0
	for deadline := time.Now().Add(15 * time.Second); calls < 2 || failures() < 2; calls++ {
		if time.Now().After(deadline) {
			t.Fatalf("Redis hung: %d calls in 15s and no second failure logged (the client never probed Redis again?)\n%s", calls, short(srv.Logs()))
		}
		path, body := "/mcp/rides", pricedSearch
		if calls%2 == 1 {
			path, body = "/mcp", bookingCall
		}
		status, reply, took := post(path, body)
		if calls < 2 {
			t.Logf("Redis hung: first call to %s answered HTTP %d in %s", path, status, took.Round(time.Millisecond))
		}
		slowest[calls%2] = max(slowest[calls%2], took)
		ok := status == http.StatusOK && !strings.Contains(reply, `"isError":true`)
		if path == "/mcp/rides" {
			ok = status == http.StatusOK && priced(reply)
		}
		if !ok {
			t.Fatalf("call %d to %s with Redis hung: HTTP %d %s, want an answer (limits admit, cool-downs answered locally; search_rides priced by Trident)", calls+1, path, status, short(reply))
		}
		if took > hungBound {
			t.Errorf("call %d to %s with Redis hung took %s, want under %s", calls+1, path, took, hungBound)
		}
		time.Sleep(10 * time.Millisecond) // pace, not a synchronisation
	}
	t.Logf("Redis hung: %d calls, slowest search_rides %s, slowest start_booking %s; %d failures logged",
		calls, slowest[0].Round(time.Millisecond), slowest[1].Round(time.Millisecond), failures())
	if n := failures(); n > calls/4 {
		t.Errorf("%d records of a failed Redis call for %d calls: the outage is logged call by call", n, calls)
	}
	if logs := srv.Logs(); !strings.Contains(logs, "Redis does not answer") {
		t.Errorf("no record of Redis not answering in the server's logs:\n%s", short(logs))
	}

	// Redis answers again: the limits are shared again, without a restart,
	// once the client probes it (within 2s). start_booking's seed cap is 10
	// a minute; the calls admitted while Redis hung were not counted.
	proxy.Forward()
	poll := func(what string, call func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for calls := 1; ; calls++ {
			if call() {
				t.Logf("Redis back: %s after %d more calls", what, calls)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("Redis back: not %s within 20s (%d calls): the limit is not shared again\n%s", what, calls, short(srv.Logs()))
			}
			time.Sleep(20 * time.Millisecond) // poll interval, not a synchronisation
		}
	}
	poll("booking refused HTTP 429", func() bool {
		status, reply, _ := post("/mcp", bookingCall)
		if status != http.StatusOK && status != http.StatusTooManyRequests {
			t.Fatalf("booking after Redis came back: HTTP %d %s", status, short(reply))
		}
		return status == http.StatusTooManyRequests
	})
	keys, err := rc.Keys(context.Background(), "rate:"+prefix+"trident:*").Result()
	if err != nil || len(keys) == 0 {
		t.Errorf("no Trident limiter keys under %q after Redis came back (%v)", prefix, err)
	}
	poll("search refused rate_limited", func() bool {
		status, reply, _ := post("/mcp/rides", ridesSearch)
		if strings.Contains(reply, `\"status\":\"rate_limited\"`) {
			return true
		}
		if status != http.StatusOK || strings.Contains(reply, `"isError":true`) {
			t.Fatalf("search after Redis came back: HTTP %d %s", status, short(reply))
		}
		return false
	})
}

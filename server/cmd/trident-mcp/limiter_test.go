package main_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// bookingCall is one start_booking call; anonymous, so the limiter keys it
// on the client's address, which both replicas see as 127.0.0.1.
const bookingCall = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"start_booking","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon"}}}`

// redisOrSkip is the machine's Redis (RELAY_TEST_REDIS_ADDR, as the limits
// tests read it; default 127.0.0.1:6379),
// or a skip when it does not answer (a failure when CI is set).
func redisOrSkip(t *testing.T) *redis.Client {
	t.Helper()
	addr := os.Getenv("RELAY_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s does not answer (CI is set, so this fails rather than skips): %v", addr, err)
		}
		t.Skipf("Redis at %s does not answer, skipping: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// keyPrefix is a REDIS_KEY_PREFIX of this test's own, whose keys are
// deleted when it ends.
func keyPrefix(t *testing.T, rc *redis.Client) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "trident-mcp-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		for iter := rc.Scan(ctx, 0, "*"+prefix+"*", 100).Iterator(); iter.Next(ctx); {
			rc.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// post sends one JSON-RPC body to url as an MCP client does (header pairs
// after it), returning the status, the headers and the body.
func post(t *testing.T, url, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestTwoReplicasShareTheRateLimit runs two server processes with
// RATE_LIMIT=seed over one Redis (REDIS_URL): start_booking's cap of 10 a
// minute holds for a client across both, so a client that spent its
// budget alternating between them is refused by each (429, Retry-After).
func TestTwoReplicasShareTheRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	rc := redisOrSkip(t)
	prefix := keyPrefix(t, rc) // this run's keys only
	bin := testserver.Build(t)
	env := []string{"RATE_LIMIT=seed", "REDIS_URL=redis://" + rc.Options().Addr + "/0", "REDIS_KEY_PREFIX=" + prefix, "LOG_LEVEL=warn"}
	replicas := []string{
		testserver.Start(t, bin, testserver.FreeAddr(t), env...),
		testserver.Start(t, bin, testserver.FreeAddr(t), env...),
	}
	call := func(base string) (status int, retryAfter, body string) {
		t.Helper()
		status, h, body := post(t, base+"/mcp", bookingCall)
		return status, h.Get("Retry-After"), body
	}
	for i := range 10 { // the seed's 10 a minute, five on each replica
		if status, _, body := call(replicas[i%2]); status != http.StatusOK {
			t.Fatalf("booking %d on replica %d: HTTP %d %s, want 200 within the shared 10", i+1, i%2+1, status, body)
		}
	}
	for i, base := range replicas {
		status, retry, body := call(base)
		if status != http.StatusTooManyRequests || retry == "" || retry == "0" {
			t.Errorf("replica %d after 10 bookings across both: HTTP %d Retry-After=%q %s, want 429 with Retry-After", i+1, status, retry, body)
			continue
		}
		t.Logf("replica %d after 10 bookings across both replicas: HTTP %d, Retry-After: %s", i+1, status, retry)
	}
	// The counts are in Redis, under this run's prefix.
	if keys, err := rc.Keys(context.Background(), "rate:"+prefix+"*").Result(); err != nil || len(keys) == 0 {
		t.Errorf("no limiter keys under %q in Redis (%v): the replicas did not share through it", prefix, err)
	} else {
		t.Logf("limiter keys in Redis: %s", fmt.Sprint(keys))
	}
}

// ridesSearch is one search_rides call for New York, where no source of a
// bare server is eligible: Relay's limit is all it spends in Redis.
const ridesSearch = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_rides","arguments":{"pickup":{"latitude":40.6413,"longitude":-73.7781},"dropoff":{"latitude":40.758,"longitude":-73.9855}}}}`

// TestOneRedisClientForBothEndpoints: a server with REDIS_URL limits both
// Trident (/mcp, RATE_LIMIT=seed) and Relay (/mcp/rides, RELAY_RATE_LIMIT)
// through one Redis client, each endpoint under its own key prefix: Redis
// sees one connection of the process's name, and keys under
// REDIS_KEY_PREFIX + "trident:" and + "relay:".
func TestOneRedisClientForBothEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	rc := redisOrSkip(t)
	prefix := keyPrefix(t, rc)
	// CLIENT SETNAME of every connection of the server's client.
	name := strings.ReplaceAll(strings.TrimSuffix(prefix, ":"), ":", "-")
	base := testserver.Start(t, testserver.Build(t), testserver.FreeAddr(t), "RATE_LIMIT=seed", "RELAY_RATE_LIMIT=3",
		"REDIS_URL=redis://"+rc.Options().Addr+"/0?client_name="+name, "REDIS_KEY_PREFIX="+prefix, "LOG_LEVEL=warn")
	post := func(path, body string) (int, string) {
		t.Helper()
		status, _, reply := post(t, base+path, body)
		return status, reply
	}

	for i := range 10 {
		if status, body := post("/mcp", bookingCall); status != http.StatusOK {
			t.Fatalf("booking %d: HTTP %d %s, want 200 within the seed's 10", i+1, status, body)
		}
	}
	if status, body := post("/mcp", bookingCall); status != http.StatusTooManyRequests {
		t.Errorf("11th booking: HTTP %d %s, want 429 (Trident limited through Redis)", status, body)
	}
	for i := range 3 {
		if status, body := post("/mcp/rides", ridesSearch); status != http.StatusOK || strings.Contains(body, `"isError":true`) {
			t.Fatalf("search %d: HTTP %d %s, want a result within RELAY_RATE_LIMIT=3", i+1, status, body)
		}
	}
	if _, body := post("/mcp/rides", ridesSearch); !strings.Contains(body, `\"status\":\"rate_limited\"`) || !strings.Contains(body, "retry_after_seconds") {
		t.Errorf("4th search: %s, want the rate_limited refusal with retry_after_seconds (Relay limited through Redis)", body)
	}

	ctx := context.Background()
	for _, endpoint := range []string{"trident:", "relay:"} {
		keys, err := rc.Keys(ctx, "rate:"+prefix+endpoint+"*").Result()
		if err != nil || len(keys) == 0 {
			t.Errorf("no keys under %q (%v): that endpoint did not count in Redis under its own prefix", prefix+endpoint, err)
		}
	}
	list, err := rc.ClientList(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	conns := 0
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, " name="+name+" ") {
			conns++
		}
	}
	// Two clients would hold a connection each (each PINGs at start); one
	// client used by one request at a time reuses its one connection.
	if conns != 1 {
		t.Errorf("the server holds %d connections named %s, want 1 (one client for both endpoints)", conns, name)
	}
	t.Logf("connections of the server's client after 11 Trident and 4 Relay calls: %d", conns)
}

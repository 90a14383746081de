package relay_test

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/server/relay"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestOptionsFromEnv(t *testing.T) {
	o, err := relay.OptionsFromEnv(env(nil), "http://127.0.0.1:8080/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if o.Keys != nil || o.OptionTTL != 0 || o.Sources["trident"] == nil {
		t.Errorf("defaults: %+v", o)
	}
	o, err = relay.OptionsFromEnv(env(map[string]string{"RELAY_TRIDENT_URL": "", "RELAY_OPTION_TTL": "30s", "RELAY_SIGNING_KEYS": "a:" + strings.Repeat("A", 43)}), "http://127.0.0.1:8080/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if o.Sources["trident"] != nil || o.OptionTTL.Seconds() != 30 || o.Keys == nil {
		t.Errorf("configured: %+v", o)
	}
	for name, bad := range map[string]map[string]string{
		"ttl above 5m":       {"RELAY_OPTION_TTL": "6m"},
		"ttl not a duration": {"RELAY_OPTION_TTL": "five"},
		"bad keys":           {"RELAY_SIGNING_KEYS": "nokid"},
		"missing file":       {"RELAY_PROVIDERS_FILE": "/nonexistent/providers.json"},
		"bad trident":        {"RELAY_TRIDENT_URL": "ftp://x"},
	} {
		if _, err := relay.OptionsFromEnv(env(bad), "http://127.0.0.1:8080/mcp"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSelfMCPURL(t *testing.T) {
	for addr, want := range map[string]string{
		":8080": "http://127.0.0.1:8080/mcp", "0.0.0.0:9000": "http://127.0.0.1:9000/mcp", "[::]:8080": "http://127.0.0.1:8080/mcp",
		"127.0.0.1:8181": "http://127.0.0.1:8181/mcp", "[::1]:8080": "http://[::1]:8080/mcp", ":0": "", "nonsense": "",
	} {
		if got := relay.SelfMCPURL(addr); got != want {
			t.Errorf("SelfMCPURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// With the host's client (WithRedis), Relay takes it and its prefix and
// opens nothing of its own from REDIS_URL, nor closes the client; without
// it, REDIS_URL still gives Relay its own client, closed with the endpoint.
func TestOptionsFromEnvWithRedis(t *testing.T) {
	host := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled here
	defer host.Close()
	o, err := relay.OptionsFromEnv(env(map[string]string{"REDIS_URL": "redis://127.0.0.1:1/0", "RELAY_TRIDENT_URL": ""}), "", relay.WithRedis(host, "p:relay:"))
	if err != nil {
		t.Fatalf("with the host's client, REDIS_URL was dialled: %v", err)
	}
	if o.Redis != host || o.RedisPrefix != "p:relay:" || o.CloseLimiter != nil {
		t.Errorf("Redis %v, prefix %q, CloseLimiter set %v; want the host's client and prefix, and nothing to close", o.Redis, o.RedisPrefix, o.CloseLimiter != nil)
	}
	if _, err := relay.OptionsFromEnv(env(map[string]string{"REDIS_URL": "redis://127.0.0.1:1/0", "RELAY_TRIDENT_URL": ""}), ""); err == nil || !strings.Contains(err.Error(), "REDIS_URL") {
		t.Errorf("standalone with an unreachable REDIS_URL: %v, want an error naming REDIS_URL", err)
	}
}

package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

func env(m map[string]string) environ {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestParseConfig(t *testing.T) {
	c, err := parseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != ":8080" || c.host.PublicBaseURL != "" || c.trident.BookingBaseURL != "https://tridenttaxis.online" ||
		c.host.Auth != nil || c.trident.RateLimit != "off" || c.host.MaxBodyBytes != 1<<20 {
		t.Errorf("defaults: %+v", c)
	}
	c, err = parseConfig([]string{"-addr", "127.0.0.1:9999", "-rate-limit", "seed"}, env(map[string]string{
		"ADDR": ":1", "ALLOWED_ORIGINS": "https://a.example, https://b.example", "MCP_REQUIRE_OAUTH": "true",
		"OAUTH_ISSUER": "https://issuer.example/auth/v1", "MAX_BODY_BYTES": "2048", "LOG_LEVEL": "debug",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != "127.0.0.1:9999" || c.trident.RateLimit != "seed" || c.host.MaxBodyBytes != 2048 || c.logLevel.String() != "DEBUG" {
		t.Errorf("flags over env: %+v", c)
	}
	if d := cmp.Diff([]string{"https://a.example", "https://b.example"}, c.host.AllowedOrigins); d != "" {
		t.Errorf("origins: %s", d)
	}
	if c.host.Auth == nil || c.host.Auth.Issuer != "https://issuer.example/auth/v1" {
		t.Errorf("oauth: %+v", c.host.Auth)
	}
	if c.host.ShutdownDelay != 5*time.Second || c.host.ShutdownTimeout != 30*time.Second {
		t.Errorf("shutdown: delay %v timeout %v, want 5s and 30s", c.host.ShutdownDelay, c.host.ShutdownTimeout)
	}
	if c, err := parseConfig([]string{"-shutdown-delay", "0"}, env(nil)); err != nil || c.host.ShutdownDelay >= 0 {
		t.Errorf("SHUTDOWN_DELAY=0: %v, %v; want no delay (negative in server.Options)", err, c)
	}
	if c.trident.Now != nil {
		t.Error("the fare clock must be real time unless FARE_CLOCK is set")
	}
	// GOGC as the Go runtime reads it, the server's own default when unset.
	for value, want := range map[string]int{"": server.DefaultGCPercent, "100": 100, "off": -1, "-1": -1} {
		vars := map[string]string{}
		if value != "" {
			vars["GOGC"] = value
		}
		if c, err := parseConfig(nil, env(vars)); err != nil || c.gcPercent != want {
			t.Errorf("GOGC=%q: %v, %+v; want %d", value, err, c, want)
		}
	}
	if _, err := parseConfig([]string{"-gogc", "lots"}, env(nil)); err == nil || !strings.Contains(err.Error(), `GOGC="lots"`) {
		t.Errorf("-gogc lots: %v; want the setting named in the error", err)
	}
	c, err = parseConfig(nil, env(map[string]string{"FARE_CLOCK": "2025-06-18T09:00:00Z"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.trident.Now == nil || !c.trident.Now().Equal(time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)) {
		t.Error("FARE_CLOCK not applied")
	}
	for name, e := range map[string]map[string]string{
		"oauth without issuer": {"MCP_REQUIRE_OAUTH": "true"},
		"bad bool":             {"MCP_REQUIRE_OAUTH": "maybe"},
		"bad size":             {"MAX_BODY_BYTES": "-1"},
		"bad level":            {"LOG_LEVEL": "loud"},
		"bad geocoder":         {"GEOCODER": "google"},
		"nominatim no url":     {"GEOCODER": "nominatim"},
		"bad fare clock":       {"FARE_CLOCK": "tomorrow"},
		"bad shutdown delay":   {"SHUTDOWN_DELAY": "soon"},
		"bad shutdown timeout": {"SHUTDOWN_TIMEOUT": "0"},
		"bad header timeout":   {"READ_HEADER_TIMEOUT": "-1s"},
		"bad min interval":     {"GEOCODER": "nominatim", "NOMINATIM_URL": "http://127.0.0.1:1", "NOMINATIM_MIN_INTERVAL": "often"},
		"bad duration":         {"GEO_TIMEOUT": "5"},
		"bad int":              {"GEO_CACHE_SIZE": "many"},
	} {
		if err := configErr(e); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestUnreachableRedisStopsStart: with the limiter on, a REDIS_URL that
// does not answer fails at start, naming the variable, rather than on the
// first call.
func TestUnreachableRedisStopsStart(t *testing.T) {
	err := run(context.Background(), nil, env(map[string]string{"ADDR": "127.0.0.1:0", "RATE_LIMIT": "seed", "REDIS_URL": "redis://127.0.0.1:1/0"}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "REDIS_URL") {
		t.Errorf("run = %v, want an error naming REDIS_URL", err)
	}
}

// configErr is what the server stops at for environment e: a variable
// parseConfig refuses, or a geo configuration run cannot build.
func configErr(e map[string]string) error {
	c, err := parseConfig(nil, env(e))
	if err != nil {
		return err
	}
	_, _, err = c.geo.Build()
	return err
}

// TestGeoSettings: the GEO_* settings reach geo.Config, 0 turning
// Nominatim's spacing, the cache or the breaker off (negative there), unset
// keeping each default; a bad value stops the start naming its variable.
func TestGeoSettings(t *testing.T) {
	c, err := parseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := geo.Config{Geocoder: "embedded", Router: "embedded", Timeout: geo.DefaultTimeout, NominatimMinInterval: geo.DefaultNominatimMinInterval,
		CacheTTL: geo.DefaultCacheTTL, CacheSize: geo.DefaultCacheSize, BreakerFailures: geo.DefaultBreakerFailures, BreakerOpen: geo.DefaultBreakerOpen}
	if d := cmp.Diff(want, c.geo, cmpopts.IgnoreFields(geo.Config{}, "Logger")); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}
	c, err = parseConfig([]string{"-geo-cache-ttl", "0", "-geo-breaker-failures", "0", "-nominatim-min-interval", "0", "-geo-timeout", "2s", "-geo-cache-size", "10"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.geo.CacheTTL != -1 || c.geo.BreakerFailures != -1 || c.geo.NominatimMinInterval != -1 || c.geo.Timeout != 2*time.Second || c.geo.CacheSize != 10 {
		t.Errorf("0 for off: %+v", c.geo)
	}
	for e, v := range map[string]string{
		"GEO_TIMEOUT": "0s", "NOMINATIM_MIN_INTERVAL": "-1s", "GEO_CACHE_TTL": "soon", "GEO_CACHE_SIZE": "0",
		"GEO_BREAKER_FAILURES": "-2", "GEO_BREAKER_OPEN": "0s",
	} {
		if _, err := parseConfig(nil, env(map[string]string{e: v})); err == nil || !strings.Contains(err.Error(), e) {
			t.Errorf("%s=%s: %v, want an error naming %s", e, v, err, e)
		}
	}
}

package geo

import (
	"strings"
	"testing"
	"time"
)

func TestConfigFromEnvAndBuild(t *testing.T) {
	tests := []struct {
		env          map[string]string
		wantGeocoder string
		wantRouter   string
		wantErr      string
	}{
		{env: map[string]string{}, wantGeocoder: "*geo.EmbeddedGeocoder", wantRouter: "*geo.EmbeddedRouter"},
		{env: map[string]string{"GEOCODER": "embedded", "ROUTER": "embedded"}, wantGeocoder: "*geo.EmbeddedGeocoder", wantRouter: "*geo.EmbeddedRouter"},
		{env: map[string]string{"GEOCODER": "nominatim", "NOMINATIM_URL": "http://127.0.0.1:1", "ROUTER": "osrm", "OSRM_URL": "http://127.0.0.1:2", "GEO_TIMEOUT": "2s"}, wantGeocoder: "*geo.Nominatim", wantRouter: "*geo.OSRM"},
		{env: map[string]string{"GEOCODER": "nominatim"}, wantErr: "NOMINATIM_URL"},
		{env: map[string]string{"ROUTER": "osrm"}, wantErr: "OSRM_URL"},
		{env: map[string]string{"GEOCODER": "google"}, wantErr: `GEOCODER="google"`},
		{env: map[string]string{"ROUTER": "graphhopper"}, wantErr: `ROUTER="graphhopper"`},
		{env: map[string]string{"GEO_TIMEOUT": "soon"}, wantErr: "GEO_TIMEOUT"},
		{env: map[string]string{"NOMINATIM_MIN_INTERVAL": "-1s"}, wantErr: "NOMINATIM_MIN_INTERVAL"},
		{env: map[string]string{"GEOCODER": "nominatim", "NOMINATIM_URL": "http://127.0.0.1:1", "NOMINATIM_MIN_INTERVAL": "1s"}, wantGeocoder: "*geo.Nominatim", wantRouter: "*geo.EmbeddedRouter"},
		{env: map[string]string{"GEOCODER": "nominatim", "NOMINATIM_URL": "http://127.0.0.1:1", "NOMINATIM_MIN_INTERVAL": "0"}, wantGeocoder: "*geo.Nominatim", wantRouter: "*geo.EmbeddedRouter"},
		{env: map[string]string{"GEO_CACHE_TTL": "soon"}, wantErr: "GEO_CACHE_TTL"},
		{env: map[string]string{"GEO_CACHE_SIZE": "0"}, wantErr: "GEO_CACHE_SIZE"},
		{env: map[string]string{"GEO_BREAKER_FAILURES": "-2"}, wantErr: "GEO_BREAKER_FAILURES"},
		{env: map[string]string{"GEO_BREAKER_OPEN": "0s"}, wantErr: "GEO_BREAKER_OPEN"},
	}
	for _, tt := range tests {
		c, err := ConfigFromEnv(func(k string) string { return tt.env[k] })
		var g Geocoder
		var r Router
		if err == nil {
			g, r, err = c.Build()
		}
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: err %v, want one mentioning %s", tt.env, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.env, err)
			continue
		}
		if got := typeName(g); got != tt.wantGeocoder {
			t.Errorf("%v: geocoder %s, want %s", tt.env, got, tt.wantGeocoder)
		}
		if got := typeName(r); got != tt.wantRouter {
			t.Errorf("%v: router %s, want %s", tt.env, got, tt.wantRouter)
		}
		if n, ok := g.(*Nominatim); ok {
			if tt.env["GEO_TIMEOUT"] == "2s" && n.http.timeout != 2*time.Second {
				t.Errorf("GEO_TIMEOUT not applied: %v", n.http.timeout)
			}
			if limited := n.http.limiter != nil; limited != (tt.env["NOMINATIM_MIN_INTERVAL"] != "0") {
				t.Errorf("%v: client-side limiter set = %v", tt.env, limited)
			}
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *EmbeddedGeocoder:
		return "*geo.EmbeddedGeocoder"
	case *EmbeddedRouter:
		return "*geo.EmbeddedRouter"
	case *Nominatim:
		return "*geo.Nominatim"
	case *OSRM:
		return "*geo.OSRM"
	}
	return "?"
}

// TestConfigGuardSettings: the GEO_CACHE_* and GEO_BREAKER_* variables
// reach both HTTP back ends, and 0 turns each part off.
func TestConfigGuardSettings(t *testing.T) {
	build := func(env map[string]string) (*Nominatim, *OSRM) {
		t.Helper()
		env["GEOCODER"], env["NOMINATIM_URL"], env["ROUTER"], env["OSRM_URL"] = "nominatim", "http://127.0.0.1:1", "osrm", "http://127.0.0.1:2"
		c, err := ConfigFromEnv(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		g, r, err := c.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g.(*Nominatim), r.(*OSRM)
	}
	n, o := build(map[string]string{})
	for _, h := range []*httpConfig{&n.http, &o.http} {
		if h.cacheSize != DefaultCacheSize || h.cacheTTL != DefaultCacheTTL || h.breakerFailures != DefaultBreakerFailures || h.breakerOpen != DefaultBreakerOpen {
			t.Errorf("defaults: %+v", h)
		}
	}
	if n.http.limiter == nil || n.http.limiter.Limit() != 1 {
		t.Error("Nominatim: want one request a second by default")
	}
	n, o = build(map[string]string{"GEO_CACHE_TTL": "90s", "GEO_CACHE_SIZE": "10", "GEO_BREAKER_FAILURES": "7", "GEO_BREAKER_OPEN": "2s"})
	for _, h := range []*httpConfig{&n.http, &o.http} {
		if h.cacheSize != 10 || h.cacheTTL != 90*time.Second || h.breakerFailures != 7 || h.breakerOpen != 2*time.Second {
			t.Errorf("set: %+v", h)
		}
	}
	n, o = build(map[string]string{"GEO_CACHE_TTL": "0", "GEO_BREAKER_FAILURES": "0", "NOMINATIM_MIN_INTERVAL": "0"})
	if n.guard.cache != nil || o.guard.cache != nil || n.guard.breaker != nil || o.guard.breaker != nil || n.http.limiter != nil {
		t.Error("0: want no cache, no breaker and no rate limit")
	}
}

package geo

import (
	"strings"
	"testing"
	"time"
)

func TestConfigBuild(t *testing.T) {
	const nomURL, osrmURL = "http://127.0.0.1:1", "http://127.0.0.1:2"
	tests := []struct {
		cfg          Config
		wantGeocoder string
		wantRouter   string
		wantErr      string
	}{
		{cfg: Config{}, wantGeocoder: "*geo.EmbeddedGeocoder", wantRouter: "*geo.EmbeddedRouter"},
		{cfg: Config{Geocoder: "embedded", Router: "embedded"}, wantGeocoder: "*geo.EmbeddedGeocoder", wantRouter: "*geo.EmbeddedRouter"},
		{cfg: Config{Geocoder: "nominatim", NominatimURL: nomURL, Router: "osrm", OSRMURL: osrmURL, Timeout: 2 * time.Second}, wantGeocoder: "*geo.Nominatim", wantRouter: "*geo.OSRM"},
		{cfg: Config{Geocoder: "nominatim"}, wantErr: "NOMINATIM_URL"},
		{cfg: Config{Router: "osrm"}, wantErr: "OSRM_URL"},
		{cfg: Config{Geocoder: "google"}, wantErr: `GEOCODER="google"`},
		{cfg: Config{Router: "graphhopper"}, wantErr: `ROUTER="graphhopper"`},
		{cfg: Config{Geocoder: "nominatim", NominatimURL: nomURL, NominatimMinInterval: time.Second}, wantGeocoder: "*geo.Nominatim", wantRouter: "*geo.EmbeddedRouter"},
		{cfg: Config{Geocoder: "nominatim", NominatimURL: nomURL, NominatimMinInterval: -1}, wantGeocoder: "*geo.Nominatim", wantRouter: "*geo.EmbeddedRouter"},
	}
	for _, tt := range tests {
		g, r, err := tt.cfg.Build()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%+v: err %v, want one mentioning %s", tt.cfg, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tt.cfg, err)
			continue
		}
		if got := typeName(g); got != tt.wantGeocoder {
			t.Errorf("%+v: geocoder %s, want %s", tt.cfg, got, tt.wantGeocoder)
		}
		if got := typeName(r); got != tt.wantRouter {
			t.Errorf("%+v: router %s, want %s", tt.cfg, got, tt.wantRouter)
		}
		if n, ok := g.(*Nominatim); ok {
			if tt.cfg.Timeout == 2*time.Second && n.http.timeout != 2*time.Second {
				t.Errorf("Timeout not applied: %v", n.http.timeout)
			}
			if limited := n.http.limiter != nil; limited != (tt.cfg.NominatimMinInterval >= 0) {
				t.Errorf("%+v: client-side limiter set = %v", tt.cfg, limited)
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

// TestConfigGuardSettings: the cache and breaker settings reach both HTTP
// back ends, and a negative value turns each part off.
func TestConfigGuardSettings(t *testing.T) {
	build := func(c Config) (*Nominatim, *OSRM) {
		t.Helper()
		c.Geocoder, c.NominatimURL, c.Router, c.OSRMURL = "nominatim", "http://127.0.0.1:1", "osrm", "http://127.0.0.1:2"
		g, r, err := c.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g.(*Nominatim), r.(*OSRM)
	}
	n, o := build(Config{})
	for _, h := range []*httpConfig{&n.http, &o.http} {
		if h.cacheSize != DefaultCacheSize || h.cacheTTL != DefaultCacheTTL || h.breakerFailures != DefaultBreakerFailures || h.breakerOpen != DefaultBreakerOpen {
			t.Errorf("defaults: %+v", h)
		}
	}
	if n.http.limiter == nil || n.http.limiter.Limit() != 1 {
		t.Error("Nominatim: want one request a second by default")
	}
	n, o = build(Config{CacheTTL: 90 * time.Second, CacheSize: 10, BreakerFailures: 7, BreakerOpen: 2 * time.Second})
	for _, h := range []*httpConfig{&n.http, &o.http} {
		if h.cacheSize != 10 || h.cacheTTL != 90*time.Second || h.breakerFailures != 7 || h.breakerOpen != 2*time.Second {
			t.Errorf("set: %+v", h)
		}
	}
	n, o = build(Config{CacheTTL: -1, BreakerFailures: -1, NominatimMinInterval: -1})
	if n.guard.cache != nil || o.guard.cache != nil || n.guard.breaker != nil || o.guard.breaker != nil || n.http.limiter != nil {
		t.Error("negative: want no cache, no breaker and no rate limit")
	}
}

package geo

import (
	"fmt"
	"log/slog"
	"time"
)

// Back-end names accepted in [Config] (and the GEOCODER / ROUTER variables).
const (
	BackendEmbedded  = "embedded"
	BackendNominatim = "nominatim"
	BackendOSRM      = "osrm"
)

// Config selects and configures the geocoder and router (the binary fills
// it from GEOCODER, ROUTER and the GEO_* settings). The zero value selects
// the embedded back ends.
type Config struct {
	Geocoder     string        // "embedded" (default, also "") or "nominatim"
	Router       string        // "embedded" (default, also "") or "osrm"
	NominatimURL string        // required when Geocoder is "nominatim"
	OSRMURL      string        // required when Router is "osrm"
	Timeout      time.Duration // per HTTP request; 0 means DefaultTimeout
	UserAgent    string        // "" means DefaultUserAgent
	// NominatimMinInterval spaces Nominatim requests at least this far
	// apart ([WithMinInterval]); the public nominatim.openstreetmap.org
	// allows one a second. 0 means [DefaultNominatimMinInterval]; negative
	// means no limit, for a self-hosted instance.
	NominatimMinInterval time.Duration
	// CacheTTL and CacheSize bound each HTTP back end's answer cache
	// ([WithCache]). 0 means [DefaultCacheTTL] and [DefaultCacheSize];
	// negative turns the cache off.
	CacheTTL  time.Duration
	CacheSize int
	// BreakerFailures consecutive failed exchanges open an HTTP back end's
	// circuit breaker for BreakerOpen ([WithBreaker]). 0 means
	// [DefaultBreakerFailures] and [DefaultBreakerOpen]; negative
	// BreakerFailures turns the breaker off.
	BreakerFailures int
	BreakerOpen     time.Duration
	// Logger receives the HTTP back ends' breaker and cool-down notices.
	// Zero: slog.Default().
	Logger *slog.Logger
}

// Build constructs the configured geocoder and router. It fails on an
// unknown back-end name or a missing URL, so that a misconfigured server
// stops at start-up rather than at the first quote.
func (c Config) Build() (Geocoder, Router, error) {
	opts := []Option{WithTimeout(c.Timeout), WithUserAgent(c.UserAgent), WithLogger(c.Logger),
		WithCache(orDefault(c.CacheSize, DefaultCacheSize), orDefault(c.CacheTTL, DefaultCacheTTL)),
		WithBreaker(orDefault(c.BreakerFailures, DefaultBreakerFailures), c.BreakerOpen)}
	var g Geocoder
	switch c.Geocoder {
	case "", BackendEmbedded:
		eg, err := NewEmbeddedGeocoder()
		if err != nil {
			return nil, nil, err
		}
		g = eg
	case BackendNominatim:
		if c.NominatimURL == "" {
			return nil, nil, fmt.Errorf("geo: GEOCODER=nominatim needs NOMINATIM_URL")
		}
		g = NewNominatim(c.NominatimURL, append(opts, WithMinInterval(orDefault(c.NominatimMinInterval, DefaultNominatimMinInterval)))...)
	default:
		return nil, nil, fmt.Errorf("geo: GEOCODER=%q: want %q or %q", c.Geocoder, BackendEmbedded, BackendNominatim)
	}
	var r Router
	switch c.Router {
	case "", BackendEmbedded:
		r = NewEmbeddedRouter()
	case BackendOSRM:
		if c.OSRMURL == "" {
			return nil, nil, fmt.Errorf("geo: ROUTER=osrm needs OSRM_URL")
		}
		r = NewOSRM(c.OSRMURL, opts...)
	default:
		return nil, nil, fmt.Errorf("geo: ROUTER=%q: want %q or %q", c.Router, BackendEmbedded, BackendOSRM)
	}
	return g, r, nil
}

// orDefault is v, or def when v is zero; a negative v (off) passes through
// to the option, which reads it as off.
func orDefault[N int | time.Duration](v, def N) N {
	if v == 0 {
		return def
	}
	return v
}

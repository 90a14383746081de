package geo

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"
)

// Back-end names accepted in [Config] (and the GEOCODER / ROUTER variables).
const (
	BackendEmbedded  = "embedded"
	BackendNominatim = "nominatim"
	BackendOSRM      = "osrm"
)

// Config selects and configures the geocoder and router, as the server's
// environment does. The zero value selects the embedded back ends.
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

// ConfigFromEnv reads GEOCODER, ROUTER, NOMINATIM_URL, OSRM_URL,
// GEO_TIMEOUT, NOMINATIM_MIN_INTERVAL, GEO_CACHE_TTL, GEO_CACHE_SIZE,
// GEO_BREAKER_FAILURES and GEO_BREAKER_OPEN (durations as Go writes them,
// "5s") through getenv (os.Getenv in production, a map lookup in tests).
// In the environment, 0 turns the rate limit, the cache or the breaker off;
// unset keeps the default.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Geocoder:     getenv("GEOCODER"),
		Router:       getenv("ROUTER"),
		NominatimURL: getenv("NOMINATIM_URL"),
		OSRMURL:      getenv("OSRM_URL"),
	}
	if s := getenv("GEO_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("geo: GEO_TIMEOUT=%q: want a positive duration such as 5s", s)
		}
		c.Timeout = d
	}
	var err error
	if c.NominatimMinInterval, err = offOrDuration(getenv, "NOMINATIM_MIN_INTERVAL", "1s"); err != nil {
		return Config{}, err
	}
	if c.CacheTTL, err = offOrDuration(getenv, "GEO_CACHE_TTL", "10m"); err != nil {
		return Config{}, err
	}
	if s := getenv("GEO_CACHE_SIZE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return Config{}, fmt.Errorf("geo: GEO_CACHE_SIZE=%q: want a positive number of entries (GEO_CACHE_TTL=0 turns the cache off)", s)
		}
		c.CacheSize = n
	}
	if s := getenv("GEO_BREAKER_FAILURES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return Config{}, fmt.Errorf("geo: GEO_BREAKER_FAILURES=%q: want a whole number (0 for no breaker)", s)
		}
		c.BreakerFailures = n
		if n == 0 {
			c.BreakerFailures = -1
		}
	}
	if s := getenv("GEO_BREAKER_OPEN"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("geo: GEO_BREAKER_OPEN=%q: want a positive duration such as 30s", s)
		}
		c.BreakerOpen = d
	}
	return c, nil
}

// offOrDuration reads a non-negative duration; "0" comes back as -1 (off,
// in [Config]'s terms), unset as 0 (the default).
func offOrDuration(getenv func(string) string, name, example string) (time.Duration, error) {
	s := getenv(name)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("geo: %s=%q: want a duration such as %s (0 for none)", name, s, example)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
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

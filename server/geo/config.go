package geo

import (
	"fmt"
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
	// allows one a second. 0 means no limit, for a self-hosted instance.
	NominatimMinInterval time.Duration
}

// ConfigFromEnv reads GEOCODER, ROUTER, NOMINATIM_URL, OSRM_URL,
// GEO_TIMEOUT and NOMINATIM_MIN_INTERVAL (Go durations such as "5s")
// through getenv (os.Getenv in production, a map lookup in tests).
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
	if s := getenv("NOMINATIM_MIN_INTERVAL"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return Config{}, fmt.Errorf("geo: NOMINATIM_MIN_INTERVAL=%q: want a duration such as 1s (0 for none)", s)
		}
		c.NominatimMinInterval = d
	}
	return c, nil
}

// Build constructs the configured geocoder and router. It fails on an
// unknown back-end name or a missing URL, so that a misconfigured server
// stops at start-up rather than at the first quote.
func (c Config) Build() (Geocoder, Router, error) {
	opts := []Option{WithTimeout(c.Timeout), WithUserAgent(c.UserAgent)}
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
		g = NewNominatim(c.NominatimURL, append(opts, WithMinInterval(c.NominatimMinInterval))...)
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

package trident

import (
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// Defaults for the zero values of [Options].
const (
	// Path is where the Trident endpoint is served.
	Path                  = "/mcp"
	DefaultBookingBaseURL = "https://tridenttaxis.online"
)

// Options configures the Trident endpoint. A nil *Options, and every zero
// field, means the documented default, so that New(nil) is the public
// endpoint of the specification.
type Options struct {
	// ResourceURL is the canonical MCP resource URI of /mcp
	// (MCP_RESOURCE_URL), the RFC 9728 "resource" and the RFC 8707 audience
	// in OAuth mode. Zero: the host's PUBLIC_BASE_URL + "/mcp".
	ResourceURL string

	// BookingBaseURL is the operator's site (BOOKING_BASE_URL): the
	// get_service_info bookingUrl, and the base of start_booking links
	// (<BookingBaseURL>/book?...). Zero: [DefaultBookingBaseURL].
	BookingBaseURL string

	// Tariff prices trips and says which vehicles seat how many.
	// Zero: fare.Default(), the tariff in contracts/trident/.
	Tariff *fare.Tariff

	// Geocoder and Router resolve addresses and driving routes.
	// Zero: the embedded geocoder and router ([geo.NewEmbeddedGeocoder],
	// [geo.NewEmbeddedRouter]).
	Geocoder geo.Geocoder
	Router   geo.Router

	// Now is the clock that picks the tariff band when a call gives no
	// departAt. Zero: time.Now.
	Now func() time.Time

	// RateLimit selects the per-client limiter (RATE_LIMIT): "" or "off"
	// for none (the specification enforces none), "seed" for its suggested
	// caps ([SeedRateLimit]). Zero: off.
	RateLimit string

	// RateLimitPolicy overrides the preset that RateLimit names, for tests
	// and operators with other numbers. Zero: the preset.
	RateLimitPolicy *limits.Policy

	// SharedLimiter counts the limiter's rates across every replica
	// ([limits.Redis] over REDIS_URL), so the caps hold for a client
	// whichever replica it reaches; it serves a policy that does not name
	// its own [limits.Policy.Shared]. A decision it cannot make (Redis
	// down) lets the call through and is logged. Zero: each replica counts
	// on its own.
	SharedLimiter limits.Limiter

	// Logger receives the tools' own records (a refusal's cause). Zero:
	// slog.Default().
	Logger *slog.Logger
}

// resolve fills defaults and checks the URLs, so that a misconfigured
// endpoint stops at start-up with the variable to fix.
func (o *Options) resolve() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.ResourceURL != "" {
		if err := checkURL("MCP_RESOURCE_URL", r.ResourceURL); err != nil {
			return r, err
		}
	}
	if r.BookingBaseURL == "" {
		r.BookingBaseURL = DefaultBookingBaseURL
	}
	if err := checkURL("BOOKING_BASE_URL", r.BookingBaseURL); err != nil {
		return r, err
	}
	switch r.RateLimit {
	case "", "off", "seed":
	default:
		return r, fmt.Errorf("trident: RATE_LIMIT=%q: want off or seed", r.RateLimit)
	}
	if r.Tariff == nil {
		r.Tariff = fare.Default()
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Geocoder == nil {
		g, err := geo.NewEmbeddedGeocoder()
		if err != nil {
			return r, fmt.Errorf("trident: embedded geocoder: %w", err)
		}
		r.Geocoder = g
	}
	if r.Router == nil {
		r.Router = geo.NewEmbeddedRouter()
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	return r, nil
}

func checkURL(name, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("trident: %s=%q: want an absolute http(s) URL", name, s)
	}
	return nil
}

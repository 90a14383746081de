package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// relayHost is what Relay's options take from the host, not from Relay's
// own settings: known only once the server listens, or opened by it.
type relayHost struct {
	// selfMCP is this server's own /mcp on loopback (selfMCPURL of ADDR):
	// the Trident source when RELAY_TRIDENT_URL is not given.
	selfMCP string
	// internalToken is server.Options.InternalToken, presented only to
	// this server's own /mcp.
	internalToken string
	// selfHandler serves selfMCP in this process (nil: over loopback TCP).
	selfHandler http.Handler
	// publicBaseURL is PUBLIC_BASE_URL as the host settled it (from the
	// listener when unset): the default base of Trident's resource in
	// Relay's token requests.
	publicBaseURL string
	// redis is the host's one client (openRedis), nil without REDIS_URL;
	// redisPrefix is REDIS_KEY_PREFIX.
	redis       redis.UniversalClient
	redisPrefix string
	logger      *slog.Logger
}

// relayOptions turns Relay's settings into its options. A setting whose
// empty value means something is read with isGiven (RELAY_TRIDENT_URL=
// disables the Trident source). The host's own settings Relay depends on
// are read the same way (OAUTH_ISSUER, MCP_RESOURCE_URL), or come from h.
func relayOptions(v values, h relayHost) (*relay.Options, error) {
	get := v.get
	o := &relay.Options{
		ResourceURL:   get("RELAY_RESOURCE_URL"),
		ProvidersFile: get("RELAY_PROVIDERS_FILE"),
		Uber:          uber.Config{BaseURL: get("UBER_API_URL"), AccessToken: get("UBER_ACCESS_TOKEN")},
		Lyft:          lyft.Config{BaseURL: get("LYFT_API_URL"), ClientID: get("LYFT_CLIENT_ID"), ClientSecret: get("LYFT_CLIENT_SECRET")},
		Logger:        h.logger,
	}
	if v := get("RELAY_SIGNING_KEYS"); v != "" {
		k, err := signing.ParseKeys(v)
		if err != nil {
			return nil, err
		}
		o.Keys = k
	}
	if v := get("RELAY_OPTION_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%q: %w", v, err)
		}
		if d <= 0 || d > relay.MaxOptionTTL {
			return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%q: want a duration above 0 and at most %s", v, relay.MaxOptionTTL)
		}
		o.OptionTTL = d
	}
	// This server's own Trident unless RELAY_TRIDENT_URL is given (empty:
	// none); only that one gets the host's internal token.
	o.TridentURL = get("RELAY_TRIDENT_URL")
	if !v.isGiven("RELAY_TRIDENT_URL") {
		o.TridentURL, o.TridentInternalToken, o.TridentHandler = h.selfMCP, h.internalToken, h.selfHandler
	}
	if o.TridentURL != "" {
		c, err := tridentCredentials(get, h.publicBaseURL)
		if err != nil {
			return nil, err
		}
		o.TridentCredentials = c
	}
	var err error
	if o.ActorLimit, err = perMinute(v, "RELAY_RATE_LIMIT", true); err != nil {
		return nil, err
	}
	if o.ProviderBudget, err = perMinute(v, "RELAY_PROVIDER_BUDGET", false); err != nil {
		return nil, err
	}
	if h.redis != nil {
		o.Redis, o.RedisPrefix = h.redis, h.redisPrefix+"relay:"
	}
	if o.DatabaseURL = get("RELAY_DATABASE_URL"); o.DatabaseURL == "" {
		o.DatabaseURL = store.DefaultURL
	}
	o.Retention = store.DefaultRetention
	if v := get("RELAY_RETENTION"); v != "" {
		if o.Retention, err = store.ParseRetention(v); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// perMinute reads a limit in calls per minute; with zeroOff, 0 turns the
// limit off (RELAY_RATE_LIMIT=0). Unset, it is the option's zero value,
// Relay's default.
func perMinute(v values, env string, zeroOff bool) (limits.Limit, error) {
	s := v.get(env)
	if s == "" {
		return limits.Limit{}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || (n == 0 && !zeroOff) {
		return limits.Limit{}, fmt.Errorf("relay: %s=%q: want a positive number of calls per minute", env, s)
	}
	if n == 0 {
		return limits.Limit{Rate: -1}, nil // relay.Options' "no limit"
	}
	return limits.PerMinute(n), nil
}

// tridentCredentials are Relay's own client credentials for Trident in
// OAuth mode, nil when RELAY_TRIDENT_CLIENT_ID is unset (Relay then calls
// Trident without a token, as in public mode). The token endpoint defaults
// to OAUTH_ISSUER's (Supabase's layout), the resource to Trident's:
// MCP_RESOURCE_URL, else the public base URL + /mcp. A half-set
// configuration fails at start.
func tridentCredentials(get func(string) string, publicBaseURL string) (*sources.TridentCredentials, error) {
	c := &sources.TridentCredentials{ClientID: get("RELAY_TRIDENT_CLIENT_ID"), ClientSecret: get("RELAY_TRIDENT_CLIENT_SECRET")}
	if c.ClientID == "" {
		return nil, nil
	}
	if c.ClientSecret == "" {
		return nil, errors.New("relay: RELAY_TRIDENT_CLIENT_ID is set but RELAY_TRIDENT_CLIENT_SECRET is not")
	}
	c.TokenURL = get("RELAY_TRIDENT_TOKEN_URL")
	if c.TokenURL == "" {
		iss := strings.TrimRight(get("OAUTH_ISSUER"), "/")
		if iss == "" {
			return nil, errors.New("relay: RELAY_TRIDENT_CLIENT_ID needs OAUTH_ISSUER (or RELAY_TRIDENT_TOKEN_URL) for the token endpoint")
		}
		c.TokenURL = iss + "/oauth/token"
	}
	c.Resource = get("RELAY_TRIDENT_RESOURCE")
	if c.Resource == "" {
		c.Resource = get("MCP_RESOURCE_URL")
	}
	if c.Resource == "" {
		if base := strings.TrimRight(publicBaseURL, "/"); base != "" {
			c.Resource = base + "/mcp"
		}
	}
	if c.Resource == "" {
		return nil, errors.New("relay: RELAY_TRIDENT_CLIENT_ID needs Trident's resource: set MCP_RESOURCE_URL, PUBLIC_BASE_URL or RELAY_TRIDENT_RESOURCE")
	}
	return c, nil
}

// selfMCPURL is the loopback URL of this server's own Trident endpoint for
// a listen address such as ":8080" or "0.0.0.0:8080": Relay's default
// Trident source, reached without leaving the machine whatever
// PUBLIC_BASE_URL says. A port of 0 has no URL before listening; set
// RELAY_TRIDENT_URL then.
func selfMCPURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" || port == "" {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}

// hostOptions are the server's own settings: what every endpoint shares.
func hostOptions(v values) (server.Options, error) {
	o := server.Options{
		PublicBaseURL:    v.get("PUBLIC_BASE_URL"),
		AllowedOrigins:   splitList(v.get("ALLOWED_ORIGINS")),
		ProtocolVersions: splitList(v.get("MCP_PROTOCOL_VERSIONS")),
		MaxBodyBytes:     v.integer("MAX_BODY_BYTES"),
	}
	if o.MaxBodyBytes <= 0 {
		return o, fmt.Errorf("MAX_BODY_BYTES=%q: want a positive number of bytes", v.get("MAX_BODY_BYTES"))
	}
	if v.boolean("MCP_REQUIRE_OAUTH") {
		if v.get("OAUTH_ISSUER") == "" {
			return o, errors.New("MCP_REQUIRE_OAUTH=true needs OAUTH_ISSUER")
		}
		o.Auth = &auth.Config{Issuer: v.get("OAUTH_ISSUER")}
	}
	// SHUTDOWN_DELAY=0 turns the drain off (server.Options' "none" is
	// negative); the timeouts must be positive.
	o.ShutdownDelay = v.duration("SHUTDOWN_DELAY")
	switch {
	case o.ShutdownDelay < 0:
		return o, fmt.Errorf("SHUTDOWN_DELAY=%q: want a duration such as 5s (0 for none)", v.get("SHUTDOWN_DELAY"))
	case o.ShutdownDelay == 0:
		o.ShutdownDelay = -1
	}
	for _, t := range []struct {
		env string
		to  *time.Duration
	}{{"SHUTDOWN_TIMEOUT", &o.ShutdownTimeout}, {"READ_HEADER_TIMEOUT", &o.ReadHeaderTimeout}} {
		if *t.to = v.duration(t.env); *t.to <= 0 {
			return o, fmt.Errorf("%s=%q: want a positive duration such as 10s", t.env, v.get(t.env))
		}
	}
	return o, nil
}

// tridentOptions are Trident's settings but its back ends (geoConfig).
func tridentOptions(v values) (trident.Options, error) {
	o := trident.Options{
		ResourceURL:    v.get("MCP_RESOURCE_URL"),
		BookingBaseURL: v.get("BOOKING_BASE_URL"),
		RateLimit:      v.get("RATE_LIMIT"),
	}
	if s := v.get("FARE_CLOCK"); s != "" {
		at, _ := time.Parse(time.RFC3339, s) // checked as a time when set
		o.Now = func() time.Time { return at }
	}
	return o, nil
}

// geoConfig selects and configures Trident's geocoder and router. In the
// settings 0 turns Nominatim's spacing, the cache or the breaker off, which
// geo.Config writes as negative (its zero is the default).
func geoConfig(v values) (geo.Config, error) {
	c := geo.Config{
		Geocoder: v.get("GEOCODER"), Router: v.get("ROUTER"),
		NominatimURL: v.get("NOMINATIM_URL"), OSRMURL: v.get("OSRM_URL"),
		Timeout: v.duration("GEO_TIMEOUT"), BreakerOpen: v.duration("GEO_BREAKER_OPEN"),
	}
	if c.Timeout <= 0 {
		return c, fmt.Errorf("GEO_TIMEOUT=%q: want a positive duration such as 5s", v.get("GEO_TIMEOUT"))
	}
	if c.BreakerOpen <= 0 {
		return c, fmt.Errorf("GEO_BREAKER_OPEN=%q: want a positive duration such as 30s", v.get("GEO_BREAKER_OPEN"))
	}
	off := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	for _, d := range []struct {
		env string
		to  *time.Duration
	}{{"NOMINATIM_MIN_INTERVAL", &c.NominatimMinInterval}, {"GEO_CACHE_TTL", &c.CacheTTL}} {
		if *d.to = v.duration(d.env); *d.to < 0 {
			return c, fmt.Errorf("%s=%q: want a duration such as 1s (0 for none)", d.env, v.get(d.env))
		}
		*d.to = off(*d.to)
	}
	if c.CacheSize = int(v.integer("GEO_CACHE_SIZE")); c.CacheSize <= 0 {
		return c, fmt.Errorf("GEO_CACHE_SIZE=%q: want a positive number of entries (GEO_CACHE_TTL=0 turns the cache off)", v.get("GEO_CACHE_SIZE"))
	}
	switch n := v.integer("GEO_BREAKER_FAILURES"); {
	case n < 0:
		return c, fmt.Errorf("GEO_BREAKER_FAILURES=%q: want a whole number (0 for no breaker)", v.get("GEO_BREAKER_FAILURES"))
	case n == 0:
		c.BreakerFailures = -1
	default:
		c.BreakerFailures = int(n)
	}
	return c, nil
}

// splitList reads a comma-separated setting, blanks dropped; nil when empty.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

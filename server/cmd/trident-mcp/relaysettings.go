package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
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

// relayOptions turns Relay's settings into its options. get is a
// setting's value (the flag, else the variable, else the default of vars);
// given says whether a setting was given at all, for the one whose empty
// value means something (RELAY_TRIDENT_URL= disables the Trident source).
// The host's own settings Relay depends on are read the same way
// (OAUTH_ISSUER, MCP_RESOURCE_URL), or come from h.
func relayOptions(get func(string) string, given func(string) bool, h relayHost) (*relay.Options, error) {
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
	if !given("RELAY_TRIDENT_URL") {
		o.TridentURL, o.TridentInternalToken = h.selfMCP, h.internalToken
	}
	if o.TridentURL != "" {
		c, err := tridentCredentials(get, h.publicBaseURL)
		if err != nil {
			return nil, err
		}
		o.TridentCredentials = c
	}
	var err error
	if o.ActorLimit, err = perMinute(get, "RELAY_RATE_LIMIT", true); err != nil {
		return nil, err
	}
	if o.ProviderBudget, err = perMinute(get, "RELAY_PROVIDER_BUDGET", false); err != nil {
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
func perMinute(get func(string) string, env string, zeroOff bool) (limits.Limit, error) {
	s := get(env)
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

// lookupEnv tells a variable set to empty from one not set, which getenv
// cannot: RELAY_TRIDENT_URL= in the environment disables the source.
var lookupEnv = os.LookupEnv

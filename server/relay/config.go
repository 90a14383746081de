package relay

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/providers/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/providers/uber"
)

// OptionsFromEnv reads Relay's configuration variables through lookup
// (os.LookupEnv in the binary): RELAY_SIGNING_KEYS, RELAY_OPTION_TTL,
// RELAY_RESOURCE_URL, RELAY_PROVIDERS_FILE, RELAY_TRIDENT_URL and the Uber
// and Lyft credentials (see addEstimators), RELAY_RATE_LIMIT,
// RELAY_PROVIDER_BUDGET and REDIS_URL (see limitsFromEnv; [WithRedis]
// hands it the host's client instead). selfMCP is this server's own
// Trident endpoint, the Trident source when RELAY_TRIDENT_URL is unset; set
// and empty, it disables the source. RELAY_RESOURCE_URL is the endpoint's
// resource URI (zero: the host's public base URL + /mcp/rides).
func OptionsFromEnv(lookup func(string) (string, bool), selfMCP string, opts ...EnvOption) (*Options, error) {
	var e envOptions
	for _, opt := range opts {
		opt(&e)
	}
	o := &Options{Sources: map[string]Source{}}
	if v, ok := lookup("RELAY_SIGNING_KEYS"); ok && v != "" {
		k, err := ParseKeys(v)
		if err != nil {
			return nil, err
		}
		o.Keys = k
	}
	if v, ok := lookup("RELAY_OPTION_TTL"); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%q: %w", v, err)
		}
		if d <= 0 || d > MaxOptionTTL {
			return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%q: want a duration above 0 and at most %s", v, MaxOptionTTL)
		}
		o.OptionTTL = d
	}
	o.ResourceURL, _ = lookup("RELAY_RESOURCE_URL")
	path, _ := lookup("RELAY_PROVIDERS_FILE")
	reg, err := LoadRegistry(path)
	if err != nil {
		return nil, err
	}
	o.Registry = reg
	getenv := func(k string) string { v, _ := lookup(k); return v }
	if err := addEstimators(o, reg, getenv); err != nil {
		return nil, err
	}
	url, set := lookup("RELAY_TRIDENT_URL")
	if !set {
		url = selfMCP
	}
	if _, listed := reg.Lookup("trident"); listed && url != "" {
		access, err := tridentAccess(getenv)
		if err != nil {
			return nil, err
		}
		// Only to this server's own Trident: the token is the host's.
		if !set && e.internalToken != "" {
			access = append(access, client.WithHeader(mcphttp.InternalCallerHeader, e.internalToken))
		}
		src, err := NewTridentSource(url, access...)
		if err != nil {
			return nil, err
		}
		o.Sources["trident"] = src
	}
	// Last: nothing after it can fail with a Redis client of its own open.
	if err := limitsFromEnv(context.Background(), o, getenv, e); err != nil {
		return nil, err
	}
	return o, nil
}

// EnvOption gives [OptionsFromEnv] and [FromEnv] what the host has already
// opened, in place of what the environment would make Relay open itself.
type EnvOption func(*envOptions)

type envOptions struct {
	redis         redis.UniversalClient
	redisPrefix   string
	internalToken string
}

// WithInternalToken hands Relay the host's internal token
// ([github.com/tridenttaxis/trident-mcp/server.Options.InternalToken]),
// which its Trident source presents when it prices through this server's
// own /mcp (RELAY_TRIDENT_URL unset). Trident's per-client rate limit
// (RATE_LIMIT=seed: estimate_fare 30 a minute, 2 at once) is for outside
// callers; a search asks estimate_fare once per vehicle class, and
// every caller's search would share one bucket, Relay's. Relay's own
// limits already bound those calls: the caller's RELAY_RATE_LIMIT and
// Trident's RELAY_PROVIDER_BUDGET. A Trident elsewhere never sees the
// token.
func WithInternalToken(token string) EnvOption {
	return func(e *envOptions) { e.internalToken = token }
}

// WithRedis hands Relay the host's Redis client and the prefix of Relay's
// keys (REDIS_KEY_PREFIX + "relay:"), so that a process serving several
// endpoints holds one client to one Redis rather than one per endpoint;
// REDIS_URL, REDIS_KEY_PREFIX and REDIS_TIMEOUT are then not read, and Relay never closes
// the client. It is an option of the environment readers rather than only
// an [Options] field because they would otherwise open a client of their
// own from REDIS_URL before the caller could set one. Without it,
// REDIS_URL still gives Relay a client of its own, so FromEnv stands alone.
func WithRedis(client redis.UniversalClient, prefix string) EnvOption {
	return func(e *envOptions) { e.redis, e.redisPrefix = client, prefix }
}

// addEstimators configures Uber (UBER_API_URL, UBER_ACCESS_TOKEN) and Lyft
// (LYFT_API_URL, LYFT_CLIENT_ID, LYFT_CLIENT_SECRET) when the registry
// lists them; without credentials a source is left out, so a search reports
// it credentials_required and never calls it.
func addEstimators(o *Options, reg *Registry, getenv func(string) string) error {
	if _, ok := reg.Lookup(uber.Provider); ok {
		c, err := uber.New(uber.ConfigFromEnv(getenv), nil)
		if err != nil {
			return err
		}
		if c.Configured() {
			o.Sources[uber.Provider] = EstimatorSource{Estimator: c, Operation: "GET " + uber.PricePath}
		}
	}
	if _, ok := reg.Lookup(lyft.Provider); ok {
		c, err := lyft.New(lyft.ConfigFromEnv(getenv), nil)
		if err != nil {
			return err
		}
		if c.Configured() {
			o.Sources[lyft.Provider] = EstimatorSource{Estimator: c, Operation: "GET " + lyft.CostPath}
		}
	}
	return nil
}

// FromEnv builds the Relay endpoint from the environment (see
// [OptionsFromEnv]) for the host to mount beside Trident's, with its store
// opened from RELAY_DATABASE_URL and purged after RELAY_RETENTION (see
// storeFromEnv).
func FromEnv(lookup func(string) (string, bool), selfMCP string, logger *slog.Logger, opts ...EnvOption) (*mcphttp.Endpoint, error) {
	o, err := OptionsFromEnv(lookup, selfMCP, opts...)
	if err != nil {
		return nil, err
	}
	o.Logger = logger
	closeRedis := func() {
		if o.CloseLimiter != nil {
			o.CloseLimiter()
		}
	}
	if o.Store, o.Retention, err = storeFromEnv(lookup); err != nil {
		closeRedis()
		return nil, err
	}
	s, err := New(o)
	if err != nil {
		o.Store.Close()
		closeRedis()
		return nil, err
	}
	ep := s.Endpoint()
	ep.Close = func() error {
		s.Close()
		return o.Store.Close()
	}
	return ep, nil
}

// SelfMCPURL is the loopback URL of this server's own Trident endpoint for
// a listen address such as ":8080" or "0.0.0.0:8080": Relay's default
// Trident source, reached without leaving the machine whatever
// PUBLIC_BASE_URL says. A port of 0 has no URL before listening; set
// RELAY_TRIDENT_URL then.
func SelfMCPURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" || port == "" {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}

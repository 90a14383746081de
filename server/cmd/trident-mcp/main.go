// Command trident-mcp runs the Trident Taxis MCP server.
//
// Configuration comes from the environment, as the README's table lists it;
// each variable has a flag of the same name in lower case with dashes
// (ADDR is -addr, BOOKING_BASE_URL is -booking-base-url), and a flag given on
// the command line wins over the variable:
//
//	ADDR               :8080                      listen address
//	PUBLIC_BASE_URL    http://<ADDR>              where clients reach the server (localhost for a host left out)
//	MCP_RESOURCE_URL   $PUBLIC_BASE_URL/mcp       canonical resource URI (OAuth audience)
//	BOOKING_BASE_URL   https://tridenttaxis.online  base of booking links
//	MCP_REQUIRE_OAUTH  false                      OAuth 2.1 resource-server mode
//	OAUTH_ISSUER       (none)                     issuer URL; required in OAuth mode
//	GEOCODER, ROUTER   embedded                   nominatim / osrm select HTTP back ends
//	NOMINATIM_URL, OSRM_URL, GEO_TIMEOUT          for those back ends
//	NOMINATIM_MIN_INTERVAL  1s                    spacing of Nominatim requests (0 for a self-hosted instance)
//	GEO_CACHE_TTL, GEO_CACHE_SIZE  10m, 4096      answer cache of the HTTP back ends (GEO_CACHE_TTL=0: off)
//	GEO_BREAKER_FAILURES, GEO_BREAKER_OPEN  5, 30s  circuit breaker of the HTTP back ends (0 failures: off)
//	ALLOWED_ORIGINS    (PUBLIC_BASE_URL + loopback)  comma-separated browser origins, or *
//	RATE_LIMIT         off                        off, or seed (the specification's suggested caps)
//	REDIS_URL          (none)                     share the limiters' counts and Relay's cool-downs across replicas (redis://host:6379/0); one client for both endpoints
//	REDIS_KEY_PREFIX   trident-mcp:               keeps this deployment's keys apart on a shared Redis
//	REDIS_TIMEOUT      250ms                      each Redis call's budget; a Redis slower than that (or hung) is not waited for: calls fall back
//	MAX_BODY_BYTES     1048576                    larger request bodies get 413
//	MCP_PROTOCOL_VERSIONS  (all)                  comma-separated MCP revisions to serve
//	LOG_LEVEL          info                       debug, info, warn or error
//	SHUTDOWN_DELAY     5s                         on SIGTERM, serve this long with /readyz 503 before closing (0: none)
//	SHUTDOWN_TIMEOUT   30s                        then wait this long for calls in flight
//	READ_HEADER_TIMEOUT  10s                      time allowed for a request's headers (slow clients are cut off)
//
// Relay's settings (RELAY_SIGNING_KEYS, RELAY_DATABASE_URL, RELAY_RETENTION,
// RELAY_RATE_LIMIT, RELAY_PROVIDER_BUDGET, UBER_*, LYFT_* and the others of
// the vars table) are flags the same way, read by relay.FromEnv.
//
// It logs JSON to stderr and shuts down gracefully on SIGTERM or SIGINT:
// it reports not ready and keeps serving for SHUTDOWN_DELAY, then lets
// calls in flight finish. -h prints the endpoints, every flag with
// its type and default, and examples; -version the version and the MCP
// protocol revisions. A mistake on the command line (an unknown flag, a
// value of the wrong type, a positional argument) exits 2.
// With -stdio it serves the same tools over MCP's stdio transport instead,
// for clients that launch a local binary: JSON-RPC on stdin and stdout,
// logs on stderr only.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/providers/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/providers/uber"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "trident-mcp:", err)
		if errors.As(err, new(usageError)) {
			fmt.Fprintln(os.Stderr, "Run 'trident-mcp -h' for the flags.")
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// config is the parsed command line and environment.
type config struct {
	version  bool // -version: print it and exit
	addr     string
	stdio    bool // serve on stdin/stdout instead of HTTP (stdio.go)
	fixtures bool // CONFORMANCE_FIXTURES: mount the conformance fixtures endpoint too (fixtures.go)
	logLevel slog.Level
	host     server.Options  // what every endpoint shares
	trident  trident.Options // the Trident endpoint at /mcp

	redisURL, redisPrefix string            // REDIS_URL, REDIS_KEY_PREFIX: the one Redis client (limiter.go)
	redisTimeout          time.Duration     // REDIS_TIMEOUT: the budget of each of its calls
	oauthIssuer           string            // OAUTH_ISSUER, flag or variable, for Relay's own token requests
	relayFlags            map[string]string // Relay's settings given as flags, by variable
	geo                   geo.Config        // built in run, with the server's logger
}

// vars lists each setting: environment variable, flag, default and help;
// kinds (flags.go) gives the type of those that are not strings.
var vars = []struct{ env, def, help string }{
	{"ADDR", ":8080", "listen address"},
	{"PUBLIC_BASE_URL", "", "where clients reach this server (default http://<ADDR>, localhost for a host left out or 0.0.0.0)"},
	{"MCP_RESOURCE_URL", "", "canonical MCP resource URI (default $PUBLIC_BASE_URL/mcp)"},
	{"BOOKING_BASE_URL", trident.DefaultBookingBaseURL, "operator site: base of booking links"},
	{"MCP_REQUIRE_OAUTH", "false", "require OAuth 2.1 bearer tokens on /mcp"},
	{"OAUTH_ISSUER", "", "OAuth issuer URL (required with MCP_REQUIRE_OAUTH=true)"},
	{"GEOCODER", geo.BackendEmbedded, "embedded or nominatim"},
	{"ROUTER", geo.BackendEmbedded, "embedded or osrm"},
	{"NOMINATIM_URL", "", "Nominatim base URL (GEOCODER=nominatim)"},
	{"OSRM_URL", "", "OSRM base URL (ROUTER=osrm)"},
	{"GEO_TIMEOUT", geo.DefaultTimeout.String(), "per-request timeout of the HTTP back ends"},
	{"NOMINATIM_MIN_INTERVAL", geo.DefaultNominatimMinInterval.String(), "least time between Nominatim requests, as nominatim.openstreetmap.org asks (0 for none)"},
	{"GEO_CACHE_TTL", geo.DefaultCacheTTL.String(), "how long the HTTP back ends' answers are cached (0 for no cache)"},
	{"GEO_CACHE_SIZE", strconv.Itoa(geo.DefaultCacheSize), "answers cached per HTTP back end"},
	{"GEO_BREAKER_FAILURES", strconv.Itoa(geo.DefaultBreakerFailures), "consecutive failures that open an HTTP back end's circuit breaker (0 for none)"},
	{"GEO_BREAKER_OPEN", geo.DefaultBreakerOpen.String(), "how long an open breaker fails calls fast before a probe"},
	{"ALLOWED_ORIGINS", "", "comma-separated allowed browser origins, or * (default: PUBLIC_BASE_URL and loopback)"},
	{"RATE_LIMIT", "off", "off or seed"},
	{"REDIS_URL", "", "Redis URL (redis://host:6379/0): the rate limiters' counts and Relay's provider cool-downs are shared by every replica using it, one client for both endpoints (default: per process)"},
	{"REDIS_KEY_PREFIX", "trident-mcp:", "prefix of this deployment's keys in Redis"},
	{"REDIS_TIMEOUT", limits.DefaultTimeout.String(), "budget of each Redis call: when Redis takes longer (or hangs), the limits admit the call and the cool-downs are answered from this replica's own; Redis is asked again every 2s"},
	{"MAX_BODY_BYTES", strconv.Itoa(server.DefaultMaxBodyBytes), "request body limit in bytes"},
	{"MCP_PROTOCOL_VERSIONS", "", "comma-separated MCP revisions to serve (default all: " + strings.Join(mcphttp.ProtocolVersions(), ",") + ")"},
	{"LOG_LEVEL", "info", "debug, info, warn or error"},
	{"SHUTDOWN_DELAY", server.DefaultShutdownDelay.String(), "on SIGTERM, keep serving this long with /readyz 503 before the listener closes (0 for none)"},
	{"SHUTDOWN_TIMEOUT", server.DefaultShutdownTimeout.String(), "then wait this long for calls in flight"},
	{"READ_HEADER_TIMEOUT", server.DefaultReadHeaderTimeout.String(), "a client that takes longer to send its request headers is cut off (slow-loris)"},
	{"CONFORMANCE_FIXTURES", "false", fixturesHelp},
	{"FARE_CLOCK", "", "freeze the clock that picks the tariff band for calls without departAt at this RFC 3339 instant (replaying samples, demos); unset means real time"},
	// Relay rides (/mcp/rides): read by relay.FromEnv, through relayLookup.
	{"RELAY_SIGNING_KEYS", "", "kid:base64key,... signing Relay's options and contexts; the first signs, all verify; replicas share it (default: a random key per process, with a warning)"},
	{"RELAY_OPTION_TTL", relay.MaxOptionTTL.String(), "lifetime of a Relay option, at most " + relay.MaxOptionTTL.String()},
	{"RELAY_RESOURCE_URL", "", "Relay's canonical resource URI (default $PUBLIC_BASE_URL/mcp/rides)"},
	{"RELAY_PROVIDERS_FILE", "", "provider registry JSON (default the shipped contracts/relay/providers.json)"},
	{"RELAY_TRIDENT_URL", "", "Trident endpoint Relay prices with (default this server's own /mcp; set empty to disable)"},
	{"RELAY_TRIDENT_CLIENT_ID", "", "OAuth mode: Relay's own confidential client, for a client-credentials token to call Trident with (never its caller's token; none: Relay calls Trident without one)"},
	{"RELAY_TRIDENT_CLIENT_SECRET", "", "that client's secret"},
	{"RELAY_TRIDENT_TOKEN_URL", "", "token endpoint of that client-credentials request (default $OAUTH_ISSUER/oauth/token)"},
	{"RELAY_TRIDENT_RESOURCE", "", "RFC 8707 resource of that request (default $MCP_RESOURCE_URL, else $PUBLIC_BASE_URL/mcp)"},
	{"RELAY_RATE_LIMIT", strconv.Itoa(relay.DefaultActorPerMinute), "Relay tool calls per minute per caller, over which a call is refused rate_limited (0 for no limit)"},
	{"RELAY_PROVIDER_BUDGET", strconv.Itoa(relay.DefaultProviderPerMinute), "upstream requests per minute per provider, from all callers; a spent budget cools the provider down"},
	{"RELAY_DATABASE_URL", store.DefaultURL, "Relay's store of sessions, journeys and events: sqlite:PATH (one machine) or postgres://... (several replicas); migrations run at start"},
	{"RELAY_RETENTION", retentionDays(store.DefaultRetention), "how long Relay keeps idle journeys and retained events, a duration or whole days (720h, 30d); a background purge deletes the rest"},
	{"UBER_API_URL", uber.DefaultBaseURL, "Uber API base URL"},
	{"UBER_ACCESS_TOKEN", "", "Uber access token for price estimates (none: Uber is not queried)"},
	{"LYFT_API_URL", lyft.DefaultBaseURL, "Lyft API base URL"},
	{"LYFT_CLIENT_ID", "", "Lyft client id for cost estimates (none: Lyft is not queried)"},
	{"LYFT_CLIENT_SECRET", "", "Lyft client secret"},
}

// retentionDays writes a retention as RELAY_RETENTION's documented whole
// days ("30d").
func retentionDays(d time.Duration) string { return strconv.Itoa(int(d/(24*time.Hour))) + "d" }

// relayVar tells the settings relay.FromEnv reads itself from the others.
func relayVar(env string) bool {
	return strings.HasPrefix(env, "RELAY_") || strings.HasPrefix(env, "UBER_") || strings.HasPrefix(env, "LYFT_")
}

// relayLookup is what relay.FromEnv reads its settings through: a flag given
// on the command line (even empty: -relay-trident-url= disables the
// source), else the environment, as lookup says it. The host's own
// settings Relay reads are the host's values, flag or variable: REDIS_URL,
// REDIS_KEY_PREFIX and REDIS_TIMEOUT (Relay is handed the host's client, openRedis, and
// with -redis-url= it must not open one from the environment either), and
// OAUTH_ISSUER, MCP_RESOURCE_URL and PUBLIC_BASE_URL (the token endpoint
// and resource of Relay's own client-credentials token for Trident; the
// base URL as the host settled it, from the listener when unset).
func (c *config) relayLookup(lookup func(string) (string, bool)) func(string) (string, bool) {
	return func(env string) (string, bool) {
		switch env {
		case "REDIS_URL":
			return c.redisURL, c.redisURL != ""
		case "REDIS_KEY_PREFIX":
			return c.redisPrefix, true
		case "REDIS_TIMEOUT":
			return c.redisTimeout.String(), true
		case "OAUTH_ISSUER":
			return c.oauthIssuer, c.oauthIssuer != ""
		case "MCP_RESOURCE_URL":
			return c.trident.ResourceURL, c.trident.ResourceURL != ""
		case "PUBLIC_BASE_URL":
			return c.host.PublicBaseURL, c.host.PublicBaseURL != ""
		}
		if v, ok := c.relayFlags[env]; ok {
			return v, true
		}
		return lookup(env)
	}
}

func flagName(env string) string { return strings.ReplaceAll(strings.ToLower(env), "_", "-") }

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

// parseConfig reads the environment through getenv, then the flags in args.
// It returns a helpRequest for -h, and a usageError for a mistake on the
// command line; -version returns a config that says only that.
func parseConfig(args []string, getenv func(string) string) (*config, error) {
	fs := flag.NewFlagSet("trident-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run prints -h and the errors itself
	values := map[string]*setting{}
	for _, v := range vars {
		s := &setting{kind: kindOf(v.env), value: v.def}
		if e := getenv(v.env); e != "" {
			if err := s.Set(e); err != nil {
				return nil, fmt.Errorf("%s=%q: %w", v.env, e, err)
			}
		}
		values[v.env] = s
		fs.Var(s, flagName(v.env), v.help)
	}
	version := fs.Bool("version", false, "print the version and the MCP protocol revisions, and exit")
	stdio := fs.Bool("stdio", false, stdioHelp)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, helpRequest{fs}
		}
		return nil, usageError{err}
	}
	// The flag package stops at the first argument that is not a flag, so
	// every flag after it would be silently ignored.
	if fs.NArg() > 0 {
		return nil, usageErrorf("unexpected argument %q: trident-mcp takes flags only (flags after it would be ignored)", fs.Arg(0))
	}
	if *version {
		return &config{version: true}, nil
	}
	// Every name read below has a flag; one that had none would read as
	// unset rather than crash.
	get := func(env string) string {
		if v := values[env]; v != nil {
			return v.value
		}
		return ""
	}

	c := &config{addr: get("ADDR"), stdio: *stdio, redisURL: get("REDIS_URL"), redisPrefix: get("REDIS_KEY_PREFIX"),
		oauthIssuer: get("OAUTH_ISSUER"), relayFlags: map[string]string{}}
	fs.Visit(func(f *flag.Flag) {
		if v, ok := f.Value.(*setting); ok {
			for _, row := range vars {
				if flagName(row.env) == f.Name && relayVar(row.env) {
					c.relayFlags[row.env] = v.value
				}
			}
		}
	})
	if err := c.logLevel.UnmarshalText([]byte(get("LOG_LEVEL"))); err != nil {
		return nil, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", get("LOG_LEVEL"))
	}
	if d, err := time.ParseDuration(get("REDIS_TIMEOUT")); err == nil && d > 0 {
		c.redisTimeout = d
	} else {
		return nil, fmt.Errorf("REDIS_TIMEOUT=%q: want a positive duration such as 250ms", get("REDIS_TIMEOUT"))
	}
	o, t := &c.host, &c.trident
	o.PublicBaseURL = get("PUBLIC_BASE_URL")
	t.ResourceURL = get("MCP_RESOURCE_URL")
	t.BookingBaseURL = get("BOOKING_BASE_URL")
	t.RateLimit = get("RATE_LIMIT")
	o.AllowedOrigins = splitList(get("ALLOWED_ORIGINS"))
	o.ProtocolVersions = splitList(get("MCP_PROTOCOL_VERSIONS"))
	n, err := strconv.ParseInt(get("MAX_BODY_BYTES"), 10, 64)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("MAX_BODY_BYTES=%q: want a positive number of bytes", get("MAX_BODY_BYTES"))
	}
	o.MaxBodyBytes = n
	requireOAuth, err := strconv.ParseBool(get("MCP_REQUIRE_OAUTH"))
	if err != nil {
		return nil, fmt.Errorf("MCP_REQUIRE_OAUTH=%q: want true or false", get("MCP_REQUIRE_OAUTH"))
	}
	if requireOAuth {
		if get("OAUTH_ISSUER") == "" {
			return nil, errors.New("MCP_REQUIRE_OAUTH=true needs OAUTH_ISSUER")
		}
		o.Auth = &auth.Config{Issuer: get("OAUTH_ISSUER")}
	}
	if c.fixtures, err = strconv.ParseBool(get("CONFORMANCE_FIXTURES")); err != nil {
		return nil, fmt.Errorf("CONFORMANCE_FIXTURES=%q: want true or false", get("CONFORMANCE_FIXTURES"))
	}
	if s := get("FARE_CLOCK"); s != "" {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, fmt.Errorf("FARE_CLOCK=%q: want an RFC 3339 instant such as 2025-06-18T09:00:00Z", s)
		}
		t.Now = func() time.Time { return at }
	}
	if err := parseTimeouts(get, o); err != nil {
		return nil, err
	}
	if c.geo, err = geo.ConfigFromEnv(get); err != nil {
		return nil, err
	}
	return c, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, getenv)
	var help helpRequest
	switch {
	case errors.As(err, &help):
		usage(stdout, help.fs, getenv)
		return nil
	case err != nil:
		return err
	case c.version:
		printVersion(stdout)
		return nil
	}
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: c.logLevel}))
	c.host.Logger, c.trident.Logger, c.geo.Logger = logger, logger, logger
	if c.trident.Geocoder, c.trident.Router, err = c.geo.Build(); err != nil {
		return err
	}
	if c.stdio {
		return serveStdio(ctx, c, logger)
	}
	relayRedis, closeRedis, err := openRedis(ctx, c)
	if err != nil {
		return err
	}
	defer closeRedis() // after srv.Close: the endpoints are done with it
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers a failed start
	if c.host.PublicBaseURL == "" {
		c.host.PublicBaseURL = listenBaseURL(c.addr, ln.Addr())
	}
	tridentEP, err := trident.New(&c.trident)
	if err != nil {
		return err
	}
	// Each MCP endpoint is one package; mounting another is one more
	// argument here.
	// Relay prices through this server's own /mcp; its calls there carry
	// a secret of this process and skip Trident's per-client rate limit.
	c.host.InternalToken = internalToken()
	relayOpts := append(relayRedis, relay.WithInternalToken(c.host.InternalToken))
	relayEP, err := relay.FromEnv(c.relayLookup(os.LookupEnv), relay.SelfMCPURL(c.addr), logger, relayOpts...)
	if err != nil {
		return err
	}
	endpoints, err := c.withFixtures(logger, tridentEP, relayEP)
	if err != nil {
		return err
	}
	srv, err := server.New(&c.host, endpoints...)
	if err != nil {
		return err
	}
	defer srv.Close()
	logger.Info("trident-mcp listening", slog.String("addr", ln.Addr().String()),
		slog.String("public_base_url", c.host.PublicBaseURL), slog.Bool("oauth", c.host.Auth != nil),
		slog.String("rate_limit", c.trident.RateLimit))
	return srv.Serve(ctx, ln)
}

// internalToken is a fresh secret for the host's own loopback calls
// (server.Options.InternalToken): 256 random bits, never written anywhere.
func internalToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("trident-mcp: no randomness for the internal token: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

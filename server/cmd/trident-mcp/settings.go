package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// group is whom a setting configures: the host (every endpoint) or one
// endpoint. -h and the README list the settings by group.
type group string

const (
	groupServer  group = "server"
	groupTrident group = "trident"
	groupRelay   group = "relay"
	groupTracing group = "tracing"
)

// groups are the groups in the order -h and the README show them, with
// their headings.
var groups = []struct {
	id    group
	title string
}{
	{groupServer, "The server (every endpoint)"},
	{groupTrident, "Trident Taxis (/mcp)"},
	{groupRelay, "Relay rides (/mcp/rides)"},
	{groupTracing, "Tracing (OpenTelemetry, every endpoint)"},
}

// settingDef is one setting of the binary, described once: the flags, -h,
// the reading of the environment and the README's configuration tables
// (TestREADMESettings, `make generate`) all come from [settings].
type settingDef struct {
	env   string // the environment variable; the flag is flagName(env)
	kind  kind
	def   string // the default the setting holds ("": none)
	shown string // the default as -h and the README say it, when the setting holds none but one is derived ("http://<ADDR>")
	// secret: -h never prints the value, the README marks it; a URL kind
	// with credentials is printed with its password masked.
	secret bool
	group  group
	help   string // one line
}

// settings are every setting of the binary, grouped by whom they
// configure; options.go turns their values into each package's options.
var settings = []settingDef{
	// The server.
	{env: "ADDR", kind: kindString, def: ":8080", group: groupServer, help: "listen address"},
	{env: "PUBLIC_BASE_URL", kind: kindString, shown: "http://<ADDR>", group: groupServer,
		help: "where clients reach this server: base of the well-known and docs links (unset: the listening address, localhost for a host left out or 0.0.0.0; set it behind a proxy)"},
	{env: "MCP_REQUIRE_OAUTH", kind: kindBool, def: "false", group: groupServer, help: "OAuth 2.1 resource-server mode on every endpoint: each call needs a bearer token from OAUTH_ISSUER"},
	{env: "OAUTH_ISSUER", kind: kindString, group: groupServer, help: "OAuth issuer URL: discovery, JWKS and the exact iss check derive from it (required with MCP_REQUIRE_OAUTH=true)"},
	{env: "ALLOWED_ORIGINS", kind: kindString, shown: "PUBLIC_BASE_URL and loopback", group: groupServer, help: "comma-separated browser origins allowed, or * (DNS-rebinding protection: others get 403)"},
	{env: "MAX_BODY_BYTES", kind: kindInt, def: strconv.Itoa(server.DefaultMaxBodyBytes), group: groupServer, help: "request body limit in bytes (413 above it)"},
	{env: "MCP_PROTOCOL_VERSIONS", kind: kindString, shown: "all: " + strings.Join(mcphttp.ProtocolVersions(), ","), group: groupServer,
		help: "comma-separated MCP revisions to serve, to pin those an operator has certified (initialize negotiates the newest; other MCP-Protocol-Version headers get 400)"},
	{env: "REDIS_URL", kind: kindCredentialURL, group: groupServer,
		help: "Redis URL (redis://host:6379/0): every replica using it shares the rate limits, Relay's budgets and provider cool-downs; one client for every endpoint, checked at start (unset: each replica counts on its own)"},
	{env: "REDIS_KEY_PREFIX", kind: kindString, def: "trident-mcp:", group: groupServer, help: "prefix of this deployment's keys in Redis (each endpoint adds its own: trident:, relay:)"},
	{env: "REDIS_TIMEOUT", kind: kindDuration, def: limits.DefaultTimeout.String(), group: groupServer,
		help: "budget of each Redis call: a slower or hung Redis is not waited for (limits admit the call, cool-downs are this replica's own) and is asked again every 2s"},
	{env: "LOG_LEVEL", kind: kindString, def: "info", group: groupServer, help: "debug, info, warn or error (JSON on stderr; never a token, header or argument)"},
	{env: "SHUTDOWN_DELAY", kind: kindDuration, def: server.DefaultShutdownDelay.String(), group: groupServer,
		help: "on SIGTERM, keep serving this long with /readyz 503 and every reply closing its connection, so a load balancer stops sending (0 for none)"},
	{env: "SHUTDOWN_TIMEOUT", kind: kindDuration, def: server.DefaultShutdownTimeout.String(), group: groupServer, help: "then wait this long for calls in flight"},
	{env: "READ_HEADER_TIMEOUT", kind: kindDuration, def: server.DefaultReadHeaderTimeout.String(), group: groupServer,
		help: "a client that takes longer to send its request headers is cut off (slow-loris)"},
	{env: "GOGC", kind: kindString, def: strconv.Itoa(server.DefaultGCPercent), group: groupServer,
		help: "the garbage collector's target as the Go runtime reads it: heap growth in percent over the live heap between collections, or off (the live heap is a few MB, so the default spends some 16 MB of heap to collect a quarter as often as Go's 100)"},
	{env: "CONFORMANCE_FIXTURES", kind: kindBool, def: "false", group: groupServer, help: fixturesHelp},

	// Trident Taxis.
	{env: "MCP_RESOURCE_URL", kind: kindString, shown: "$PUBLIC_BASE_URL/mcp", group: groupTrident, help: "Trident's canonical resource URI (RFC 8707 audience, RFC 9728 resource)"},
	{env: "BOOKING_BASE_URL", kind: kindString, def: trident.DefaultBookingBaseURL, group: groupTrident, help: "the operator's site: base of start_booking links and bookingUrl"},
	{env: "RATE_LIMIT", kind: kindString, def: "off", group: groupTrident,
		help: "off, or seed: per-client caps at the specification's suggested rates (429 with Retry-After); Relay's own calls to this server's /mcp are not counted"},
	{env: "FARE_CLOCK", kind: kindTime, shown: "real time", group: groupTrident,
		help: "freeze the clock that picks the tariff band for calls without departAt at this RFC 3339 instant (replaying samples, demos)"},
	{env: "GEOCODER", kind: kindString, def: geo.BackendEmbedded, group: groupTrident, help: "embedded, or nominatim for Nominatim's HTTP API at NOMINATIM_URL"},
	{env: "ROUTER", kind: kindString, def: geo.BackendEmbedded, group: groupTrident, help: "embedded, or osrm for OSRM's HTTP API at OSRM_URL"},
	{env: "NOMINATIM_URL", kind: kindString, group: groupTrident, help: "Nominatim base URL (GEOCODER=nominatim)"},
	{env: "OSRM_URL", kind: kindString, group: groupTrident, help: "OSRM base URL (ROUTER=osrm)"},
	{env: "GEO_TIMEOUT", kind: kindDuration, def: geo.DefaultTimeout.String(), group: groupTrident, help: "per-request timeout of the HTTP back ends"},
	{env: "NOMINATIM_MIN_INTERVAL", kind: kindDuration, def: geo.DefaultNominatimMinInterval.String(), group: groupTrident,
		help: "least time between Nominatim requests, as nominatim.openstreetmap.org asks (0 for none)"},
	{env: "GEO_CACHE_TTL", kind: kindDuration, def: geo.DefaultCacheTTL.String(), group: groupTrident, help: "how long the HTTP back ends' answers are cached (0 for no cache)"},
	{env: "GEO_CACHE_SIZE", kind: kindInt, def: strconv.Itoa(geo.DefaultCacheSize), group: groupTrident, help: "answers cached per HTTP back end"},
	{env: "GEO_BREAKER_FAILURES", kind: kindInt, def: strconv.Itoa(geo.DefaultBreakerFailures), group: groupTrident,
		help: "consecutive failures that open an HTTP back end's circuit breaker (0 for none)"},
	{env: "GEO_BREAKER_OPEN", kind: kindDuration, def: geo.DefaultBreakerOpen.String(), group: groupTrident, help: "how long an open breaker fails calls fast before a probe"},

	// Relay rides.
	{env: "RELAY_SIGNING_KEYS", kind: kindString, shown: "a key generated once and kept in the SQLite store; required with PostgreSQL", secret: true, group: groupRelay,
		help: "kid:base64key,... (32 bytes or more each) signing Relay's options and contexts; the first signs, all verify; replicas share it. Unset: a key generated on the first start and kept in RELAY_DATABASE_URL's SQLite file, so a restart keeps options and contexts valid; with a postgres:// store the server refuses to start without it"},
	{env: "RELAY_OPTION_TTL", kind: kindDuration, def: relay.MaxOptionTTL.String(), group: groupRelay, help: "lifetime of a Relay option, at most " + relay.MaxOptionTTL.String() + " (the server refuses to start above it)"},
	{env: "RELAY_RESOURCE_URL", kind: kindString, shown: "$PUBLIC_BASE_URL/mcp/rides", group: groupRelay,
		help: "Relay's canonical resource URI (its RFC 9728 metadata is at /.well-known/oauth-protected-resource/mcp/rides)"},
	{env: "RELAY_PROVIDERS_FILE", kind: kindString, shown: "the shipped contracts/relay/providers.json", group: groupRelay,
		help: "the provider registry: access, coverage, link templates, agent policy"},
	{env: "RELAY_TRIDENT_URL", kind: kindString, shown: "this server's own /mcp on loopback", group: groupRelay, help: "the Trident endpoint Relay prices with; set empty to disable that source"},
	{env: "RELAY_TRIDENT_CLIENT_ID", kind: kindString, group: groupRelay,
		help: "OAuth mode: Relay's own confidential client, for a client-credentials token to call Trident with, never its caller's (unset: Relay calls Trident without a token)"},
	{env: "RELAY_TRIDENT_CLIENT_SECRET", kind: kindString, secret: true, group: groupRelay, help: "that client's secret"},
	{env: "RELAY_TRIDENT_TOKEN_URL", kind: kindString, shown: "$OAUTH_ISSUER/oauth/token", group: groupRelay, help: "token endpoint of that client-credentials request"},
	{env: "RELAY_TRIDENT_RESOURCE", kind: kindString, shown: "$MCP_RESOURCE_URL, else $PUBLIC_BASE_URL/mcp", group: groupRelay, help: "RFC 8707 resource of that request"},
	{env: "RELAY_RATE_LIMIT", kind: kindInt, def: strconv.Itoa(relay.DefaultActorPerMinute), group: groupRelay,
		help: "Relay tool calls per minute per caller (OAuth: sub + client_id; public: remote address), over which a call is refused rate_limited (0 for no limit)"},
	{env: "RELAY_PROVIDER_BUDGET", kind: kindInt, def: strconv.Itoa(relay.DefaultProviderPerMinute), group: groupRelay,
		help: "upstream requests per minute per provider, from all callers; a spent budget cools the provider down without calling it"},
	{env: "RELAY_DATABASE_URL", kind: kindCredentialURL, def: store.DefaultURL, group: groupRelay,
		help: "Relay's store of sessions, journeys and events: sqlite:PATH (one machine) or postgres://... (several replicas); migrations run at start"},
	{env: "RELAY_RETENTION", kind: kindPeriod, def: retentionDays(store.DefaultRetention), group: groupRelay,
		help: "how long Relay keeps idle journeys and retained events, a duration or whole days (720h, 30d); a background purge deletes the rest"},
	{env: "UBER_API_URL", kind: kindString, def: uber.DefaultBaseURL, group: groupRelay, help: "Uber API base URL"},
	{env: "UBER_ACCESS_TOKEN", kind: kindString, secret: true, group: groupRelay, help: "Uber access token for price estimates (GET /v1.2/estimates/price) and pickup ETAs (GET /v1.2/estimates/time); unset: Uber is credentials_required, not called"},
	{env: "LYFT_API_URL", kind: kindString, def: lyft.DefaultBaseURL, group: groupRelay, help: "Lyft API base URL"},
	{env: "LYFT_CLIENT_ID", kind: kindString, group: groupRelay, help: "Lyft client id for cost estimates (GET /v1/cost) and pickup ETAs (GET /v1/eta), with a client-credentials token; unset: Lyft is not called"},
	{env: "LYFT_CLIENT_SECRET", kind: kindString, secret: true, group: groupRelay, help: "Lyft client secret"},

	// Tracing: the OpenTelemetry SDK's standard variables (tracing.go).
	{env: "OTEL_TRACES_EXPORTER", kind: kindString, shown: "none, or otlp when an OTLP endpoint is set", group: groupTracing,
		help: "otlp to export traces over OTLP, none for no tracing (tracing is off unless this or an endpoint asks for it)"},
	{env: "OTEL_EXPORTER_OTLP_ENDPOINT", kind: kindString, group: groupTracing,
		help: "OTLP collector base URL (http://collector:4318 for OTLP/HTTP, to which /v1/traces is added; http://collector:4317 for gRPC); setting it turns tracing on"},
	{env: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", kind: kindString, group: groupTracing, help: "the traces endpoint URL, used as given (wins over OTEL_EXPORTER_OTLP_ENDPOINT)"},
	{env: "OTEL_EXPORTER_OTLP_PROTOCOL", kind: kindString, def: "http/protobuf", group: groupTracing, help: "http/protobuf or grpc"},
	{env: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", kind: kindString, shown: "$OTEL_EXPORTER_OTLP_PROTOCOL", group: groupTracing, help: "the protocol of traces (wins over OTEL_EXPORTER_OTLP_PROTOCOL)"},
	{env: "OTEL_EXPORTER_OTLP_HEADERS", kind: kindString, secret: true, group: groupTracing, help: "headers of every export, key=value,... percent-encoded (a collector's API key)"},
	{env: "OTEL_TRACES_SAMPLER", kind: kindString, def: "parentbased_always_on", group: groupTracing,
		help: "always_on, always_off, traceidratio, or parentbased_ one of those (follow the caller's sampling decision)"},
	{env: "OTEL_TRACES_SAMPLER_ARG", kind: kindString, shown: "1.0", group: groupTracing, help: "the ratio of the traceidratio samplers, from 0 to 1"},
	{env: "OTEL_SERVICE_NAME", kind: kindString, def: "trident-mcp", group: groupTracing, help: "service.name of the spans"},
	{env: "OTEL_RESOURCE_ATTRIBUTES", kind: kindString, group: groupTracing, help: "more resource attributes, key=value,... (deployment.environment.name=prod)"},
	{env: "OTEL_SDK_DISABLED", kind: kindBool, def: "false", group: groupTracing, help: "true turns tracing off whatever else is set"},
}

// retentionDays writes a retention as RELAY_RETENTION's documented whole
// days ("30d").
func retentionDays(d time.Duration) string { return strconv.Itoa(int(d/(24*time.Hour))) + "d" }

func flagName(env string) string { return strings.ReplaceAll(strings.ToLower(env), "_", "-") }

// lookupSetting returns the definition of env; ok is false for a name that
// is no setting.
func lookupSetting(env string) (settingDef, bool) {
	i := slices.IndexFunc(settings, func(s settingDef) bool { return s.env == env })
	if i < 0 {
		return settingDef{}, false
	}
	return settings[i], true
}

// environ reads one environment variable: its value, and whether it is set
// at all (a variable set to empty is given: RELAY_TRIDENT_URL= disables the
// source). os.LookupEnv in production, a map in tests.
type environ func(name string) (string, bool)

// values are the settings as the command line and the environment give
// them: a flag wins over its variable, the variable over the default.
type values struct {
	byEnv map[string]*setting
	given map[string]bool // set by a flag or a variable, even empty
}

// get is a setting's value; a name that is no setting panics, since every
// name read is in the table and a typo must not read as "unset".
func (v values) get(env string) string {
	s, ok := v.byEnv[env]
	if !ok {
		panic("trident-mcp: no setting named " + env)
	}
	return s.value
}

// isGiven says whether the setting was given at all.
func (v values) isGiven(env string) bool { return v.given[env] }

// duration, integer and boolean read a setting of that kind; its value was
// checked as it was set, so they cannot fail.
func (v values) duration(env string) time.Duration {
	d, _ := time.ParseDuration(v.get(env))
	return d
}

func (v values) integer(env string) int64 {
	n, _ := strconv.ParseInt(v.get(env), 10, 64)
	return n
}

func (v values) boolean(env string) bool {
	b, _ := strconv.ParseBool(v.get(env))
	return b
}

// defineSettings reads every setting from the environment, then declares
// its flag on fs; fs.Parse then overrides what the command line gives. A
// variable of the wrong type fails here, naming it.
func defineSettings(fs *flag.FlagSet, env environ) (values, error) {
	v := values{byEnv: map[string]*setting{}, given: map[string]bool{}}
	for _, d := range settings {
		s := &setting{kind: d.kind, value: d.def}
		if e, ok := env(d.env); ok {
			v.given[d.env] = true
			if e != "" {
				if err := s.Set(e); err != nil {
					return values{}, fmt.Errorf("%s=%q: %w", d.env, e, err)
				}
			} else if d.kind == kindString || d.kind == kindCredentialURL || d.kind == kindTime {
				s.value = ""
			}
		}
		v.byEnv[d.env] = s
		fs.Var(s, flagName(d.env), d.help)
	}
	return v, nil
}

// markGiven records the settings the command line gave (after fs.Parse).
func (v values) markGiven(fs *flag.FlagSet) {
	fs.Visit(func(f *flag.Flag) {
		for _, d := range settings {
			if flagName(d.env) == f.Name {
				v.given[d.env] = true
			}
		}
	})
}

// shownDefault is a setting's default as -h and the README say it; "" when
// it has none.
func (d settingDef) shownDefault() string {
	if d.def != "" {
		return d.def
	}
	return d.shown
}

// writeSettingsMarkdown writes the README's table of g's settings: one row
// per setting with its variable, flag, type, default and help.
func writeSettingsMarkdown(w io.Writer, g group) {
	fmt.Fprintln(w, "| variable | flag | type | default | meaning |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, d := range settings {
		if d.group != g {
			continue
		}
		def := "none"
		if s := d.shownDefault(); s != "" {
			def = s
			if d.def != "" {
				def = "`" + s + "`"
			}
		}
		help := d.help
		if d.secret {
			help += " (a secret: -h and the logs never show it)"
		}
		fmt.Fprintf(w, "| `%s` | `-%s` | %s | %s | %s |\n", d.env, flagName(d.env), d.kind.name(), def, strings.ReplaceAll(help, "|", `\|`))
	}
}

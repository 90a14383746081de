package relay

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// Defaults for the zero values of [Options].
const (
	// Path is where the Relay endpoint is served, beside Trident's /mcp.
	Path = "/mcp/rides"
	// MaxOptionTTL is the longest an option may live (the specification's
	// five minutes), and OptionTTL's zero value.
	MaxOptionTTL = 5 * time.Minute
	// DefaultCallTimeout bounds one upstream call.
	DefaultCallTimeout = 5 * time.Second
	// MaxSources is how many eligible API sources one search queries.
	MaxSources = 2
	// DefaultLimit is search_rides' limit when the call gives none.
	DefaultLimit = 6
	// DefaultActorPerMinute and DefaultProviderPerMinute are Relay's
	// limits (RELAY_RATE_LIMIT, RELAY_PROVIDER_BUDGET). The actor limit
	// covers every tool call of one caller; the budget every upstream
	// request to one provider, from all callers.
	DefaultActorPerMinute    = 300
	DefaultProviderPerMinute = 600
)

// Options configures the Relay endpoint. A nil *Options, and every zero
// field, means the documented default, so that New(nil) is Relay with no
// priced source: every provider's browser handoff, journeys in a temporary
// store, signed with a key of this process.
type Options struct {
	// ResourceURL is the endpoint's canonical resource URI
	// (RELAY_RESOURCE_URL). Zero: the host's public base URL + [Path].
	ResourceURL string

	// ProvidersFile is the operator's provider registry
	// (RELAY_PROVIDERS_FILE), read by [registry.Load]. Zero: the shipped
	// contracts/relay/providers.json.
	ProvidersFile string
	// Registry is a provider registry already loaded; it takes the place
	// of ProvidersFile. Zero: ProvidersFile's.
	Registry *registry.Registry

	// TridentURL is the Trident endpoint Relay prices with
	// (RELAY_TRIDENT_URL; the binary's default is its own /mcp on
	// loopback), through the generated client. Zero: no Trident source, so
	// a search reports Trident not_eligible (disabled on this server).
	TridentURL string
	// TridentCredentials are Relay's own client credentials for TridentURL
	// in OAuth mode (RELAY_TRIDENT_CLIENT_ID and the rest): each call
	// carries a client-credentials token for Trident's resource, never the
	// caller's token. Zero: Relay calls Trident without a token.
	TridentCredentials *sources.TridentCredentials
	// TridentInternalToken is the host's internal token
	// ([github.com/tridenttaxis/trident-mcp/server.Options.InternalToken]),
	// sent on every call to TridentURL so that those calls skip Trident's
	// per-client rate limit (RATE_LIMIT=seed: estimate_fare 30 a minute, 2
	// at once), which is for outside callers: a search asks estimate_fare
	// once per vehicle class, and every caller's search would share one
	// bucket, Relay's. Relay's own limits bound those calls (ActorLimit,
	// ProviderBudget). Give it only when TridentURL is this host's own
	// /mcp: a Trident elsewhere must never see it. Zero: none sent.
	TridentInternalToken string
	// TridentHandler serves the calls to TridentURL in this process
	// ([client.InProcess]) instead of over a socket: the host's own
	// handler when TridentURL is this host's own /mcp, so that a search's
	// estimate_fare calls still pass Trident's front door and contract,
	// through the generated client, without a loopback TCP round trip each.
	// Give it only with that TridentURL. Zero: calls go over HTTP.
	TridentHandler http.Handler

	// Uber configures Uber's price estimates (UBER_API_URL,
	// UBER_ACCESS_TOKEN), when the registry lists Uber. Zero: Uber is not
	// queried, and a search reports it credentials_required.
	Uber uber.Config
	// Lyft configures Lyft's cost estimates (LYFT_API_URL, LYFT_CLIENT_ID,
	// LYFT_CLIENT_SECRET), when the registry lists Lyft. Zero: Lyft is not
	// queried, and a search reports it credentials_required.
	Lyft lyft.Config

	// Sources add API sources by provider id, or replace those the fields
	// above configure (tests, other providers). Each must be an api
	// provider of the registry. A registry provider of kind api with no
	// source is not queried: credentials_required when its registry entry
	// names credentials, not_eligible (disabled by configuration) when it
	// needs none. Zero: only those of TridentURL, Uber and Lyft.
	Sources map[string]sources.Source

	// Keys sign and verify options and contexts (RELAY_SIGNING_KEYS,
	// parsed by [signing.ParseKeys]); replicas share them. Zero: a key
	// generated once and kept in the store ([store.KeyKeeper]: the SQLite
	// file of DatabaseURL, or Store), so that what was issued stays valid
	// after a restart; with a PostgreSQL store, where several replicas may
	// run, New refuses to start and names RELAY_SIGNING_KEYS; with the
	// temporary store of an endpoint given neither Store nor DatabaseURL,
	// [signing.RandomKeys] for this process, with a warning in the log.
	Keys *signing.Keys

	// OptionTTL is an option's lifetime (RELAY_OPTION_TTL). Zero:
	// [MaxOptionTTL]; above it, or negative, New fails.
	OptionTTL time.Duration

	// CallTimeout bounds each upstream call. Zero: [DefaultCallTimeout].
	CallTimeout time.Duration

	// Now is the clock for issuing and expiring options and for the
	// in-process cool-downs. Zero: time.Now.
	Now func() time.Time

	// Logger receives source failures and warnings; never credentials.
	// Zero: slog.Default().
	Logger *slog.Logger

	// NewID mints the ids of sessions, journeys, intents, requests and
	// options from a prefix ("ses", "opt", ...). Zero: prefix_ and 128
	// random bits in hex. Tests set a counter to make answers reproducible.
	NewID func(prefix string) string

	// Redis is the Redis every replica shares (REDIS_URL): with it, Limiter
	// defaults to [limits.Redis] over it, and a provider's cool-down after a
	// 429 is kept there too ([limits.RedisCooldowns]), so every replica
	// leaves the provider alone until its Retry-After passes. The caller
	// owns the client and closes it after the endpoint. Give it one from
	// [limits.Connect]: its calls are bounded (REDIS_TIMEOUT) and fail at
	// once while Redis does not answer, so a hung Redis does not stall
	// Relay's calls. Zero: limits and cool-downs in process only.
	Redis redis.UniversalClient
	// RedisPrefix keeps Relay's keys apart from the other endpoints' and
	// deployments' on a shared Redis (the binary's is REDIS_KEY_PREFIX +
	// "relay:"). Zero: no prefix.
	RedisPrefix string

	// Limiter counts the per-actor limit and the per-provider budgets.
	// Zero: [limits.Redis] over Redis when it is set, else [limits.Local]
	// on the wall clock.
	Limiter limits.Limiter
	// ActorLimit is each caller's limit over all tools (RELAY_RATE_LIMIT).
	// Zero: [DefaultActorPerMinute] a minute; a negative Rate: no limit.
	ActorLimit limits.Limit
	// ProviderBudget is each provider's limit of upstream requests, from
	// all callers (RELAY_PROVIDER_BUDGET). Zero:
	// [DefaultProviderPerMinute] a minute.
	ProviderBudget limits.Limit

	// Store keeps sessions, journeys, intents, connector reports and
	// events; the caller closes it after the endpoint (several endpoints
	// may share one). Zero: the store DatabaseURL opens.
	Store store.Store
	// DatabaseURL is the store New opens when Store is zero
	// (RELAY_DATABASE_URL: sqlite:PATH, or postgres://… for several
	// replicas; migrations run), closed with the endpoint. Zero, with no
	// Store: SQLite in a temporary directory for this process only, with a
	// warning.
	DatabaseURL string

	// Retention is how long the store keeps what has been idle
	// (RELAY_RETENTION); a background [store.Purger] deletes the rest.
	// Zero: no purger (the caller runs its own, or keeps everything).
	Retention time.Duration
}

// resolve fills the defaults New needs before it opens anything: the clock,
// the log, the ids, the keys, the lifetimes and the registry, so that a
// misconfigured endpoint stops at start-up with the setting to fix.
func (o *Options) resolve() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	switch {
	case r.OptionTTL == 0:
		r.OptionTTL = MaxOptionTTL
	case r.OptionTTL < 0 || r.OptionTTL > MaxOptionTTL:
		return r, fmt.Errorf("relay: RELAY_OPTION_TTL=%s: want a duration above 0 and at most %s", r.OptionTTL, MaxOptionTTL)
	}
	if r.CallTimeout <= 0 {
		r.CallTimeout = DefaultCallTimeout
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if r.NewID == nil {
		r.NewID = randomID
	}
	if r.Keys == nil && r.Store == nil && store.IsPostgres(r.DatabaseURL) {
		return r, errKeysRequired
	}
	if r.Registry == nil {
		reg, err := registry.Load(r.ProvidersFile)
		if err != nil {
			return r, err
		}
		r.Registry = reg
	}
	for _, p := range r.Registry.Providers {
		if !slices.Contains(mcptypes.SearchRidesInputProvidersItemValues, mcptypes.SearchRidesInputProvidersItem(p.ID)) {
			// tools/list's enum, generated from the shipped registry, is
			// where assistants take provider ids from: an id outside it
			// could never be asked for.
			return r, fmt.Errorf("relay: provider registry: provider %q is not in tools/list's provider enum: add it to contracts/relay/providers.json and run make generate", p.ID)
		}
	}
	return r, nil
}

// sources are the API sources r configures, by provider id: Trident at
// TridentURL, Uber and Lyft when their credentials are set (a provider the
// registry does not list is left out), then r.Sources over them. Each must
// be an api provider of the registry.
func (r *Options) sources() (map[string]sources.Source, error) {
	out := map[string]sources.Source{}
	if _, listed := r.Registry.Lookup("trident"); listed && r.TridentURL != "" {
		var access []client.Option
		if r.TridentCredentials != nil {
			access = append(access, client.WithTokenSource(sources.NewTridentTokenSource(*r.TridentCredentials)))
		}
		if r.TridentInternalToken != "" {
			access = append(access, client.WithHeader(mcphttp.InternalCallerHeader, r.TridentInternalToken))
		}
		if r.TridentHandler != nil {
			// Still through telemetry's transport: each call a client span,
			// its context in the traceparent header, as over a socket.
			access = append(access, client.WithHTTPClient(&http.Client{Transport: telemetry.Transport(client.InProcess(r.TridentHandler))}))
		}
		src, err := sources.NewTrident(r.TridentURL, access...)
		if err != nil {
			return nil, err
		}
		out["trident"] = src
	}
	if _, listed := r.Registry.Lookup(uber.Provider); listed {
		c, err := uber.New(r.Uber, nil)
		if err != nil {
			return nil, err
		}
		if c.Configured() {
			out[uber.Provider] = sources.EstimatorSource{Estimator: c, Operation: "GET " + uber.PricePath, ETA: c, ETAOperation: "GET " + uber.TimePath}
		}
	}
	if _, listed := r.Registry.Lookup(lyft.Provider); listed {
		c, err := lyft.New(r.Lyft, nil)
		if err != nil {
			return nil, err
		}
		if c.Configured() {
			out[lyft.Provider] = sources.EstimatorSource{Estimator: c, Operation: "GET " + lyft.CostPath, ETA: c, ETAOperation: "GET " + lyft.ETAPath}
		}
	}
	for id, src := range r.Sources {
		out[id] = src
	}
	for id := range out {
		if p, ok := r.Registry.Lookup(id); !ok || p.Kind != "api" {
			return nil, fmt.Errorf("relay: source %q is not an api provider of the registry", id)
		}
	}
	return out, nil
}

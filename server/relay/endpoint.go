package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/journey"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
)

// Defaults for the zero values of [Options].
const (
	// MaxOptionTTL is the longest an option may live (the specification's
	// five minutes); RELAY_OPTION_TTL above it is refused at start.
	MaxOptionTTL = 5 * time.Minute
	// DefaultCallTimeout bounds one upstream call.
	DefaultCallTimeout = 5 * time.Second
	// MaxSources is how many eligible API sources one search queries.
	MaxSources = 2
	// DefaultLimit is search_rides' limit when the call gives none.
	DefaultLimit = 6
)

// Options configures a [Server]. A nil *Options, and every zero field,
// means the documented default.
type Options struct {
	// Registry is the provider registry. Zero: the shipped
	// contracts/relay/providers.json ([LoadRegistry] with "").
	Registry *Registry

	// Sources are the configured API sources by provider id. A registry
	// provider of kind api without one here is not queried: it is
	// credentials_required when its registry entry names credentials, and
	// not_eligible (disabled by configuration) when it needs none.
	Sources map[string]Source

	// Keys sign and verify options and contexts (RELAY_SIGNING_KEYS).
	// Zero: [RandomKeys], with a warning in the log.
	Keys *Keys

	// OptionTTL is an option's lifetime (RELAY_OPTION_TTL). Zero:
	// [MaxOptionTTL]; above it, or negative, New fails.
	OptionTTL time.Duration

	// CallTimeout bounds each upstream call. Zero: [DefaultCallTimeout].
	CallTimeout time.Duration

	// Now is the clock for issuing and expiring options. Zero: time.Now.
	Now func() time.Time

	// Logger receives source failures and warnings; never credentials.
	// Zero: slog.Default().
	Logger *slog.Logger

	// ResourceURL is the endpoint's canonical resource URI
	// (RELAY_RESOURCE_URL). Zero: the host's public base URL + [Path].
	ResourceURL string

	// Redis is the Redis every replica shares (REDIS_URL): with it, Limiter
	// defaults to [limits.Redis] over it, and a provider's cool-down after a
	// 429 is kept there too, so every replica leaves the provider alone
	// until its Retry-After passes. Relay's keys go under RedisPrefix. The
	// caller owns the client (see CloseLimiter). Give it one from
	// [limits.Connect]: its calls are bounded (REDIS_TIMEOUT) and fail at
	// once while Redis does not answer, so a hung Redis does not stall
	// Relay's calls; a plain go-redis client waits out go-redis's own
	// timeouts (seconds) before Relay falls back. Zero: in process only.
	Redis redis.UniversalClient
	// RedisPrefix keeps Relay's keys apart from the other endpoints' and
	// deployments' on a shared Redis (REDIS_KEY_PREFIX + "relay:").
	RedisPrefix string

	// Limiter counts the per-actor limit and the per-provider budgets
	// (server/limits). Zero: [limits.Redis] over Redis when it is set,
	// else an in-process one.
	Limiter limits.Limiter
	// CloseLimiter releases Limiter and Redis when the endpoint closes: set
	// by [OptionsFromEnv] when it opened the client itself. Zero: nothing.
	CloseLimiter func() error
	// ActorLimit is each caller's limit over all tools (RELAY_RATE_LIMIT).
	// Zero: [DefaultActorPerMinute] a minute; a negative Rate: no limit.
	ActorLimit limits.Limit
	// ProviderBudget is each provider's limit of upstream requests, from
	// all callers (RELAY_PROVIDER_BUDGET). Zero:
	// [DefaultProviderPerMinute] a minute.
	ProviderBudget limits.Limit

	// NewID mints the ids of sessions, journeys, intents, requests and
	// options from a prefix ("ses", "opt", ...). Zero: prefix_ and 128
	// random bits in hex. Tests set a counter to make answers reproducible.
	NewID func(prefix string) string

	// Store keeps sessions, journeys, intents, connector reports and events
	// (RELAY_DATABASE_URL). The caller closes it after the Server. Zero:
	// SQLite in a temporary directory for this process only, with a warning.
	Store store.Store

	// Retention is how long the store keeps what has been idle
	// (RELAY_RETENTION); a background [store.Purger] deletes the rest.
	// Zero: no purger (the caller runs its own, or keeps everything).
	Retention time.Duration
}

// Server is the Relay rides endpoint's tools: their definitions from
// contracts/relay and their handlers. The MCP front door serves them at
// /mcp/rides.
type Server struct {
	registry    *Registry
	sources     map[string]Source
	keys        *Keys
	ttl         time.Duration
	timeout     time.Duration
	now         func() time.Time
	log         *slog.Logger
	manifest    *contracts.Manifest
	inputs      inputSchemas
	tools       []*mcp.Tool
	cooldowns   cooldownStore
	newID       func(prefix string) string
	resourceURL string
	limits      *accessLimits
	closeLimits func() error
	// closeLimitsOnce keeps Close idempotent, as the store's stop is.
	closeLimitsOnce sync.Once
	store           store.Store
	connectors      *journey.Registry
	stop            func() // stops the purger and releases the store
}

// New builds the endpoint. A broken contract, registry or configuration
// fails here rather than on a call.
func New(opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Server{sources: o.Sources, keys: o.Keys, ttl: o.OptionTTL, timeout: o.CallTimeout, now: o.Now, log: o.Logger, registry: o.Registry}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.resourceURL = o.ResourceURL
	s.newID = o.NewID
	if s.newID == nil {
		s.newID = randomID
	}
	switch {
	case s.ttl == 0:
		s.ttl = MaxOptionTTL
	case s.ttl < 0 || s.ttl > MaxOptionTTL:
		return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%s: want a duration above 0 and at most %s", s.ttl, MaxOptionTTL)
	}
	if s.timeout <= 0 {
		s.timeout = DefaultCallTimeout
	}
	if s.keys == nil {
		s.log.Warn("relay: RELAY_SIGNING_KEYS is not set: signing with a random key for this process only; options and contexts will not verify after a restart or on another replica")
		s.keys = RandomKeys()
	}
	var err error
	if s.connectors, err = journey.DefaultRegistry(); err != nil {
		return nil, err
	}
	if s.registry == nil {
		if s.registry, err = LoadRegistry(""); err != nil {
			return nil, err
		}
	}
	for id := range s.sources {
		if p, ok := s.registry.Lookup(id); !ok || p.Kind != "api" {
			return nil, fmt.Errorf("relay: source %q is not an api provider of the registry", id)
		}
	}
	s.limits, s.closeLimits = newAccessLimits(&o, s.log), o.CloseLimiter
	s.cooldowns = newCooldowns(&o, s.now, s.log)
	budgeted := make(map[string]Source, len(s.sources))
	for id, src := range s.sources {
		budgeted[id] = s.budgeted(id, src)
	}
	s.sources = budgeted
	if s.manifest, err = relaycontracts.Set.Manifest(); err != nil {
		return nil, err
	}
	if s.inputs, err = compileInputs(s.manifest); err != nil {
		return nil, err
	}
	handlers := s.handlers()
	for _, ct := range s.manifest.Tools {
		if handlers[ct.Name] == nil {
			return nil, fmt.Errorf("relay: contracts/relay/tools.json lists %q but Relay has no handler for it", ct.Name)
		}
		in, err := ct.Input()
		if err != nil {
			return nil, err
		}
		out, err := ct.Output()
		if err != nil {
			return nil, err
		}
		t := &mcp.Tool{Name: ct.Name, Title: ct.Title, Description: ct.Description, InputSchema: in, OutputSchema: out}
		if len(ct.Annotations) > 0 {
			t.Annotations = new(mcp.ToolAnnotations)
			if err := json.Unmarshal(ct.Annotations, t.Annotations); err != nil {
				return nil, fmt.Errorf("relay: %s annotations: %w", ct.Name, err)
			}
		}
		s.tools = append(s.tools, t)
	}
	if len(handlers) != len(s.tools) {
		return nil, fmt.Errorf("relay: %d handlers for %d tools in contracts/relay/tools.json", len(handlers), len(s.tools))
	}
	// Last: nothing above can fail with the store left open.
	if err := s.openStore(o); err != nil {
		return nil, err
	}
	return s, nil
}

// Manifest is contracts/relay/tools.json.
func (s *Server) Manifest() *contracts.Manifest { return s.manifest }

// Tools returns the tool definitions in tools/list order, with the
// contract's schemas byte for byte.
func (s *Server) Tools() []*mcp.Tool { return s.tools }

// Handlers maps each tool name to its handler.
func (s *Server) Handlers() map[string]mcp.ToolHandler { return s.handlers() }

func (s *Server) handlers() map[string]mcp.ToolHandler {
	return map[string]mcp.ToolHandler{
		mcptypes.ToolSearchRides:           s.searchRides,
		mcptypes.ToolCompareRides:          s.compareRides,
		mcptypes.ToolResolveRide:           s.resolveRide,
		mcptypes.ToolGetRideBookingHandoff: s.getRideBookingHandoff,
		mcptypes.ToolContinueJourney:       s.continueJourney,
	}
}

// Path is where the host mounts Relay.
const Path = "/mcp/rides"

// Endpoint is Relay as an endpoint for the host to mount at [Path], beside
// Trident's /mcp, behind the same front door.
func (s *Server) Endpoint() *mcphttp.Endpoint {
	ep := &mcphttp.Endpoint{
		Path:           Path,
		ResourceURL:    s.resourceURL,
		DocsPath:       DocsAnchor,
		Docs:           s.docs,
		Routes:         s.routes,
		ToolScopes:     ToolScopes,
		RouteScopes:    []string{ScopeJourneysWrite},
		Ready:          func() error { return s.store.Ping(context.Background()) },
		Close:          s.Close,
		Implementation: &mcp.Implementation{Name: s.manifest.Server.Name, Title: "Relay rides", Version: s.manifest.Server.Version},
	}
	h := s.handlers()
	for _, t := range s.tools {
		ep.Tools = append(ep.Tools, mcphttp.Tool{Def: t, Handler: s.limited(t.Name, h[t.Name])})
	}
	return ep
}

// marshal is JSON without HTML escaping: links keep their "&" readable in
// the text block.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("relay: encoding the result: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// result is a tool's answer: structuredContent, and its JSON as text.
func result(out any, isError bool) (*mcp.CallToolResult, error) {
	b, err := marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           isError,
	}, nil
}

// refusal is a refused call: a Refusal result with isError true.
type refusal struct {
	out   mcptypes.Refusal
	cause error // logged, never sent
}

// refuse answers r as the front door's tool error: a result with isError
// true, the Refusal as structuredContent and its JSON as text, counted
// under the catalogue code of its status (RELAY_INVALID_OPTION, ...).
func (s *Server) refuse(_ context.Context, _ string, r *refusal) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(r.out)
	if err != nil {
		return nil, fmt.Errorf("relay: encoding a refusal: %w", err)
	}
	return nil, &mcphttp.ToolError{Code: "RELAY_" + strings.ToUpper(string(r.out.Status)), Text: string(b), Structured: json.RawMessage(b), Cause: r.cause}
}

func message(code errcodes.Code, kv ...string) string {
	msg := errcodes.MustLookup(code).Message
	for i := 0; i+1 < len(kv); i += 2 {
		msg = strings.ReplaceAll(msg, "{"+kv[i]+"}", kv[i+1])
	}
	return msg
}

func invalidArguments(fields ...mcptypes.FieldProblem) *refusal {
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		if f.Field == "" {
			names = append(names, "arguments: "+f.Reason)
		} else {
			names = append(names, f.Field+": "+f.Reason)
		}
	}
	return &refusal{out: mcptypes.Refusal{
		Status:  mcptypes.RefusalStatusInvalidArguments,
		Message: message(errcodes.RelayInvalidArguments, "fields", strings.Join(names, "; ")),
		Fields:  fields,
	}}
}

func invalidOption(cause error) *refusal {
	return &refusal{out: mcptypes.Refusal{Status: mcptypes.RefusalStatusInvalidOption, Message: message(errcodes.RelayInvalidOption)}, cause: cause}
}

func invalidContext(cause error) *refusal {
	return &refusal{out: mcptypes.Refusal{Status: mcptypes.RefusalStatusInvalidContext, Message: message(errcodes.RelayInvalidContext)}, cause: cause}
}

// actor names the caller options and contexts are bound to: the token's
// subject and client in OAuth mode, "anonymous" in public mode (where
// ownership rests on the signed context alone).
func actor(ctx context.Context, req *mcp.CallToolRequest) string {
	var c auth.Caller
	var ok bool
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		c, ok = auth.CallerFromTokenInfo(req.Extra.TokenInfo)
	}
	if !ok {
		c, ok = auth.CallerFrom(ctx)
	}
	if !ok || !c.IsAuthenticated() {
		return "anonymous"
	}
	return "oauth:" + c.UserID() + "|" + c.ClientID()
}

// randomID returns prefix_ and 16 random bytes in hex.
func randomID(prefix string) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("relay: crypto/rand: " + err.Error())
	}
	return prefix + "_" + hex.EncodeToString(b)
}

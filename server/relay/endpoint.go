package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/journey"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// endpoint is what Relay's tools and routes share.
type endpoint struct {
	registry   *registry.Registry
	sources    map[string]sources.Source // each behind its provider's budget
	keys       *signing.Keys
	ttl        time.Duration
	timeout    time.Duration
	now        func() time.Time
	log        *slog.Logger
	newID      func(prefix string) string
	manifest   *contracts.Manifest
	inputs     inputSchemas
	toolDefs   []*mcp.Tool // tools/list order
	limits     *accessLimits
	cooldowns  limits.Cooldowns
	connectors *journey.Registry
	store      store.Store
	obs        *observer    // Relay's series and spans (observe.go)
	stop       func() error // stops the purger and releases the store New opened
}

// New builds the Relay endpoint from opts (nil means every default), for
// a host to mount at [Path] beside Trident's /mcp, behind the same front
// door ([github.com/tridenttaxis/trident-mcp/server.New]). It reads the
// contracts and the provider registry, configures the sources, and opens
// the store last, so that a broken contract, registry or configuration
// fails here rather than on a call, with nothing left open. The host
// calls the endpoint's Close when it closes: it stops the purger and
// closes the store New opened (not one given in [Options.Store]).
func New(opts *Options) (*mcphttp.Endpoint, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	s := &endpoint{registry: o.Registry, keys: o.Keys, ttl: o.OptionTTL, timeout: o.CallTimeout, now: o.Now, log: o.Logger, newID: o.NewID}
	if s.connectors, err = journey.DefaultRegistry(); err != nil {
		return nil, err
	}
	configured, err := o.sources()
	if err != nil {
		return nil, err
	}
	s.limits = newAccessLimits(&o)
	s.cooldowns = limits.Cooldowns(limits.NewLocalCooldowns(s.now))
	if o.Redis != nil {
		s.cooldowns = limits.NewRedisCooldowns(o.Redis, o.RedisPrefix+"cooldown:", s.now)
	}
	s.obs = newObserver(s)
	s.sources = make(map[string]sources.Source, len(configured))
	for id, src := range configured {
		s.sources[id] = s.observed(id, s.budgeted(id, src))
	}
	if s.manifest, err = relaycontracts.Set.Manifest(); err != nil {
		return nil, err
	}
	if s.inputs, err = compileInputs(s.manifest); err != nil {
		return nil, err
	}
	handlers := s.handlers()
	if err := s.buildTools(handlers); err != nil {
		return nil, err
	}
	// Last: nothing above can fail with the store left open.
	if err := s.openStore(o); err != nil {
		return nil, err
	}
	ep := &mcphttp.Endpoint{
		Path:        Path,
		ResourceURL: o.ResourceURL,
		DocsPath:    DocsAnchor,
		Implementation: &mcp.Implementation{
			Name:    s.manifest.Server.Name,
			Title:   "Relay rides",
			Version: s.manifest.Server.Version,
		},
		Docs:        s.docs,
		Routes:      s.routes,
		ToolScopes:  toolScopes,
		RouteScopes: []string{ScopeJourneysWrite},
		Ready:       func() error { return s.store.Ping(context.Background()) },
		Close:       s.stop,
		Collectors:  s.obs.collectors(),
	}
	for _, t := range s.toolDefs {
		ep.Tools = append(ep.Tools, mcphttp.Tool{Def: t, Handler: s.limited(t.Name, handlers[t.Name])})
	}
	return ep, nil
}

func (s *endpoint) handlers() map[string]mcp.ToolHandler {
	return map[string]mcp.ToolHandler{
		mcptypes.ToolSearchRides:           s.searchRides,
		mcptypes.ToolCompareRides:          s.compareRides,
		mcptypes.ToolResolveRide:           s.resolveRide,
		mcptypes.ToolGetRideBookingHandoff: s.getRideBookingHandoff,
		mcptypes.ToolContinueJourney:       s.continueJourney,
	}
}

// buildTools reads each tool of contracts/relay/tools.json with its
// schemas exactly as written, so tools/list serves them byte for byte, and
// checks that every tool has a handler and every handler a tool.
func (s *endpoint) buildTools(handlers map[string]mcp.ToolHandler) error {
	for _, ct := range s.manifest.Tools {
		if handlers[ct.Name] == nil {
			return fmt.Errorf("relay: contracts/relay/tools.json lists %q but Relay has no handler for it", ct.Name)
		}
		in, err := ct.Input()
		if err != nil {
			return err
		}
		out, err := ct.Output()
		if err != nil {
			return err
		}
		t := &mcp.Tool{Name: ct.Name, Title: ct.Title, Description: ct.Description, InputSchema: in, OutputSchema: out}
		if len(ct.Annotations) > 0 {
			t.Annotations = new(mcp.ToolAnnotations)
			if err := json.Unmarshal(ct.Annotations, t.Annotations); err != nil {
				return fmt.Errorf("relay: %s annotations: %w", ct.Name, err)
			}
		}
		s.toolDefs = append(s.toolDefs, t)
	}
	if len(handlers) != len(s.toolDefs) {
		return fmt.Errorf("relay: %d handlers for %d tools in contracts/relay/tools.json", len(handlers), len(s.toolDefs))
	}
	return nil
}

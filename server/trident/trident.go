package trident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
	"github.com/tridenttaxis/trident-mcp/server/trident/geometrics"
	"github.com/tridenttaxis/trident-mcp/server/trident/validate"
)

// endpoint is what the Trident endpoint's routes and tools share.
type endpoint struct {
	opts     Options
	manifest *contracts.Manifest
	tools    *tools
	toolDefs []*mcp.Tool // tools/list order
}

// New builds the Trident endpoint from opts (nil means every default), for
// a host to mount ([github.com/tridenttaxis/trident-mcp/server.New]). It
// reads the endpoint's contracts, compiles the input schemas and checks
// that every tool of the manifest has a handler, so a broken contract or
// configuration fails here rather than on a call.
func New(opts *Options) (*mcphttp.Endpoint, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	e := &endpoint{opts: o}
	e.manifest, err = tridentcontracts.Set.Manifest()
	if err != nil {
		return nil, err
	}
	e.tools = &tools{
		tariff:      o.Tariff.WithClock(o.Now),
		geocoder:    o.Geocoder,
		router:      o.Router,
		bookingBase: strings.TrimRight(o.BookingBaseURL, "/"),
		bookingSite: o.BookingBaseURL,
		inputs:      map[string]*validate.Schema{},
	}
	handlers := e.tools.handlers()
	if err := e.buildTools(handlers); err != nil {
		return nil, err
	}
	ep := &mcphttp.Endpoint{
		Path:         Path,
		ResourceURL:  o.ResourceURL,
		RootMetadata: true,
		DocsPath:     "/mcp-docs",
		Implementation: &mcp.Implementation{
			Name:    e.manifest.Server.Name,
			Title:   "Trident Taxis MCP tools",
			Version: e.manifest.Server.Version,
		},
		Docs:   e.docs,
		Routes: e.routes,
	}
	if c := geoCollector(o.Geocoder, o.Router); c != nil {
		ep.Collectors = append(ep.Collectors, c)
	}
	for _, t := range e.toolDefs {
		ep.Tools = append(ep.Tools, mcphttp.Tool{Def: t, Handler: handlers[t.Name]})
	}
	if o.RateLimit == "seed" || o.RateLimitPolicy != nil {
		p := SeedRateLimit()
		if o.RateLimitPolicy != nil {
			p = *o.RateLimitPolicy
		}
		if p.Shared == nil && o.SharedLimiter != nil {
			p.Shared = o.SharedLimiter
			p.OnSharedError = func(err error) {
				// A call Redis's client did not send because the last one
				// had just failed: that failure was logged, and an outage
				// must not log every call.
				level := slog.LevelWarn
				if errors.Is(err, limits.ErrUnavailable) {
					level = slog.LevelDebug
				}
				o.Logger.Log(context.Background(), level, "rate limit: the shared limiter could not decide; the call goes through", slog.Any("error", err))
			}
		}
		ep.RateLimit = &p
	}
	return ep, nil
}

// buildTools reads each tool of the manifest with its schemas exactly as
// written in contracts/, so tools/list serves them unchanged.
func (e *endpoint) buildTools(handlers map[string]mcp.ToolHandler) error {
	seen := map[string]bool{}
	for _, ct := range e.manifest.Tools {
		if handlers[ct.Name] == nil {
			return fmt.Errorf("trident: the contracts list %q but the endpoint has no handler for it", ct.Name)
		}
		seen[ct.Name] = true
		in, err := ct.Input()
		if err != nil {
			return err
		}
		out, err := ct.Output()
		if err != nil {
			return err
		}
		schema, err := validate.Compile(in)
		if err != nil {
			return fmt.Errorf("trident: %s: %w", ct.InputSchema, err)
		}
		e.tools.inputs[ct.Name] = schema
		t := &mcp.Tool{
			Name:         ct.Name,
			Title:        ct.Title,
			Description:  ct.Description,
			InputSchema:  in,
			OutputSchema: out,
		}
		if len(ct.Annotations) > 0 {
			t.Annotations = new(mcp.ToolAnnotations)
			if err := json.Unmarshal(ct.Annotations, t.Annotations); err != nil {
				return fmt.Errorf("trident: %s annotations: %w", ct.Name, err)
			}
		}
		e.toolDefs = append(e.toolDefs, t)
	}
	for name := range handlers {
		if !seen[name] {
			return fmt.Errorf("trident: handler %q is not in the contracts", name)
		}
	}
	return nil
}

// routes registers the endpoint's plain HTTP surface: the catalogue and the
// schema and sample downloads, through the strict server generated from
// contracts/openapi.yaml. (Its part of /mcp-docs is [endpoint.docs].)
func (e *endpoint) routes(_ mcphttp.Mount, mux *http.ServeMux) error {
	c, err := newCatalogue(e.toolDefs)
	if err != nil {
		return err
	}
	c.mount(mux)
	return nil
}

// geoCollector reports the HTTP back ends among g and r (Nominatim, OSRM)
// in /metrics: lookups, cache hits, upstream requests, breaker state, trips
// and recoveries. The embedded ones keep no such counts; nil when neither
// is an HTTP back end.
func geoCollector(g geo.Geocoder, r geo.Router) *geometrics.Collector {
	var backends []geometrics.Backend
	if n, ok := g.(*geo.Nominatim); ok {
		backends = append(backends, geometrics.Backend{Name: geo.BackendNominatim, Stats: n.Stats})
	}
	if o, ok := r.(*geo.OSRM); ok {
		backends = append(backends, geometrics.Backend{Name: geo.BackendOSRM, Stats: o.Stats})
	}
	if len(backends) == 0 {
		return nil
	}
	return geometrics.New(backends...)
}

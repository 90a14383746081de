package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// Server is the host: the MCP endpoints it mounts, each behind the one
// front door ([mcphttp]), and what is server-wide around them (/healthz,
// /readyz, /metrics, the access log, graceful shutdown). Build one with
// [New]; serve [Server.Handler] on any http.Server, or call [Server.Serve]
// for the timeouts and graceful shutdown the binary uses.
type Server struct {
	opts      Options
	log       *slog.Logger
	endpoints []*mcphttp.Endpoint
	verifiers []*auth.Verifier
	metrics   *metrics.Metrics
	registry  *prometheus.Registry
	handler   http.Handler

	draining atomic.Bool
}

// New builds a host serving endpoints (opts nil means every default). It
// checks the endpoints (distinct paths, at most one with RootMetadata), and
// in OAuth mode starts one verifier per endpoint, bound to that endpoint's
// resource URL, each loading signing keys in the background; call
// [Server.Close] to stop them and the endpoints' own resources.
func New(opts *Options, endpoints ...*mcphttp.Endpoint) (*Server, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if len(endpoints) == 0 {
		return nil, errors.New("server: New needs at least one endpoint")
	}
	s := &Server{opts: o, log: o.Logger, endpoints: endpoints}
	s.registry = o.Registry
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
		s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	if s.metrics, err = metrics.New(s.registry); err != nil {
		return nil, fmt.Errorf("server: Options.Registry: %w", err)
	}
	// What /readyz answers, for alerts: read at scrape time.
	if err := s.registry.Register(metrics.Readiness(func() bool { return !s.draining.Load() && s.readyErr() == nil })); err != nil {
		return nil, fmt.Errorf("server: Options.Registry: %w", err)
	}
	s.handler, err = s.routes()
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// mount resolves ep's resource URL and metadata path, starts its verifier
// in OAuth mode, and registers its front door, metadata and routes on mux.
// It returns what the endpoint says of itself for the docs page, or nil.
func (s *Server) mount(mux *http.ServeMux, ep *mcphttp.Endpoint) (*docspage.Endpoint, error) {
	m := mcphttp.Mount{PublicBaseURL: s.opts.PublicBaseURL, ResourceURL: ep.ResourceURL}
	if m.ResourceURL == "" {
		m.ResourceURL = s.opts.PublicBaseURL + ep.Path
	}
	if err := checkURL("the resource URL of "+ep.Path, m.ResourceURL); err != nil {
		return nil, err
	}
	// RFC 9728 section 3.1: the metadata of the resource at /a/b lives at
	// /.well-known/oauth-protected-resource/a/b. The endpoint with
	// RootMetadata is also served at the root, and its challenge names the
	// root document, as the Trident specification shows for /mcp.
	suffixed := auth.MetadataPathFor(ep.Path)
	metaPaths := []string{suffixed}
	m.MetadataPath = suffixed
	if ep.RootMetadata {
		metaPaths = append([]string{auth.MetadataPath}, metaPaths...)
		m.MetadataPath = auth.MetadataPath
	}
	docs := ""
	if ep.DocsPath != "" {
		docs = s.opts.PublicBaseURL + ep.DocsPath
	}
	meta := auth.MetadataConfig{ResourceURL: m.ResourceURL, ResourceDocumentation: docs}
	var v *auth.Verifier
	if s.opts.Auth != nil {
		cfg := *s.opts.Auth
		cfg.ResourceURL = m.ResourceURL
		cfg.ResourceDocumentation = docs
		u, _ := url.Parse(m.ResourceURL) // checked above
		cfg.ResourceMetadataURL = u.Scheme + "://" + u.Host + m.MetadataPath
		if cfg.Logger == nil {
			cfg.Logger = s.log
		}
		var err error
		if v, err = auth.NewVerifier(cfg); err != nil {
			return nil, err
		}
		s.verifiers = append(s.verifiers, v)
		meta = v.MetadataConfig()
		meta.ScopesSupported = ep.ScopesSupported()
		m.OAuth = true
	}
	m.Protect = mcphttp.NewProtect(v)
	h, err := mcphttp.New(ep, mcphttp.Config{
		PublicBaseURL:    s.opts.PublicBaseURL,
		AllowedOrigins:   s.opts.AllowedOrigins,
		MaxBodyBytes:     s.opts.MaxBodyBytes,
		BodyReadTimeout:  s.opts.BodyReadTimeout,
		Logger:           s.log,
		Metrics:          s.metrics,
		Verifier:         v,
		ProtocolVersions: s.opts.ProtocolVersions,
		DisableFastPath:  s.opts.DisableFastPath,
		InternalToken:    s.opts.InternalToken,
		RequestStateKeys: s.opts.RequestStateKeys,
	}, s.opts.Now)
	if err != nil {
		return nil, err
	}
	// The endpoint's own series, and in OAuth mode its verifier's verdict
	// cache, each under the endpoint's label.
	reg := prometheus.WrapRegistererWith(prometheus.Labels{"endpoint": ep.Path}, s.registry)
	epCollectors := ep.Collectors
	if v != nil {
		epCollectors = append(slices.Clip(epCollectors), metrics.VerdictCache(v.VerdictCacheStats))
	}
	for _, c := range epCollectors {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("server: metrics of %s: %w", ep.Path, err)
		}
	}
	mux.Handle(ep.Path, h)
	metaHandler := auth.ProtectedResourceMetadataHandler(meta)
	for _, p := range metaPaths {
		mux.Handle(p, metaHandler)
	}
	if ep.Routes != nil {
		if err := ep.Routes(m, mux); err != nil {
			return nil, fmt.Errorf("server: routes of %s: %w", ep.Path, err)
		}
	}
	if ep.Docs == nil {
		return nil, nil
	}
	d, err := ep.Docs(m)
	if err != nil {
		return nil, fmt.Errorf("server: docs of %s: %w", ep.Path, err)
	}
	if d.ProtocolVersions == nil {
		// What the front door negotiates for every endpoint, newest first.
		d.ProtocolVersions = mcphttp.ProtocolVersions()
		if want := s.opts.ProtocolVersions; len(want) > 0 {
			d.ProtocolVersions = slices.DeleteFunc(d.ProtocolVersions, func(v string) bool { return !slices.Contains(want, v) })
		}
	}
	return &d, nil
}

// Handler returns the host's HTTP handler: every endpoint and everything
// around them.
func (s *Server) Handler() http.Handler { return s.handler }

// Close releases what New started: the verifiers' key refresh and each
// endpoint's resources. It does not stop a running [Server.Serve]; cancel
// its context for that.
func (s *Server) Close() error {
	var errs []error
	for _, v := range s.verifiers {
		errs = append(errs, v.Close())
	}
	for _, ep := range s.endpoints {
		if ep.Close != nil {
			errs = append(errs, ep.Close())
		}
	}
	return errors.Join(errs...)
}

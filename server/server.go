package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/fastcall"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
	"github.com/tridenttaxis/trident-mcp/server/ratelimit"
	"github.com/tridenttaxis/trident-mcp/server/validate"
)

// supportedProtocolVersions are the MCP versions this server speaks, newest
// first. It implements 2025-06-18 (the seed's); a client asking for a newer
// one at initialize is answered with 2025-06-18, as the lifecycle spec says.
// An MCP-Protocol-Version header naming any other version gets 400.
var supportedProtocolVersions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// Server is the Trident Taxis MCP server: the /mcp endpoint and the HTTP
// surface around it. Build one with [New]; serve [Server.Handler] on any
// http.Server, or call [Server.Serve] for the timeouts and graceful shutdown
// the binary uses.
type Server struct {
	opts     Options
	log      *slog.Logger
	manifest *contracts.Manifest
	tools    *tools
	handlers map[string]mcp.ToolHandler
	toolDefs []*mcp.Tool // tools/list order

	mcp      *mcp.Server
	jsonMCP  http.Handler // application/json replies
	sseMCP   http.Handler // text/event-stream replies (progress)
	verifier *auth.Verifier
	limiter  *ratelimit.Limiter
	metrics  *metrics.Metrics
	registry *prometheus.Registry

	docs    []byte // /mcp-docs, rendered once at start-up
	handler http.Handler

	draining atomic.Bool
}

// New builds a server from opts (nil means every default). It reads the
// contracts, compiles the input schemas and checks that every tool of
// contracts/tools.json has a handler, so a broken contract or configuration
// fails here rather than on a call. In OAuth mode it starts the verifier,
// which loads signing keys in the background; call [Server.Close] to stop it.
func New(opts *Options) (*Server, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, log: o.Logger}
	s.manifest, err = contracts.LoadManifest()
	if err != nil {
		return nil, err
	}
	s.tools = &tools{
		tariff:      o.Tariff.WithClock(o.Now),
		geocoder:    o.Geocoder,
		router:      o.Router,
		bookingBase: strings.TrimRight(o.BookingBaseURL, "/"),
		bookingSite: o.BookingBaseURL,
		inputs:      map[string]*validate.Schema{},
		log:         o.Logger,
	}
	s.handlers = s.tools.handlers()
	if err := s.buildTools(); err != nil {
		return nil, err
	}

	s.registry = o.Registry
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
		s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	if s.metrics, err = metrics.New(s.registry); err != nil {
		return nil, fmt.Errorf("server: Options.Registry: %w", err)
	}

	if o.RateLimit == "seed" || o.RateLimitPolicy != nil {
		p := ratelimit.SeedPolicy()
		if o.RateLimitPolicy != nil {
			p = *o.RateLimitPolicy
		}
		s.limiter = ratelimit.New(p, o.Now)
	}

	s.mcp = mcp.NewServer(&mcp.Implementation{
		Name:    s.manifest.Server.Name,
		Title:   "Trident Taxis MCP tools",
		Version: s.manifest.Server.Version,
	}, &mcp.ServerOptions{
		Logger:                    sdkLogger(o.Logger),
		SupportedProtocolVersions: supportedProtocolVersions,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		// No tool argument is a prompt or resource argument, so there is
		// never anything to complete; the capability is declared so that
		// generic clients probing completion/complete get a well-formed
		// empty answer instead of an error.
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
	})
	for _, t := range s.toolDefs {
		s.mcp.AddTool(t, s.handlers[t.Name])
	}
	s.mcp.AddReceivingMiddleware(s.rpcMiddleware)
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	// Stateless: the seed's clients call tools/call with no initialize and
	// no session; clients that initialize get the same answers. The
	// front door (serveMCP) does the Origin/Host, Accept, body and envelope
	// checks before these handlers, so their own checks never fire.
	base := mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        o.MaxBodyBytes,
		Logger:                     sdkLogger(o.Logger),
	}
	jsonOpts, sseOpts := base, base
	jsonOpts.JSONResponse = true
	s.jsonMCP = mcp.NewStreamableHTTPHandler(getServer, &jsonOpts)
	if !o.DisableFastPath {
		s.jsonMCP = fastcall.New(s.jsonMCP, fastcall.Options{
			Tools:            s.handlers,
			Middleware:       []mcp.Middleware{s.rpcMiddleware},
			ProtocolVersions: supportedProtocolVersions,
		})
	}
	s.sseMCP = mcp.NewStreamableHTTPHandler(getServer, &sseOpts)

	if o.Auth != nil {
		cfg := *o.Auth
		if cfg.ResourceURL == "" {
			cfg.ResourceURL = o.ResourceURL
		}
		if cfg.ResourceDocumentation == "" {
			cfg.ResourceDocumentation = o.PublicBaseURL + "/mcp-docs"
		}
		if cfg.Logger == nil {
			cfg.Logger = o.Logger
		}
		s.verifier, err = auth.NewVerifier(cfg)
		if err != nil {
			return nil, err
		}
	}

	s.docs, err = s.renderDocs()
	if err != nil {
		s.Close()
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// buildTools reads each tool of the manifest with its schemas exactly as
// written in contracts/, so tools/list serves them unchanged.
func (s *Server) buildTools() error {
	seen := map[string]bool{}
	for _, ct := range s.manifest.Tools {
		if s.handlers[ct.Name] == nil {
			return fmt.Errorf("server: contracts/tools.json lists %q but the server has no handler for it", ct.Name)
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
			return fmt.Errorf("server: %s: %w", ct.InputSchema, err)
		}
		s.tools.inputs[ct.Name] = schema
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
				return fmt.Errorf("server: %s annotations: %w", ct.Name, err)
			}
		}
		s.toolDefs = append(s.toolDefs, t)
	}
	for name := range s.handlers {
		if !seen[name] {
			return fmt.Errorf("server: handler %q is not in contracts/tools.json", name)
		}
	}
	return nil
}

// Handler returns the server's HTTP handler: /mcp and everything around it.
func (s *Server) Handler() http.Handler { return s.handler }

// Close releases what New started (the OAuth verifier's key refresh). It
// does not stop a running [Server.Serve]; cancel its context for that.
func (s *Server) Close() error {
	if s.verifier != nil {
		return s.verifier.Close()
	}
	return nil
}

// Serve answers HTTP on ln until ctx is cancelled, then shuts down
// gracefully: /readyz turns 503, the listener closes, and calls in flight
// are given ShutdownTimeout to finish; connections still open after that
// are closed, so Serve never returns with a call still writing. It returns
// nil after a clean shutdown, and the deadline error when calls had to be
// cut off.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.log.Info("shutting down: waiting for calls in flight", slog.Duration("timeout", s.opts.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		s.log.Warn("shutdown timed out: closing the connections of calls still in flight", slog.Any("error", err))
		hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// rpcMiddleware runs around every JSON-RPC method the SDK dispatches. For
// tools/call it records metrics and refuses unknown tools (the front door
// answers those first, in the catalogue's words; this is the backstop), and
// for every method it turns a panic into -32603 so one bad call never takes
// the process down.
func (s *Server) rpcMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		call, isCall := req.(*mcp.CallToolRequest)
		start := time.Now()
		tool := metrics.UnknownTool
		if isCall {
			if _, ok := s.handlers[call.Params.Name]; ok {
				tool = call.Params.Name
			}
		}
		defer func() {
			if p := recover(); p != nil {
				s.log.ErrorContext(ctx, "panic in MCP handler", slog.String("method", method),
					slog.String("tool", tool), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				res, err = nil, rpcError(errcodes.InternalError, message(errcodes.InternalError))
			}
			if isCall {
				s.metrics.ObserveToolCall(tool, outcomeOf(res, err), time.Since(start))
			}
		}()
		if isCall && tool == metrics.UnknownTool {
			return nil, rpcError(errcodes.MethodNotFound, message(errcodes.MethodNotFound, "name", call.Params.Name))
		}
		return next(ctx, method, req)
	}
}

// outcomeOf names a tools/call result for metrics: "ok", or the catalogue
// code found the way a client finds it (JSON-RPC code, or the tool error's
// signal text).
func outcomeOf(res mcp.Result, err error) string {
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			for _, e := range errcodes.Catalogue {
				if e.Surface == errcodes.SurfaceJSONRPC && int64(e.JSONRPCCode) == je.Code {
					return metrics.Outcome(string(e.Code))
				}
			}
		}
		return metrics.Outcome(string(errcodes.InternalError))
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || !r.IsError {
		return metrics.OutcomeOK
	}
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			for _, e := range errcodes.Catalogue {
				if e.Surface == errcodes.SurfaceTool && e.Signal != "" && strings.Contains(tc.Text, e.Signal) {
					return metrics.Outcome(string(e.Code))
				}
			}
		}
	}
	return "tool_error"
}

// sdkLogger passes the go-sdk's warnings and errors to the server's log. Its
// info records ("server connecting", "session connected") come on every
// stateless request and would drown the one request line the server writes.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(minLevel{Handler: l.Handler(), min: slog.LevelWarn})
}

// minLevel is a slog.Handler that drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}

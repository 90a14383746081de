package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// routes mounts every endpoint and the host's own routes.
func (s *Server) routes() (http.Handler, error) {
	mux := http.NewServeMux()
	root := 0
	seen := map[string]bool{}
	var docs []docspage.Endpoint // what each endpoint says of itself on /mcp-docs
	title := ""
	for _, ep := range s.endpoints {
		if seen[ep.Path] {
			return nil, fmt.Errorf("server: two endpoints at %s", ep.Path)
		}
		seen[ep.Path] = true
		if ep.RootMetadata {
			if root++; root > 1 {
				return nil, fmt.Errorf("server: endpoint %s sets RootMetadata, but another endpoint already has the root metadata document", ep.Path)
			}
		}
		d, err := s.mount(mux, ep)
		if err != nil {
			return nil, err
		}
		if d != nil {
			docs = append(docs, *d)
			if title == "" && ep.Implementation != nil {
				title = ep.Implementation.Title
			}
		}
	}
	if err := s.mountDocs(mux, title, docs); err != nil {
		return nil, err
	}
	mux.HandleFunc("GET /healthz", s.serveHealthz)
	mux.HandleFunc("GET /readyz", s.serveReadyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}))
	return s.observe(mux), nil
}

// statusWriter remembers the status and size of a response. It forwards
// Flush so SSE frames reach the client as they are written.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe logs one line per request and records HTTP metrics. It never logs
// headers or bodies: no Authorization value or tool argument reaches logs.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		done := s.metrics.InFlight()
		defer done()
		rec := &mcphttp.CallInfo{}
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(mcphttp.WithCallInfo(r.Context(), rec))
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p) // net/http's way to abort a reply; it logs nothing
				}
				// Outside the SDK's dispatch (which has its own recover):
				// answer 500 if nothing was written, log, keep serving.
				s.log.Error("panic in HTTP handler", slog.String("path", r.URL.Path), slog.Any("panic", p),
					slog.String("stack", string(debug.Stack())))
				if sw.status == 0 {
					http.Error(sw, "internal error", http.StatusInternalServerError)
				}
			}
			if sw.status == 0 {
				sw.status = http.StatusOK // what net/http sends for a handler that wrote nothing
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			elapsed := time.Since(start)
			s.metrics.ObserveHTTP(route, sw.status, elapsed)
			if !s.log.Enabled(r.Context(), slog.LevelInfo) {
				return // the line's attributes would cost allocations for nothing
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", sw.status),
				slog.Int64("bytes", sw.bytes),
				slog.Duration("duration", elapsed),
				slog.String("remote", r.RemoteAddr),
			}
			if rec.Method != "" {
				attrs = append(attrs, slog.String("rpc_method", rec.Method))
			}
			if rec.Tool != "" {
				attrs = append(attrs, slog.String("tool", rec.Tool), slog.Bool("sse", rec.Stream), slog.Bool("fast", rec.Fast))
			}
			if rec.Trace != nil && rec.Trace.IsValid() { // a traced MCP request: its trace's ids
				attrs = append(attrs, slog.String("trace_id", rec.Trace.TraceID().String()), slog.String("span_id", rec.Trace.SpanID().String()))
			}
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "http request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

func (s *Server) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// serveReadyz is 503 while shutting down (so a load balancer stops
// sending), in OAuth mode until every verifier has the issuer's signing
// keys, and until every endpoint says it is ready.
func (s *Server) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if s.draining.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("shutting down\n"))
		return
	}
	if err := s.readyErr(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("not ready: " + err.Error() + "\n"))
		return
	}
	w.Write([]byte("ready\n"))
}

func (s *Server) readyErr() error {
	for _, v := range s.verifiers {
		if err := v.ReadyErr(); err != nil {
			return err
		}
	}
	for _, ep := range s.endpoints {
		if ep.Ready != nil {
			if err := ep.Ready(); err != nil {
				return fmt.Errorf("%s: %w", ep.Path, err)
			}
		}
	}
	return nil
}

// DocsPath is where the host serves the documentation page of the
// endpoints it mounts, one section and one Try-it console each.
const DocsPath = "/mcp-docs"

// mountDocs serves the documentation page of the endpoints that describe
// themselves (none: no page).
func (s *Server) mountDocs(mux *http.ServeMux, title string, endpoints []docspage.Endpoint) error {
	if len(endpoints) == 0 {
		return nil
	}
	if title == "" {
		title = "MCP endpoints"
	}
	h, err := docspage.New(docspage.Page{
		Title: title, Path: DocsPath, PublicBaseURL: s.opts.PublicBaseURL, Endpoints: endpoints,
		Links: []docspage.Link{
			{Title: "/healthz (liveness)", URL: "/healthz"}, {Title: "/readyz (readiness)", URL: "/readyz"},
			{Title: "/metrics (Prometheus)", URL: "/metrics"},
		},
	})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	h.Register(mux)
	return nil
}

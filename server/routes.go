package server

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tridenttaxis/trident-mcp/server/auth"
)

// routes wires the HTTP surface. /mcp/rides (the Relay connector) belongs to
// another package and is mounted by the binary beside this handler.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()

	var mcpHandler http.Handler = http.HandlerFunc(s.serveMCP)
	if s.verifier != nil {
		mcpHandler = s.verifier.Middleware(mcpHandler)
	}
	mux.Handle("/mcp", s.originGuard(mcpHandler))

	meta := auth.MetadataConfig{ResourceURL: s.opts.ResourceURL, ResourceDocumentation: s.opts.PublicBaseURL + "/mcp-docs"}
	if s.verifier != nil {
		meta = s.verifier.MetadataConfig()
	}
	metaHandler := auth.ProtectedResourceMetadataHandler(meta)
	for _, p := range auth.MetadataPaths("/mcp") {
		mux.Handle(p, metaHandler)
	}

	mux.HandleFunc("GET /.mcp/list-tools", s.serveListTools)
	mux.HandleFunc("GET /mcp-schemas/{file...}", s.serveSchemas)
	mux.HandleFunc("GET /samples/{file...}", s.serveSamples)
	s.docs.Register(mux)
	mux.HandleFunc("GET /healthz", s.serveHealthz)
	mux.HandleFunc("GET /readyz", s.serveReadyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}))
	return s.observe(mux)
}

// record collects what one request did, filled in by the handlers below the
// access log, so the log line and metrics can say it.
type record struct {
	method string // JSON-RPC method
	tool   string
	stream bool
}

type recordKey struct{}

// recordFrom returns the request's record, or a scratch one outside observe.
func recordFrom(ctx context.Context) *record {
	if r, ok := ctx.Value(recordKey{}).(*record); ok {
		return r
	}
	return &record{}
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
		rec := &record{}
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), recordKey{}, rec))
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
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", sw.status),
				slog.Int64("bytes", sw.bytes),
				slog.Duration("duration", elapsed),
				slog.String("remote", r.RemoteAddr),
			}
			if rec.method != "" {
				attrs = append(attrs, slog.String("rpc_method", rec.method))
			}
			if rec.tool != "" {
				attrs = append(attrs, slog.String("tool", rec.tool), slog.Bool("sse", rec.stream))
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

// serveReadyz is 503 while shutting down (so a load balancer stops sending)
// and, in OAuth mode, until the issuer's signing keys are loaded.
func (s *Server) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case s.draining.Load():
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("shutting down\n"))
	case s.verifier != nil && s.verifier.ReadyErr() != nil:
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("not ready: " + s.verifier.ReadyErr().Error() + "\n"))
	default:
		w.Write([]byte("ready\n"))
	}
}

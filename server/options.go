package server

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/auth"
)

// Defaults for the zero values of [Options]; the configuration table of
// the README lists the same values for the environment variables.
const (
	DefaultPublicBaseURL     = "http://localhost:8080"
	DefaultMaxBodyBytes      = 1 << 20 // tool arguments are a few hundred bytes
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyReadTimeout   = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 30 * time.Second
	// DefaultShutdownDelay outlasts a load balancer's usual health-check
	// interval (AWS, GCP and Kubernetes probes default to 5-10 s with a
	// failure threshold), so it has seen /readyz fail before the listener
	// closes.
	DefaultShutdownDelay = 5 * time.Second
	// DefaultGCPercent is the garbage collector's target (GOGC) the binary
	// runs with unless told otherwise. The server's live heap is a few MB
	// (the embedded geo data, ~2.5 MB), so at Go's 100 the heap's 4 MB
	// floor sets the pace: a collection every ~25 Relay searches, and the
	// collector's marking and assists took ~7% of a search's CPU
	// (BenchmarkSearchRidesParallel). At 400 they take ~2.6%, for a heap of
	// some 16 MB.
	DefaultGCPercent = 400
	// DefaultMaxHeaderBytes is room for a bearer token and the usual
	// headers many times over; a larger header block gets 431.
	DefaultMaxHeaderBytes = 64 << 10
)

// Options configures a [Server]: what is shared by every endpoint it mounts.
// A nil *Options, and every zero field, means the documented default, so
// that New(nil, endpoints...) is a public server on localhost:8080.
type Options struct {
	// PublicBaseURL is where this server is reached (PUBLIC_BASE_URL): the
	// base of documentation links and of each endpoint's default resource
	// URL, and an allowed Origin. Zero: [DefaultPublicBaseURL].
	PublicBaseURL string

	// AllowedOrigins lists the browser origins ("https://app.example",
	// scheme://host[:port], no path) allowed to call the endpoints
	// (ALLOWED_ORIGINS); "*" allows any. Requests without an Origin header
	// (curl, SDK clients) are always allowed. Zero: the origin of PublicBaseURL and loopback
	// origins (localhost, 127.0.0.1, [::1] on any port). Any other Origin is
	// refused with 403 (DNS-rebinding protection).
	AllowedOrigins []string

	// MaxBodyBytes bounds a request body (MAX_BODY_BYTES); a larger one gets
	// 413. Zero: [DefaultMaxBodyBytes]. Negative is an error.
	MaxBodyBytes int64

	// Auth turns on OAuth mode (MCP_REQUIRE_OAUTH=true) for every endpoint:
	// each request must carry a bearer token that the endpoint's own
	// [auth.Verifier] accepts. Issuer must be set (OAUTH_ISSUER); the host
	// sets ResourceURL, ResourceMetadataURL and ResourceDocumentation per
	// endpoint, so each verifier is bound to its endpoint's resource.
	// Zero (nil): public mode, no token checked.
	Auth *auth.Config

	// ProtocolVersions narrows the MCP revisions every endpoint serves
	// (MCP_PROTOCOL_VERSIONS), each one of [mcphttp.ProtocolVersions]: an
	// operator may serve only the revisions it has certified. Zero: all of
	// them.
	ProtocolVersions []string

	// InternalToken is the secret the host's own parts present when one
	// calls an endpoint of this server over loopback (Relay pricing with
	// the server's own Trident): those calls skip the endpoints'
	// per-client rate limits ([mcphttp.Config.InternalToken]). The binary
	// makes a random one per process; it never leaves the process's
	// loopback calls. Zero: none.
	InternalToken string

	// Now is the clock of the endpoints' rate limiters. Zero: time.Now.
	Now func() time.Time

	// Logger receives structured logs: one record per HTTP request, tool
	// failures, panics. Secrets (Authorization headers, tokens) and tool
	// arguments are never logged. Zero: slog.Default().
	Logger *slog.Logger

	// Registry receives the server's Prometheus metrics and is what
	// /metrics serves. Zero: a new registry holding the server's metrics and
	// the Go and process collectors.
	Registry *prometheus.Registry

	// BodyReadTimeout bounds how long a client may take to send an
	// endpoint's request body once its headers are in; a slower one gets 408
	// and the connection is closed. It applies on any http.Server, not only
	// [Server.Serve]. Zero: [DefaultBodyReadTimeout].
	BodyReadTimeout time.Duration

	// ReadHeaderTimeout, IdleTimeout and ShutdownTimeout configure
	// [Server.Serve]: how long a client may take to send headers, how long
	// an idle keep-alive connection stays open, and how long a graceful
	// shutdown waits for in-flight calls before closing their connections.
	// Zero: [DefaultReadHeaderTimeout], [DefaultIdleTimeout],
	// [DefaultShutdownTimeout].
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration

	// DisableFastPath sends every call through the go-sdk, including the
	// stateless application/json tools/call that the fast path
	// (server/fastcall) otherwise answers without an SDK session. The
	// answers are the same byte for byte (the differential tests compare
	// the two); this is the reference they are compared with. Zero: the
	// fast path is on.
	DisableFastPath bool

	// ShutdownDelay is how long [Server.Serve] keeps serving after its
	// context is cancelled, with /readyz answering 503 and every reply
	// closing its connection, before the listener closes
	// (SHUTDOWN_DELAY): the time a load balancer needs to notice and stop
	// sending. Zero: [DefaultShutdownDelay]; negative: none
	// (SHUTDOWN_DELAY=0), for a server no load balancer fronts.
	ShutdownDelay time.Duration

	// MaxHeaderBytes bounds the request line and headers [Server.Serve]
	// reads (431 above it). Zero: [DefaultMaxHeaderBytes].
	MaxHeaderBytes int

	// RequestStateKeys integrity-protect the requestState of the endpoints'
	// multi round-trip results ([mcphttp.Config.RequestStateKeys]): the
	// first seals, all open. Replicas behind one balancer share them.
	// Zero: a random key per process.
	RequestStateKeys [][]byte
}

// resolve fills defaults and checks the URLs, so that a misconfigured server
// stops at start-up with the variable to fix.
func (o *Options) resolve() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.PublicBaseURL == "" {
		r.PublicBaseURL = DefaultPublicBaseURL
	}
	r.PublicBaseURL = strings.TrimRight(r.PublicBaseURL, "/")
	if err := checkURL("PUBLIC_BASE_URL", r.PublicBaseURL); err != nil {
		return r, err
	}
	for _, o := range r.AllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return r, fmt.Errorf("server: ALLOWED_ORIGINS entry %q: want scheme://host[:port] or *", o)
		}
	}
	if r.MaxBodyBytes == 0 {
		r.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if r.MaxBodyBytes < 0 {
		return r, fmt.Errorf("server: MAX_BODY_BYTES=%d: want a positive number of bytes", r.MaxBodyBytes)
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if r.BodyReadTimeout == 0 {
		r.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if r.ReadHeaderTimeout == 0 {
		r.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if r.IdleTimeout == 0 {
		r.IdleTimeout = DefaultIdleTimeout
	}
	if r.ShutdownTimeout == 0 {
		r.ShutdownTimeout = DefaultShutdownTimeout
	}
	if r.ShutdownDelay == 0 {
		r.ShutdownDelay = DefaultShutdownDelay
	}
	if r.MaxHeaderBytes == 0 {
		r.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return r, nil
}

func checkURL(name, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("server: %s=%q: want an absolute http(s) URL", name, s)
	}
	return nil
}

package geo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// DefaultTimeout bounds each request to an HTTP back end when no
// [WithTimeout] is given: long enough for a healthy Nominatim or OSRM, short
// enough that a tool call fails fast rather than hanging.
const DefaultTimeout = 5 * time.Second

// DefaultUserAgent identifies the server to the back ends, as Nominatim's
// usage policy requires.
const DefaultUserAgent = "trident-mcp/0.1 (+https://tridenttaxis.online)"

// DefaultNominatimMinInterval is the spacing [NewNominatim] keeps between
// requests unless told otherwise: the public nominatim.openstreetmap.org's
// usage policy allows one request a second.
const DefaultNominatimMinInterval = time.Second

// Defaults of the guard every HTTP back end runs behind (see guard.go).
const (
	// DefaultCacheSize and DefaultCacheTTL bound the answer cache: a few
	// thousand places and routes, each about a hundred bytes, kept ten
	// minutes (places and road networks change far more slowly; the TTL is
	// there so that a corrected OSM entry shows up the same hour).
	DefaultCacheSize = 4096
	DefaultCacheTTL  = 10 * time.Minute
	// DefaultBreakerFailures consecutive failed exchanges open the circuit
	// breaker, which then fails calls at once for DefaultBreakerOpen before
	// letting one probe through.
	DefaultBreakerFailures = 5
	DefaultBreakerOpen     = 30 * time.Second
)

// maxResponseBytes caps how much of a reply is read: both APIs answer these
// queries in a few kilobytes, so a larger reply is refused, not parsed.
const maxResponseBytes = 1 << 20

// maxResponseHeaderBytes caps a reply's header block (the transport's own
// default is 1 MB).
const maxResponseHeaderBytes = 64 << 10

// maxCoolDown caps how long a Retry-After can silence a back end, so that a
// wrong or hostile header cannot switch it off for days.
const maxCoolDown = 15 * time.Minute

// Option configures an HTTP back end ([NewNominatim], [NewOSRM]).
type Option func(*httpConfig)

type httpConfig struct {
	timeout   time.Duration
	userAgent string
	limiter   *rate.Limiter // nil: no client-side limit
	client    *http.Client
	logger    *slog.Logger // nil: slog.Default() when logging

	cacheSize int           // 0: no cache
	cacheTTL  time.Duration // 0: no cache

	breakerFailures int           // 0: no breaker
	breakerOpen     time.Duration // > 0; also the cool-down after a 429 that names no time

	now func() time.Time // the cool-down's clock; tests replace it
}

func newHTTPConfig(opts []Option) httpConfig {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Up to this many connections stay open per engine between calls, so a
	// burst of distinct lookups reuses them instead of redialling (the
	// default is 2).
	t.MaxIdleConnsPerHost = 32
	t.MaxResponseHeaderBytes = maxResponseHeaderBytes
	c := httpConfig{
		timeout: DefaultTimeout, userAgent: DefaultUserAgent, client: &http.Client{Transport: telemetry.Transport(t)}, // a client span per request when tracing is on
		cacheSize: DefaultCacheSize, cacheTTL: DefaultCacheTTL,
		breakerFailures: DefaultBreakerFailures, breakerOpen: DefaultBreakerOpen,
		now: time.Now,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTimeout bounds each call, from waiting on the client-side rate limit
// to the reply's last byte (default [DefaultTimeout]; zero or negative
// keeps the default). A caller whose context ends sooner gets its error at
// once; the exchange itself runs on, at most this long, so that callers
// sharing it and the cache still get its answer.
func WithTimeout(d time.Duration) Option {
	return func(h *httpConfig) {
		if d > 0 {
			h.timeout = d
		}
	}
}

// WithUserAgent sets the User-Agent header (default [DefaultUserAgent]).
func WithUserAgent(ua string) Option {
	return func(h *httpConfig) {
		if ua != "" {
			h.userAgent = ua
		}
	}
}

// WithMinInterval spaces requests at least d apart (one burst allowed), as
// the public Nominatim's usage policy asks (one request a second). A request
// that would have to wait past its timeout fails at once with
// [ErrUnavailable]. Zero or negative means no limit, for a self-hosted
// engine. [NewNominatim] defaults to [DefaultNominatimMinInterval], [NewOSRM]
// to no limit.
func WithMinInterval(d time.Duration) Option {
	return func(h *httpConfig) {
		if d > 0 {
			h.limiter = rate.NewLimiter(rate.Every(d), 1)
		} else {
			h.limiter = nil
		}
	}
}

// WithCache keeps up to size answers for ttl each: places, routes and
// "no such place" or "no road" (which are deterministic), never failures.
// Zero or negative size or ttl turns the cache off. Default:
// [DefaultCacheSize] answers for [DefaultCacheTTL].
func WithCache(size int, ttl time.Duration) Option {
	return func(h *httpConfig) {
		if size <= 0 || ttl <= 0 {
			size, ttl = 0, 0
		}
		h.cacheSize, h.cacheTTL = size, ttl
	}
}

// WithBreaker opens the circuit breaker after failures consecutive failed
// exchanges (timeouts, transport errors, 5xx, replies that break the API)
// and keeps it open for open (zero or negative: [DefaultBreakerOpen])
// before one probe may pass; zero or negative failures turns the breaker
// off. Default: [DefaultBreakerFailures], [DefaultBreakerOpen].
func WithBreaker(failures int, open time.Duration) Option {
	return func(h *httpConfig) {
		if failures <= 0 {
			failures = 0
		}
		if open <= 0 {
			open = DefaultBreakerOpen
		}
		h.breakerFailures, h.breakerOpen = failures, open
	}
}

// WithLogger receives a warning when the breaker opens or a back end asks
// for a cool-down, and a note when the breaker closes again (default: the
// slog.Default() of the moment).
func WithLogger(l *slog.Logger) Option {
	return func(h *httpConfig) { h.logger = l }
}

func (h *httpConfig) log() *slog.Logger {
	if h.logger != nil {
		return h.logger
	}
	return slog.Default()
}

// BackendError describes a failed exchange with an HTTP back end. It wraps
// [ErrUnavailable] or [ErrNoMatch] (its class) and the underlying cause, so
// errors.Is(err, ErrUnavailable) and errors.Is(err, context.DeadlineExceeded)
// both work.
type BackendError struct {
	Backend    string // "nominatim" or "osrm"
	URL        string // the request URL
	StatusCode int    // HTTP status, 0 when no response arrived
	Code       string // the engine's own error code, e.g. OSRM's "NoRoute"
	Message    string // what went wrong, in words
	Body       string // start of the response body, for logs
	Err        error  // the cause: a transport or decoding error, or nil
	// RetryAfter is how long the back end asked to be left alone (a 429's
	// or 503's Retry-After), or what is left of that cool-down when the
	// call was refused without being sent; 0 when unknown.
	RetryAfter time.Duration

	class error
}

func (e *BackendError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "geo: %s: %s", e.Backend, e.Message)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " [%s]", e.Code)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the class sentinel and the cause.
func (e *BackendError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.class}
	}
	return []error{e.class, e.Err}
}

// reply is one HTTP exchange's outcome.
type reply struct {
	status     int
	body       []byte
	retryAfter time.Duration // from the Retry-After header; 0 when absent or unreadable
}

// get performs a GET with the configured User-Agent; ctx bounds it (the
// guard gives it the timeout). Transport failures (refused, reset,
// timeout, a body cut short) and replies over [maxResponseBytes] come back
// as a [BackendError] of class [ErrUnavailable]; any HTTP status is
// returned for the caller to judge.
func (h *httpConfig) get(ctx context.Context, backend, u string) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return reply{}, &BackendError{Backend: backend, URL: u, Message: "bad request URL", Err: err, class: ErrUnavailable}
	}
	req.Header.Set("User-Agent", h.userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		msg := "request failed"
		if errors.Is(err, context.DeadlineExceeded) {
			msg = "request timed out"
		}
		return reply{}, &BackendError{Backend: backend, URL: u, Message: msg, Err: err, class: ErrUnavailable}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return reply{}, &BackendError{Backend: backend, URL: u, StatusCode: resp.StatusCode, Message: "reading response failed", Err: err, class: ErrUnavailable}
	}
	rep := reply{status: resp.StatusCode, body: body, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), h.now())}
	if len(body) > maxResponseBytes {
		return reply{}, &BackendError{Backend: backend, URL: u, StatusCode: resp.StatusCode, Message: fmt.Sprintf("reply larger than %d bytes", maxResponseBytes), Body: snippet(body), class: ErrUnavailable}
	}
	return rep, nil
}

// parseRetryAfter reads a Retry-After header (RFC 9110 section 10.2.3):
// delay-seconds or an HTTP date, relative to now. It returns 0 for an
// absent, unreadable or past value, and at most [maxCoolDown].
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(maxCoolDown/time.Second) {
			return maxCoolDown
		}
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), maxCoolDown)
}

func snippet(b []byte) string {
	const n = 512
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// joinURL appends path to base without doubling or dropping the slash.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + path
}

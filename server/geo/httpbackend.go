package geo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// DefaultTimeout bounds each request to an HTTP back end when no
// [WithTimeout] is given: long enough for a healthy Nominatim or OSRM, short
// enough that a tool call fails fast rather than hanging.
const DefaultTimeout = 5 * time.Second

// DefaultUserAgent identifies the server to the back ends, as Nominatim's
// usage policy requires.
const DefaultUserAgent = "trident-mcp/0.1 (+https://tridenttaxis.online)"

// maxResponseBytes caps how much of a reply is read: both APIs answer these
// queries in a few kilobytes.
const maxResponseBytes = 1 << 20

// Option configures an HTTP back end ([NewNominatim], [NewOSRM]).
type Option func(*httpConfig)

type httpConfig struct {
	timeout   time.Duration
	userAgent string
	limiter   *rate.Limiter // nil: no client-side limit
}

func newHTTPConfig(opts []Option) httpConfig {
	c := httpConfig{timeout: DefaultTimeout, userAgent: DefaultUserAgent}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTimeout bounds each request, connection to last byte (default
// [DefaultTimeout]; zero or negative keeps the default). The caller's context
// deadline still applies when it is sooner.
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
// that would have to wait past its context's deadline fails at once with
// [ErrUnavailable]. Zero or negative means no limit (the default).
func WithMinInterval(d time.Duration) Option {
	return func(h *httpConfig) {
		if d > 0 {
			h.limiter = rate.NewLimiter(rate.Every(d), 1)
		} else {
			h.limiter = nil
		}
	}
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
	status int
	body   []byte
}

// get performs a GET with the configured timeout and User-Agent. Transport
// failures (refused, reset, timeout, cancelled) come back as a
// [BackendError] of class [ErrUnavailable]; any HTTP status is returned for
// the caller to judge.
func (h *httpConfig) get(ctx context.Context, backend, u string) (reply, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	if h.limiter != nil {
		if err := h.limiter.Wait(ctx); err != nil {
			return reply{}, &BackendError{Backend: backend, URL: u, Message: "client-side rate limit", Err: err, class: ErrUnavailable}
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return reply{}, &BackendError{Backend: backend, URL: u, Message: "bad request URL", Err: err, class: ErrUnavailable}
	}
	req.Header.Set("User-Agent", h.userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req) // the timeout is on ctx, per request
	if err != nil {
		msg := "request failed"
		if errors.Is(err, context.DeadlineExceeded) {
			msg = "request timed out"
		}
		return reply{}, &BackendError{Backend: backend, URL: u, Message: msg, Err: err, class: ErrUnavailable}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return reply{}, &BackendError{Backend: backend, URL: u, StatusCode: resp.StatusCode, Message: "reading response failed", Err: err, class: ErrUnavailable}
	}
	return reply{status: resp.StatusCode, body: body}, nil
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

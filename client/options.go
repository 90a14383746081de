package client

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Option configures a [Client] at construction, or one call when passed to
// [Client.Call], [Client.Do] or a typed method; a call's options are applied
// over the client's.
type Option func(*settings)

// CallOption is an [Option] given to one call. Every Option may be used
// per call.
type CallOption = Option

// Handshake says when the client sends initialize, in the revisions that
// have it (2025-11-25 and older); a server of 2026-07-28 is never sent one.
type Handshake int

const (
	// HandshakeAuto calls statelessly (no initialize, as the specification's curl
	// does) and initializes only when the server answers that it needs a
	// session; then it retries the call once in that session. The default.
	HandshakeAuto Handshake = iota
	// HandshakeAlways sends initialize and notifications/initialized before
	// the first call, and again when the server forgets the session (404).
	HandshakeAlways
	// HandshakeNever never initializes.
	HandshakeNever
)

// TokenSource supplies bearer tokens for OAuth mode. client/oauth.Source is
// the implementation with rotation, persistence and single-flight refresh.
type TokenSource interface {
	// Token returns the access token to send, refreshing it first when it
	// is about to expire.
	Token(ctx context.Context) (string, error)
	// Refresh is called once after the server answered 401 to rejected.
	// It must return a different token, or an error; concurrent calls that
	// carry the same rejected token share one refresh.
	Refresh(ctx context.Context, rejected string) (string, error)
}

// Clock is the time the client waits on. Tests inject one that records the
// waits and returns at once.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx ends, returning ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Progress is one notifications/progress frame of a streamed call.
type Progress struct {
	Token    any      `json:"progressToken"`
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

type settings struct {
	httpClient      *http.Client
	tokens          TokenSource
	clock           Clock
	retry           RetryPolicy
	handshake       Handshake
	maxEventSize    int
	maxBody         int64
	header          http.Header
	protocolVersion string
	progress        func(Progress)
	clientName      string
	clientVersion   string
	elicit          ElicitationHandler
	logger          *slog.Logger
}

func defaultSettings() settings {
	return settings{
		httpClient:      http.DefaultClient,
		clock:           SystemClock{},
		retry:           DefaultRetryPolicy(),
		maxBody:         16 << 20,
		protocolVersion: LatestProtocolVersion,
		clientName:      "trident-go-client",
		clientVersion:   "0.1.0",
		logger:          slog.Default(),
	}
}

// WithHTTPClient sets the HTTP client. Default: http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(s *settings) { s.httpClient = hc } }

// WithTokenSource turns on OAuth: every request carries the source's token,
// and a 401 causes one refresh and one retry. Default: none, public mode.
func WithTokenSource(ts TokenSource) Option { return func(s *settings) { s.tokens = ts } }

// WithBearerToken sends a fixed token; a 401 is returned to the caller as
// is, since there is nothing to refresh with.
func WithBearerToken(token string) Option { return WithTokenSource(staticToken(token)) }

// WithClock sets the clock used for backoff waits and Retry-After dates.
// Default: [SystemClock].
func WithClock(c Clock) Option { return func(s *settings) { s.clock = c } }

// WithRetry sets the retry policy. Default: [DefaultRetryPolicy].
func WithRetry(p RetryPolicy) Option { return func(s *settings) { s.retry = p } }

// WithHandshake sets when initialize is sent. Default: [HandshakeAuto].
func WithHandshake(h Handshake) Option { return func(s *settings) { s.handshake = h } }

// WithMaxEventSize caps one server-sent event in bytes. Default: 4 MiB.
func WithMaxEventSize(n int) Option { return func(s *settings) { s.maxEventSize = n } }

// WithMaxResponseBytes caps an application/json reply. Default: 16 MiB.
func WithMaxResponseBytes(n int64) Option { return func(s *settings) { s.maxBody = n } }

// WithHeader adds a header to every request (Content-Type, Accept,
// MCP-Protocol-Version, Authorization and, from 2026-07-28, Mcp-Method,
// Mcp-Name and Mcp-Param-* are the client's own and are not overridden).
func WithHeader(key, value string) Option {
	return func(s *settings) {
		h := s.header.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Add(key, value)
		s.header = h
	}
}

// WithProtocolVersion sets the MCP revision the client offers first.
// Default: [LatestProtocolVersion], 2026-07-28, which the client offers in
// a server/discover before its first call; a server that speaks it is
// called statelessly in it, and any other is met in the newest revision
// both speak (2025-11-25 in initialize, the specification's 2025-06-18 on a
// stateless call to a server that never said). Naming a revision before
// 2026-07-28 skips server/discover and speaks that one, until the server
// refuses it and lists others, or initialize settles on another.
func WithProtocolVersion(v string) Option { return func(s *settings) { s.protocolVersion = v } }

// WithLogger sets where the client logs what it must report but that fails
// no call, such as a tool tools/list leaves out. Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithProgress asks the server to stream the call (it adds
// params._meta.progressToken) and delivers each notifications/progress frame
// for this call to fn, in order, on the calling goroutine.
func WithProgress(fn func(Progress)) Option { return func(s *settings) { s.progress = fn } }

// WithClientInfo sets the clientInfo sent in initialize.
func WithClientInfo(name, version string) Option {
	return func(s *settings) { s.clientName, s.clientVersion = name, version }
}

type staticToken string

func (t staticToken) Token(context.Context) (string, error) { return string(t), nil }

func (t staticToken) Refresh(context.Context, string) (string, error) {
	return "", errNoRefresh
}

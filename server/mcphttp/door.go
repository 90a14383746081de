package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/fastcall"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// Config is what the front door needs from the host: the settings shared by
// every endpoint. Every field is required unless it says otherwise; the host
// ([github.com/tridenttaxis/trident-mcp/server.New]) fills them.
type Config struct {
	// PublicBaseURL is where the host is reached; its origin is an allowed
	// Origin and its host an allowed Host on a loopback listener.
	PublicBaseURL string
	// AllowedOrigins replaces the default Origin rule (PublicBaseURL and
	// loopback); "*" allows any. Zero: the default rule.
	AllowedOrigins []string
	// MaxBodyBytes bounds a request body (413 above it).
	MaxBodyBytes int64
	// BodyReadTimeout bounds the time a body may take to arrive (408).
	BodyReadTimeout time.Duration
	// Logger receives tool failures and panics.
	Logger *slog.Logger
	// Metrics counts tool calls and refusals under the endpoint's path.
	Metrics *metrics.Metrics
	// Verifier checks bearer tokens in front of the endpoint. Zero (nil):
	// public, no token checked.
	Verifier *auth.Verifier
	// ProtocolVersions narrows the MCP revisions served to these (each one
	// of [ProtocolVersions]), for an operator who serves only what it has
	// certified: initialize then negotiates the newest of them, and an
	// MCP-Protocol-Version header naming another gets 400. Zero: every
	// revision of [ProtocolVersions].
	ProtocolVersions []string
	// InternalToken is the secret with which the host's own parts call an
	// endpoint over loopback (header [InternalCallerHeader]): such a call is
	// the host's, already limited where it began (Relay's caller limits and
	// provider budgets), so the endpoint's per-client rate limit, which is
	// for outside callers, does not count it. It exempts from nothing else:
	// OAuth mode still wants a token. Zero: no caller is exempt.
	InternalToken string
	// DisableFastPath sends every call through the go-sdk, including the
	// stateless application/json tools/call the fast path
	// ([github.com/tridenttaxis/trident-mcp/server/fastcall]) otherwise
	// answers without an SDK session. Both give the same bytes; this is the
	// reference the differential tests compare the fast path with. Zero:
	// the fast path is on.
	DisableFastPath bool
	// RequestStateKeys are the HMAC-SHA256 keys that integrity-protect the
	// requestState of multi round-trip results (SEP-2322,
	// requeststate.go): the first seals, every one opens, so a key can be
	// rotated. Replicas behind one balancer must share them, since a
	// client's retry may reach another replica. Zero: one random key per
	// process.
	RequestStateKeys [][]byte
}

// door serves one endpoint.
type door struct {
	ep       *Endpoint
	cfg      Config
	log      *slog.Logger
	metrics  *metrics.Metrics
	tools    map[string]bool
	versions []string // the revisions served, newest first
	limiter  *limits.CallLimiter
	jsonMCP  http.Handler               // application/json replies
	sseMCP   http.Handler               // text/event-stream replies (progress)
	fast     *fastcall.Handler          // nil when Config.DisableFastPath
	handlers map[string]mcp.ToolHandler // each tool's handler as observeTool wraps it

	// What the features beside tools keep (features.go and the files it
	// names).
	sessionMCP http.Handler                    // stateful: the sessions of SessionsForHandshake; nil when off
	dynamic    atomic.Pointer[map[string]bool] // tools added through Endpoint.Changes
	tasks      *taskStore                      // nil when no tool may run as a task
	states     *stateSealer                    // seals and opens requestState
}

// New returns the HTTP handler of ep: the origin guard, the verifier when
// cfg has one, then the front door and the go-sdk's stateless handler. Mount
// it at ep.Path. now is the limiter's clock (time.Now if nil).
func New(ep *Endpoint, cfg Config, now func() time.Time) (http.Handler, error) {
	if !strings.HasPrefix(ep.Path, "/") {
		return nil, fmt.Errorf("mcphttp: Endpoint.Path %q must start with /", ep.Path)
	}
	d, srv, err := newServer(ep, cfg)
	if err != nil {
		return nil, err
	}
	if ep.RateLimit != nil {
		d.limiter = limits.NewCallLimiter(*ep.RateLimit, now)
	}
	if !cfg.DisableFastPath {
		d.fast = fastcall.New(fastcall.Options{Tools: d.fastHandlers(), Middleware: []mcp.Middleware{d.taskMiddleware, d.rpcMiddleware},
			// The verifier's caller, which Authenticate (below) attached:
			// the fast path does not pass the SDK bridge.
			TokenInfo:     func(r *http.Request) *sdkauth.TokenInfo { return auth.TokenInfoFrom(r.Context()) },
			HTMLUnescaped: true, // as serveMCP writes the SDK's replies
		})
	}
	getServer := func(*http.Request) *mcp.Server { return srv }
	// Stateless: the specification's clients call tools/call with no
	// initialize and no session; clients that initialize get the same
	// answers. The front door (serveMCP) does the Origin/Host, Accept, body
	// and envelope checks before these handlers, so their own checks never
	// fire.
	base := mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        cfg.MaxBodyBytes,
		Logger:                     sdkLogger(cfg.Logger),
	}
	jsonOpts, sseOpts := base, base
	jsonOpts.JSONResponse = true
	d.jsonMCP = mcp.NewStreamableHTTPHandler(getServer, &jsonOpts)
	d.sseMCP = mcp.NewStreamableHTTPHandler(getServer, &sseOpts)
	d.sessionMCP = d.newSessionHandler(getServer, base) // nil unless the endpoint keeps sessions

	var h http.Handler = http.HandlerFunc(d.serveMCP)
	if v := cfg.Verifier; v != nil {
		// The verifier guards the whole front door; only the requests
		// handed to the go-sdk pass its bridge (the TokenInfo under the
		// SDK's context key), so that the fast path's calls, which never
		// reach the SDK, skip its second header parse and request copy
		// (Verifier.Authenticate says what that cost).
		d.jsonMCP, d.sseMCP = v.SDKBridge(d.jsonMCP), v.SDKBridge(d.sseMCP)
		if d.sessionMCP != nil {
			d.sessionMCP = v.SDKBridge(d.sessionMCP)
		}
		h = v.Authenticate(h)
	}
	return d.originGuard(withRemoteHost(h)), nil
}

// newServer builds the go-sdk server of ep, every tool wrapped by
// observeTool, for any transport: the HTTP front door's stateless handlers
// or stdio ([ServeStdio]).
func newServer(ep *Endpoint, cfg Config) (*door, *mcp.Server, error) {
	if ep.Implementation == nil || len(ep.Tools) == 0 {
		return nil, nil, fmt.Errorf("mcphttp: endpoint %s needs an Implementation and at least one tool", ep.Path)
	}
	versions, err := servedVersions(cfg.ProtocolVersions)
	if err != nil {
		return nil, nil, fmt.Errorf("mcphttp: endpoint %s: %w", ep.Path, err)
	}
	d := &door{ep: ep, cfg: cfg, log: cfg.Logger, metrics: cfg.Metrics, tools: map[string]bool{}, versions: versions,
		handlers: make(map[string]mcp.ToolHandler, len(ep.Tools))}
	srv := mcp.NewServer(ep.Implementation, d.serverOptions(versions))
	for _, t := range ep.Tools {
		if t.Def == nil || t.Handler == nil || d.tools[t.Def.Name] {
			return nil, nil, fmt.Errorf("mcphttp: endpoint %s: every tool needs a definition, a handler and a name of its own", ep.Path)
		}
		d.tools[t.Def.Name] = true
		d.handlers[t.Def.Name] = d.observeTool(t.Def.Name, d.guardState(methodCallTool, t.Def.Name, t.Handler))
		srv.AddTool(t.Def, d.handlers[t.Def.Name])
	}
	if err := d.addFeatures(srv); err != nil {
		return nil, nil, fmt.Errorf("mcphttp: endpoint %s: %w", ep.Path, err)
	}
	srv.AddReceivingMiddleware(d.rpcMiddleware)
	srv.AddReceivingMiddleware(d.taskMiddleware) // outermost: a task outlives the call that starts it
	return d, srv, nil
}

// observeTool wraps one tool's handler: it turns a [*ToolError] into the
// isError result, an [*ArgumentError] into the answer the endpoint's policy
// and the request's revision call for, and a panic into -32603, and records
// the call's outcome (the code the handler returned, never one recovered
// from the text) and duration.
func (d *door) observeTool(name string, h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		outcome := metrics.OutcomeOK
		defer func() {
			if p := recover(); p != nil {
				d.log.ErrorContext(ctx, "panic in tool handler", slog.String("endpoint", d.ep.Path),
					slog.String("tool", name), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				res, err = nil, RPCError(errcodes.InternalError, Message(errcodes.InternalError))
				outcome = metrics.Outcome(string(errcodes.InternalError))
			}
			d.metrics.ObserveToolCall(d.ep.Path, name, outcome, time.Since(start))
			traceOutcome(ctx, outcome, requestRevision(req)) // tracing.go
		}()
		res, err = h(ctx, req)
		if err == nil { // before the errors.As targets, which escape: a success allocates none
			return res, nil
		}
		var te *ToolError
		var ae *ArgumentError
		var je *jsonrpc.Error
		switch {
		case errors.As(err, &ae):
			outcome = metrics.Outcome(string(errcodes.InvalidArguments))
			return ae.answer(d.ep.ArgumentErrors, requestRevision(req))
		case errors.As(err, &te):
			if te.Cause != nil {
				d.log.InfoContext(ctx, "tool refused", slog.String("endpoint", d.ep.Path), slog.String("tool", name),
					slog.String("code", te.Code), slog.String("cause", te.Cause.Error()))
			}
			outcome = metrics.Outcome(te.Code)
			return te.result(), nil
		case errors.As(err, &je):
			outcome = outcomeOfRPC(je)
			return nil, je
		default:
			d.log.ErrorContext(ctx, "tool failed", slog.String("endpoint", d.ep.Path), slog.String("tool", name), slog.Any("error", err))
			outcome = metrics.Outcome(string(errcodes.InternalError))
			return nil, RPCError(errcodes.InternalError, Message(errcodes.InternalError))
		}
	}
}

// outcomeOfRPC names a JSON-RPC error by its catalogue code.
func outcomeOfRPC(je *jsonrpc.Error) string {
	for _, e := range errcodes.Catalogue {
		if e.Surface == errcodes.SurfaceJSONRPC && int64(e.JSONRPCCode) == je.Code {
			return metrics.Outcome(string(e.Code))
		}
	}
	return metrics.Outcome(string(errcodes.InternalError))
}

// rpcMiddleware runs around every JSON-RPC method the SDK dispatches. It
// refuses tools/call of a tool the endpoint does not serve (the front door
// answers those first, in the catalogue's words; this is the backstop), and
// turns a panic outside a tool handler into -32603 so one bad call never
// takes the process down.
func (d *door) rpcMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				d.log.ErrorContext(ctx, "panic in MCP handler", slog.String("endpoint", d.ep.Path), slog.String("method", method),
					slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				res, err = nil, RPCError(errcodes.InternalError, Message(errcodes.InternalError))
			}
		}()
		if call, ok := req.(*mcp.CallToolRequest); ok && !d.serves(call.Params.Name) {
			d.metrics.ObserveToolCall(d.ep.Path, metrics.UnknownTool, metrics.Outcome(string(errcodes.MethodNotFound)), 0)
			return nil, RPCError(errcodes.MethodNotFound, Message(errcodes.MethodNotFound, "name", call.Params.Name))
		}
		res, err = next(ctx, method, req)
		if method != methodCallTool { // a tool call's outcome is observeTool's
			traceRPCOutcome(ctx, err)
		}
		return res, err
	}
}

// sdkLogger passes the go-sdk's warnings and errors to the host's log. Its
// info records ("server connecting", "session connected") come on every
// stateless request and would drown the one request line the host writes.
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

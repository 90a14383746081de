package mcphttp

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/internal/sizedread"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// headerProtocolVersion is the MCP Streamable HTTP version header.
const headerProtocolVersion = "Mcp-Protocol-Version" // canonical form: Header.Get need not rewrite it

const methodCallTool = "tools/call"

// allowedMethods is the Allow header of an endpoint: stateless, so no GET stream
// and no session to DELETE.
const allowedMethods = "POST, OPTIONS"

// JSON-RPC methods the server answers (through the SDK); anything else that
// expects a reply gets -32601. resources/* and prompts/* answer empty lists:
// the server has neither, and generic clients list them anyway.
var knownMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"logging/setLevel": true, "completion/complete": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"prompts/list": true, "prompts/get": true,
}

// knownNotifications are passed on; other notifications are accepted (202)
// and dropped, as JSON-RPC lets a receiver ignore what it does not know.
var knownNotifications = map[string]bool{
	"notifications/initialized": true, "notifications/cancelled": true,
	"notifications/progress": true, "notifications/roots/list_changed": true,
}

// envelope is a JSON-RPC message with every member kept raw, so each can be
// checked for its type and answered with a precise -32600.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// serveMCP is the front door of an endpoint's POST. It answers every failure
// the specification documents in its shape before the go-sdk sees the request
// (whose own answers to these cases are plain-text 400s), then hands the
// call to the SDK's stateless handler: the application/json one, or the
// text/event-stream one when the call asks for progress.
//
// Order: Origin/Host (403), method (405), Accept (406), Content-Type (415),
// MCP-Protocol-Version (400), body size (413) and pace (408), JSON
// (-32700), JSON-RPC envelope (-32600), method name (-32601), tools/call
// name (-32602 when absent or not a string, -32601 when not served), rate
// limit (429). The tool handler then checks its arguments. OAuth (401)
// runs before all but the Origin check, in the endpoint's verifier around
// this handler.
func (d *door) serveMCP(w http.ResponseWriter, r *http.Request) {
	rec := callInfoFrom(r.Context())
	if d.serveSessionStream(w, r) { // GET and DELETE of a session (sessions.go)
		return
	}
	arrived := arrival() // tracing.go
	switch r.Method {
	case http.MethodPost:
	case http.MethodOptions:
		// A CORS preflight was answered by originGuard; a plain OPTIONS
		// asks what the endpoint allows.
		w.Header().Set("Allow", d.allowed())
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", d.allowed())
		writeRPCError(w, http.StatusMethodNotAllowed, nil, -32000,
			"Method Not Allowed: this endpoint is stateless and takes POST only (no GET stream, no session to DELETE)")
		return
	}
	if jsonOK, sseOK := accepts(r.Header.Values("Accept")); !jsonOK || !sseOK {
		writeError(w, 0, nil, errcodes.NotAcceptable, Message(errcodes.NotAcceptable))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
		writeError(w, http.StatusUnsupportedMediaType, nil, errcodes.InvalidRequest,
			Message(errcodes.InvalidRequest, "reason", "Content-Type must be application/json"))
		return
	}
	if v := r.Header.Get(headerProtocolVersion); v != "" && !slices.Contains(d.versions, v) {
		d.refuseVersion(w, r, v)
		return
	}
	body, ok := d.readBody(w, r)
	if !ok {
		return
	}
	if d.fast != nil {
		// The stateless JSON tools/call, read once; everything the checks
		// below would refuse, it leaves to them.
		if call, ok := d.fast.Parse(r, body); ok {
			rec.Method, rec.Tool = methodCallTool, call.Tool()
			if !d.requireScope(w, r, call.Tool()) {
				return
			}
			release, ok := d.admit(w, r, call.Tool())
			if !ok {
				return
			}
			defer release()
			rec.Fast = true
			r, span := d.traceRequest(r, arrived, methodCallTool, call.Tool(), telemetry.Meta{}, true)
			defer span.End()
			d.fast.Serve(w, r, call) // unescapes its reply itself (HTMLUnescaped)
			return
		}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		writeError(w, 0, nil, errcodes.ParseError, Message(errcodes.ParseError, "reason", "empty request body"))
		return
	}
	if err := checkJSON(trimmed); err != nil {
		writeError(w, 0, nil, errcodes.ParseError, Message(errcodes.ParseError, "reason", err.Error()))
		return
	}
	if trimmed[0] == '[' {
		writeError(w, 0, nil, errcodes.InvalidRequest, Message(errcodes.InvalidRequest,
			"reason", "JSON-RPC batches are not supported by protocol "+Revision20250618))
		return
	}
	var env envelope
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		writeError(w, 0, nil, errcodes.InvalidRequest, Message(errcodes.InvalidRequest, "reason", "the body must be a JSON-RPC 2.0 object"))
		return
	}
	id, reason := checkEnvelope(&env)
	if reason != "" {
		writeError(w, 0, id, errcodes.InvalidRequest, Message(errcodes.InvalidRequest, "reason", reason))
		return
	}
	var method string
	json.Unmarshal(env.Method, &method)
	rec.Method = method
	isCall := len(env.ID) > 0
	switch {
	case env.Method == nil:
		// A response to a server request: stateless sessions send none,
		// so the SDK acknowledges and drops it.
	case !isCall && !knownNotifications[method]:
		w.WriteHeader(http.StatusAccepted)
		return
	case isCall && !d.knows(r, method): // knownMethods, and those of the endpoint's features (features.go)
		writeRPCError(w, methodNotFoundStatus(r), id, entry(errcodes.MethodNotFound).JSONRPCCode,
			"Method not found: no method named '"+method+"'")
		return
	}
	var params struct {
		Name json.RawMessage `json:"name"`
		Meta struct {
			ProgressToken  json.RawMessage `json:"progressToken"`
			LogLevel       json.RawMessage `json:"io.modelcontextprotocol/logLevel"` // SEP-2575: this request's log messages
			telemetry.Meta                 // SEP-414: traceparent, tracestate, baggage
		} `json:"_meta"`
	}
	if len(env.Params) > 0 {
		json.Unmarshal(env.Params, &params) // shape checked by checkEnvelope; members checked below
	}
	if !d.checkTaskName(w, r, method, id, env.Params) { // tasks.go
		return
	}
	if method == methodCallTool {
		name, reason := checkToolName(params.Name)
		if reason != "" {
			writeError(w, 0, id, errcodes.InvalidArguments, Message(errcodes.InvalidArguments, "field", "name", "reason", reason))
			return
		}
		rec.Tool = name
		if !d.serves(name) {
			// Answered here: the SDK's JSON-RPC layer rewrites any -32601 a
			// handler returns into its own "method not found" wording.
			d.metrics.ObserveToolCall(d.ep.Path, metrics.UnknownTool, metrics.Outcome(string(errcodes.MethodNotFound)), 0)
			writeError(w, 0, id, errcodes.MethodNotFound, Message(errcodes.MethodNotFound, "name", name))
			return
		}
		if !d.requireScope(w, r, name) {
			return
		}
		release, ok := d.admit(w, r, name)
		if !ok {
			return
		}
		// The SDK's stateless handler returns only once the reply (JSON or
		// the whole event stream) is written, so the slot covers the call.
		defer release()
	}
	handler := d.jsonMCP
	if asksForNotifications(params.Meta.ProgressToken) || asksForNotifications(params.Meta.LogLevel) {
		handler = d.sseMCP
		rec.Stream = true
	}
	if s := d.sessionFor(r, method); s != nil { // the client's session, or one it opens (sessions.go)
		handler = s
		rec.Stream = true
	}
	r, span := d.traceRequest(r, arrived, method, rec.Tool, params.Meta.Meta, false)
	defer span.End()
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	handler.ServeHTTP(&htmlUnescaper{ResponseWriter: w}, r)
}

// asksForNotifications reports whether a _meta member that asks for
// notifications during the call (a progress token, a 2026-07-28 log level)
// is set: such a call is answered as an event stream, which can carry them
// before the result; an application/json reply carries the result alone.
func asksForNotifications(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// readBody reads the whole body within MaxBodyBytes, answering 413 above it.
func (d *door) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := d.cfg.MaxBodyBytes
	tooLarge := func() ([]byte, bool) {
		w.Header().Set("Connection", "close")
		writeError(w, 0, nil, errcodes.PayloadTooLarge, Message(errcodes.PayloadTooLarge, "limit", strconv.FormatInt(limit, 10)))
		return nil, false
	}
	if r.ContentLength > limit {
		return tooLarge()
	}
	// http.Server's ReadHeaderTimeout stops at the headers, and a
	// ReadTimeout would also cut off the calls that stream progress, so the
	// body gets a deadline of its own: a client trickling a body cannot hold
	// a connection and a goroutine open for ever. Cleared once read, since a
	// deadline left set would cancel the call when it passes. Writers that
	// cannot take deadlines (httptest.ResponseRecorder) read without one.
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d.cfg.BodyReadTimeout)) == nil {
		defer rc.SetReadDeadline(time.Time{})
	}
	body, err := sizedread.ReadAll(http.MaxBytesReader(w, r.Body, limit), r.ContentLength) // within limit, checked above
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge()
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, nil, errcodes.ParseError, Message(errcodes.ParseError,
			"reason", "the request body did not arrive within "+d.cfg.BodyReadTimeout.String()))
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, errcodes.ParseError, Message(errcodes.ParseError, "reason", "reading the body: "+err.Error()))
		return nil, false
	}
	return body, true
}

// checkJSON reports why b is not exactly one JSON value, in
// encoding/json's words ("invalid character 'x' looking for beginning of
// value").
func checkJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("unexpected end of JSON input")
		}
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// checkEnvelope validates the JSON-RPC 2.0 envelope as MCP narrows it (ids
// are strings or numbers, never null; params is an object). It returns the
// id to echo (nil when the id itself is bad) and the reason for -32600.
func checkEnvelope(env *envelope) (json.RawMessage, string) {
	var id json.RawMessage
	if len(env.ID) > 0 {
		switch env.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = env.ID
		default:
			return nil, "id must be a string or a number"
		}
	}
	var version string
	if json.Unmarshal(env.JSONRPC, &version) != nil || version != "2.0" {
		return id, `jsonrpc must be "2.0"`
	}
	if env.Method == nil {
		if id == nil || (env.Result == nil && env.Error == nil) {
			return id, "method is required"
		}
		return id, ""
	}
	var method string
	if json.Unmarshal(env.Method, &method) != nil || method == "" {
		return id, "method must be a non-empty string"
	}
	if len(env.Params) > 0 && env.Params[0] != '{' && !bytes.Equal(env.Params, []byte("null")) {
		return id, "params must be an object"
	}
	return id, ""
}

// checkToolName reads params.name of tools/call, with Zod's wording.
func checkToolName(raw json.RawMessage) (string, string) {
	if len(raw) == 0 {
		return "", "Required"
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", "Expected string, received " + jsonKind(raw)
	}
	return name, ""
}

func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// accepts reports whether the Accept values name both reply types. Only
// the types themselves count: the specification answers a call without
// Accept with 406, and curl and fetch send */* when the caller sets none,
// so a wildcard (*/*, application/*, text/*) admits neither. A type given
// q=0 is one the client refuses (RFC 9110 section 12.4.2), so it does not
// count either.
func accepts(values []string) (jsonOK, sseOK bool) {
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			base, params, _ := strings.Cut(part, ";")
			if refusedByQ(params) {
				continue
			}
			switch base = strings.TrimSpace(base); {
			case strings.EqualFold(base, "application/json"):
				jsonOK = true
			case strings.EqualFold(base, "text/event-stream"):
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

// refusedByQ reports whether the parameters of one media range carry a
// quality of zero ("q=0", "q=0.000").
func refusedByQ(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		if k, val, ok := strings.Cut(p, "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			return err == nil && q == 0
		}
	}
	return false
}

// isJSONMediaType reports whether a Content-Type value names
// application/json, parameters allowed. The caller tries the plain value
// first: ParseMediaType allocates its parameter map even when there is none.
func isJSONMediaType(v string) bool {
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && mt == "application/json"
}

// admit applies the optional rate limiter to one tools/call, answering 429
// with Retry-After when it refuses. When it admits, the caller must call
// release once the call has been answered.
func (d *door) admit(w http.ResponseWriter, r *http.Request, tool string) (release func(), ok bool) {
	if d.limiter == nil || d.internalCall(r) {
		return func() {}, true
	}
	rule, limited := d.limiter.Rule(tool)
	if !limited {
		return func() {}, true
	}
	release, retry, ok := d.limiter.Acquire(r.Context(), tool, clientKey(r, rule.ByEndUser))
	if !ok {
		d.metrics.RateLimited(d.ep.Path, tool)
		secs := strconv.Itoa(int(retry.Seconds())) // whole seconds, at least 1: Acquire rounds up
		w.Header().Set("Retry-After", secs)
		writeError(w, 0, nil, errcodes.RateLimited, Message(errcodes.RateLimited, "seconds", secs))
		return nil, false
	}
	return release, true
}

// InternalCallerHeader carries [Config.InternalToken] on the host's own
// calls to an endpoint.
const InternalCallerHeader = "Internal-Caller"

// internalCall reports whether r is one of the host's own calls: it
// carries the host's internal token, compared in constant time.
func (d *door) internalCall(r *http.Request) bool {
	t := d.cfg.InternalToken
	if t == "" {
		return false
	}
	got := r.Header.Get(InternalCallerHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(t)) == 1
}

// clientKey names the caller for the limiter: the end user or the OAuth
// client when the request was authenticated, else the remote address.
// X-Forwarded-For is not trusted: a client could pick its own key.
func clientKey(r *http.Request, byEndUser bool) string {
	if c, ok := auth.CallerFrom(r.Context()); ok && c.IsAuthenticated() {
		if byEndUser && c.UserID() != "" {
			return "user:" + c.UserID()
		}
		if c.ClientID() != "" {
			return "client:" + c.ClientID()
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}

// originGuard refuses, with 403, browser requests from origins the
// configuration does not allow, and requests whose Host names a foreign
// host on a loopback listener: the two signs of a DNS-rebinding attack. It
// also answers CORS for allowed origins, preflight included.
func (d *door) originGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !d.originAllowed(origin) || !d.hostAllowed(r) {
			writeError(w, 0, nil, errcodes.ForbiddenOrigin, Message(errcodes.ForbiddenOrigin))
			return
		}
		if origin != "" {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate, Retry-After")
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", d.allowed())
				h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (d *door) originAllowed(origin string) bool {
	if len(d.cfg.AllowedOrigins) > 0 {
		for _, o := range d.cfg.AllowedOrigins {
			if o == "*" || strings.EqualFold(strings.TrimRight(o, "/"), origin) {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if pub, err := url.Parse(d.cfg.PublicBaseURL); err == nil && strings.EqualFold(pub.Scheme+"://"+pub.Host, origin) {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

// hostAllowed applies the go-sdk's localhost rule (a loopback listener
// answers only loopback Host names) while also admitting the host of
// PUBLIC_BASE_URL and of the allowed origins, so a reverse proxy on the
// same machine can forward the public name.
func (d *door) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return true
	}
	if ta, ok := local.(*net.TCPAddr); ok {
		// A TCP listener's address, read without formatting and parsing
		// it again on every request.
		if !ta.IP.IsLoopback() {
			return true
		}
	} else if lhost, _, err := net.SplitHostPort(local.String()); err != nil || !isLoopbackHost(lhost) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if isLoopbackHost(host) {
		return true
	}
	for _, base := range append([]string{d.cfg.PublicBaseURL}, d.cfg.AllowedOrigins...) {
		if u, err := url.Parse(base); err == nil && strings.EqualFold(u.Hostname(), host) {
			return true
		}
	}
	return false
}

func isLoopbackHost(h string) bool {
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

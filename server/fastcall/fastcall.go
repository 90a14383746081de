package fastcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/internal/htmlesc"
	"github.com/tridenttaxis/trident-mcp/internal/jsonscan"
)

const methodCallTool = "tools/call"

// Options configures a [Handler]. Tools is required.
type Options struct {
	// Tools are the handlers the fast path may call, by tool name: the same
	// ones given to the go-sdk server behind it. A call to any other name
	// goes to the SDK.
	Tools map[string]mcp.ToolHandler

	// Middleware is the receiving middleware of the go-sdk server behind
	// it, in the order given to mcp.Server.AddReceivingMiddleware; the fast
	// path runs each call through it as the SDK would (metrics, recovery).
	// Zero: none.
	Middleware []mcp.Middleware

	// TokenInfo is the caller's token a call's RequestExtra carries, for a
	// front door that authenticates requests itself rather than behind the
	// go-sdk's auth.RequireBearerToken. Zero: the SDK's
	// auth.TokenInfoFromContext, as its own handler reads it.
	TokenInfo func(*http.Request) *sdkauth.TokenInfo

	// HTMLUnescaped says a reply must read with encoding/json's HTML
	// escapes (\u0026, \u003c, \u003e) written back as &, < and >, as the
	// front door writes the SDK's replies ([htmlesc]). Serve then writes a
	// result of the common shapes with those characters as themselves, in
	// one pass per part (see appendResult), undoes any escape the rest of
	// the reply holds itself, and states the reply's length, so the reply
	// reaches the wire as the SDK's does through the front door's writer.
	// Zero: every result is encoded as the SDK encodes it, and written as
	// it is.
	HTMLUnescaped bool
}

// Handler answers stateless tools/call requests with an application/json
// reply without an SDK session: [Handler.Parse] says whether a request is
// one it answers exactly as the go-sdk would, [Handler.Serve] answers it.
// The front door sends every other request to the SDK. Build it with [New].
type Handler struct {
	tools     map[string]tool
	call      mcp.MethodHandler
	tokenInfo func(*http.Request) *sdkauth.TokenInfo
	unescaped bool // Options.HTMLUnescaped
}

type tool struct {
	name   string // the map key, so a call's name costs no allocation
	handle mcp.ToolHandler
}

// New returns a Handler for the go-sdk server whose tools and receiving
// middleware opts names. That server's handler must be a stateless
// StreamableHTTPHandler with JSONResponse set, whose localhost and
// cross-origin checks are off, behind a front door that checks Origin,
// Accept, Content-Type and MCP-Protocol-Version before either path runs,
// so that both paths answer alike.
func New(opts Options) *Handler {
	h := &Handler{tools: make(map[string]tool, len(opts.Tools)), tokenInfo: opts.TokenInfo, unescaped: opts.HTMLUnescaped}
	if h.tokenInfo == nil {
		h.tokenInfo = func(r *http.Request) *sdkauth.TokenInfo { return sdkauth.TokenInfoFromContext(r.Context()) }
	}
	for name, th := range opts.Tools {
		h.tools[name] = tool{name: name, handle: th}
	}
	h.call = h.dispatch
	for _, m := range slices.Backward(opts.Middleware) { // as mcp.Server.AddReceivingMiddleware
		h.call = m(h.call)
	}
	return h
}

// dispatch is the innermost method handler: the tool, then what the
// go-sdk's own tools/call does with its result (an empty content list
// rather than null).
func (h *Handler) dispatch(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
	call := req.(*mcp.CallToolRequest)
	res, err := h.tools[call.Params.Name].handle(ctx, call)
	if err == nil && res != nil && res.Content == nil {
		res2 := *res
		res2.Content = []mcp.Content{}
		res = &res2
	}
	if res == nil {
		return nil, err // a nil *CallToolResult must not become a non-nil Result
	}
	return res, err
}

// Call is one request the fast path answers, read by [Handler.Parse]. Its
// parts are allocated together.
type Call struct {
	req    mcp.CallToolRequest
	params mcp.CallToolParamsRaw
	extra  mcp.RequestExtra
	id     []byte // raw; echoed as sent (echoedID says when that is what the SDK does)
}

// Tool is the name of the tool called.
func (c *Call) Tool() string { return c.params.Name }

// Parse reads a call the fast path answers exactly as the go-sdk would:
// one JSON-RPC request for tools/call of a known tool, whose params hold
// only name and arguments, whose id the SDK echoes unchanged, with none of
// the headers that make the SDK answer differently (a session, a resumed
// stream, a protocol version it refuses or that brings per-request headers).
// Everything else is the SDK's. The body is read once, in place: the
// arguments the tool gets are a slice of it.
func (h *Handler) Parse(r *http.Request, body []byte) (*Call, bool) {
	if r.Method != http.MethodPost || !h.headersOK(r.Header) || !jsonscan.Valid(body) {
		return nil, false
	}
	var env [maxMembers]member
	n, ok := members(body, &env)
	if !ok || n != 4 {
		return nil, false
	}
	var version, method, id, params []byte
	for _, m := range env[:n] {
		switch string(m.key) {
		case "jsonrpc":
			version = m.value
		case "method":
			method = m.value
		case "id":
			id = m.value
		case "params":
			params = m.value
		}
	}
	if string(version) != `"2.0"` || string(method) != `"`+methodCallTool+`"` || params == nil || !echoedID(id) {
		return nil, false
	}
	var pm [maxMembers]member
	n, ok = members(params, &pm)
	if !ok {
		return nil, false
	}
	var t tool
	var args json.RawMessage
	for _, m := range pm[:n] {
		switch string(m.key) {
		case "name":
			if len(m.value) < 2 || m.value[0] != '"' || hasEscape(m.value) {
				return nil, false
			}
			if t, ok = h.tools[string(m.value[1:len(m.value)-1])]; !ok {
				return nil, false
			}
		case "arguments":
			args = json.RawMessage(m.value)
		default: // _meta (progress, protocol version), inputResponses, ...
			return nil, false
		}
	}
	if t.handle == nil {
		return nil, false
	}
	c := &Call{id: id}
	c.params = mcp.CallToolParamsRaw{Name: t.name, Arguments: args}
	c.req.Params = &c.params
	return c, true
}

// headersOK reports whether the request's headers leave the SDK's answer to
// the handler alone. Accept, Content-Type and a supported
// MCP-Protocol-Version are the front door's to check, by the SDK's rules,
// before Parse.
func (h *Handler) headersOK(hd http.Header) bool {
	// Canonical keys, read from the map: Header.Get would canonicalise
	// (and allocate) a non-canonical literal on every call.
	if v := hd["Mcp-Protocol-Version"]; len(v) > 0 && v[0] >= "2026-07-28" {
		return false // brings Mcp-Method headers and per-request _meta checks
	}
	return len(hd["Mcp-Session-Id"]) == 0 && len(hd["Last-Event-Id"]) == 0
}

// echoedID reports whether the go-sdk answers with this id byte for byte:
// integers it holds exactly (it reads every number as a float64 and answers
// its int64, so 1.5 becomes 1 and 1e2 becomes 100) and strings of printable
// ASCII without escapes (which its encoder writes back unchanged). Other
// ids, and a missing one (a notification), are the SDK's.
func echoedID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		for _, c := range raw[1 : len(raw)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
				return false
			}
		}
		return true
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(raw) > 1) {
		return false // leading zeros are not JSON; "-0" answers 0; 16 digits may not be exact
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// The reply's header values, shared by every reply: net/http only reads
// them, and their capacity is their length, so an Add appends to a copy.
var (
	cacheControl = []string{"no-cache, no-transform"}[:1:1]
	contentType  = []string{"application/json"}[:1:1]
)

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Serve runs a parsed call and writes the reply the go-sdk would write,
// encoded once: the envelope around the id as sent, then the result or
// error encoded as the SDK's JSON-RPC layer encodes it (encoding/json
// without HTML escaping; the result's own MarshalJSON may escape). With
// Options.HTMLUnescaped, a result of the common shapes is written as
// appendResult writes it.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request, c *Call) {
	c.extra = mcp.RequestExtra{
		TokenInfo:      h.tokenInfo(r),
		Header:         r.Header,
		CloseSSEStream: func(mcp.CloseSSEStreamArgs) {}, // a JSON reply has no stream to close
	}
	c.req.Extra = &c.extra
	res, err := h.call(r.Context(), methodCallTool, &c.req)

	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(c.id)
	head := buf.Len()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	switch {
	case err != nil:
		buf.WriteString(`,"error":`)
		err = enc.Encode(wireError(err))
	case res == nil:
		buf.WriteString(`,"error":`)
		err = enc.Encode(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tools/call returned no result"})
	default:
		buf.WriteString(`,"result":`)
		if ctr, ok := res.(*mcp.CallToolResult); ok && h.unescaped && appendResult(buf, enc, ctr) {
			buf.WriteByte('\n') // as Encode ends
		} else if err = enc.Encode(res); err != nil {
			buf.Truncate(head)
			buf.WriteString(`,"error":`)
			err = enc.Encode(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "marshaling the tools/call result: " + err.Error()})
		}
	}
	if err != nil { // only an error text that cannot be encoded
		buf.Truncate(head)
		buf.WriteString(`,"error":{"code":-32603,"message":"Internal error"}` + "\n")
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteByte('}')
	reply := buf.Bytes()
	if h.unescaped && htmlesc.Has(reply) {
		// An escape in the request's id, in a RawMessage or in an error's
		// text: rewritten as the front door's writer would rewrite it.
		reply, _ = htmlesc.Unescape(make([]byte, 0, len(reply)), reply, false)
	}
	hd := w.Header()
	hd["Cache-Control"], hd["Content-Type"] = cacheControl, contentType // canonical keys; Set would allocate each value's slice
	if len(reply) > chunkedFrom {
		// Stated, net/http writes the headers and the reply in two
		// writes, not three: unstated, a reply longer than its response
		// buffer goes chunked, and its last chunk is a write of its own
		// (a search_rides reply, ~18 KB: writes of 4096, 14067 and 7
		// bytes, each a system call and a wake-up of the reader).
		hd["Content-Length"] = []string{strconv.Itoa(len(reply))}
	}
	w.WriteHeader(http.StatusOK)
	w.Write(reply)
}

// chunkedFrom is the size of net/http's response buffer (its
// bufferBeforeChunkingSize): a reply that fits is given its length by
// net/http itself once the handler returns.
const chunkedFrom = 2048

// wireError is the go-sdk's conversion of a handler error to the error
// object of the response.
func wireError(err error) *jsonrpc.Error {
	if we, ok := err.(*jsonrpc.Error); ok {
		return we
	}
	out := &jsonrpc.Error{Message: err.Error()}
	var wrapped *jsonrpc.Error
	if errors.As(err, &wrapped) {
		out.Code = wrapped.Code
	}
	return out
}

package fastcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

	// ProtocolVersions are the MCP-Protocol-Version values the SDK server
	// accepts. A call naming any other goes to the SDK, which refuses it.
	// Zero: only calls without the header take the fast path.
	ProtocolVersions []string
}

// Handler answers stateless tools/call requests with an application/json
// reply itself and hands every other request to the go-sdk handler behind
// it. Build it with [New].
type Handler struct {
	next     http.Handler
	tools    map[string]mcp.ToolHandler
	call     mcp.MethodHandler
	versions []string
	served   atomic.Uint64
}

// Served is how many calls the fast path has answered, so tests can tell
// which path a request took.
func (h *Handler) Served() uint64 { return h.served.Load() }

// New returns a Handler in front of next, which must be a go-sdk
// StreamableHTTPHandler built with Stateless and JSONResponse for the server
// whose tools and middleware opts names, and whose localhost and
// cross-origin checks are off (the front door makes them before either path
// runs).
func New(next http.Handler, opts Options) *Handler {
	h := &Handler{next: next, tools: opts.Tools, versions: opts.ProtocolVersions}
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
	res, err := h.tools[call.Params.Name](ctx, call)
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

// ServeHTTP answers r on the fast path when it can, else hands it to the
// SDK with its body intact.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		h.next.ServeHTTP(w, r)
		return
	}
	h.ServeBody(w, r, body)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// ServeBody is ServeHTTP for a caller that has already read the body.
func (h *Handler) ServeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	if c, id, ok := h.parse(r, body); ok {
		h.served.Add(1)
		h.serve(w, r, c, id)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	h.next.ServeHTTP(w, r)
}

// parse reads a call the fast path answers exactly as the go-sdk would:
// one JSON-RPC request for tools/call of a known tool, whose params hold
// only name and arguments, whose id the SDK echoes unchanged, with none of
// the headers that make the SDK answer differently (a session, a resumed
// stream, a protocol version it refuses or that brings per-request headers).
// Everything else is the SDK's.
func (h *Handler) parse(r *http.Request, body []byte) (*mcp.CallToolRequest, jsonrpc.ID, bool) {
	if r.Method != http.MethodPost || !h.headersOK(r.Header) || !json.Valid(body) {
		return nil, jsonrpc.ID{}, false
	}
	var env [maxMembers]member
	n, ok := members(body, &env)
	if !ok || n != 4 {
		return nil, jsonrpc.ID{}, false
	}
	var version, method, rawID, params []byte
	for _, m := range env[:n] {
		switch string(m.key) {
		case "jsonrpc":
			version = m.value
		case "method":
			method = m.value
		case "id":
			rawID = m.value
		case "params":
			params = m.value
		}
	}
	if string(version) != `"2.0"` || string(method) != `"`+methodCallTool+`"` || params == nil {
		return nil, jsonrpc.ID{}, false
	}
	id, ok := echoedID(rawID)
	if !ok {
		return nil, jsonrpc.ID{}, false
	}
	var pm [maxMembers]member
	n, ok = members(params, &pm)
	if !ok {
		return nil, jsonrpc.ID{}, false
	}
	var name string
	var args json.RawMessage
	for _, m := range pm[:n] {
		switch string(m.key) {
		case "name":
			if len(m.value) < 2 || m.value[0] != '"' || hasEscape(m.value) {
				return nil, jsonrpc.ID{}, false
			}
			name = string(m.value[1 : len(m.value)-1])
		case "arguments":
			args = json.RawMessage(m.value)
		default: // _meta (progress, protocol version), inputResponses, ...
			return nil, jsonrpc.ID{}, false
		}
	}
	if h.tools[name] == nil {
		return nil, jsonrpc.ID{}, false
	}
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: args}}, id, true
}

// headersOK reports whether the request's headers leave the SDK's answer to
// the handler alone.
func (h *Handler) headersOK(hd http.Header) bool {
	if mt, _, err := mime.ParseMediaType(hd.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if v := hd.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(h.versions, v) {
		return false
	}
	if v := hd.Get("MCP-Protocol-Version"); v >= "2026-07-28" { // brings Mcp-Method and per-request _meta checks
		return false
	}
	if len(hd.Values("Mcp-Session-Id")) > 0 || len(hd.Values("Last-Event-ID")) > 0 {
		return false
	}
	return acceptsBoth(hd.Values("Accept"))
}

// acceptsBoth applies the go-sdk's Accept rule: both application/json and
// text/event-stream, wildcards included.
func acceptsBoth(values []string) bool {
	jsonOK, sseOK := false, false
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK && sseOK
}

// echoedID is the id the go-sdk would answer with, for the ids it echoes
// byte for byte: integers it holds exactly (the SDK reads every number as a
// float64 and answers its int64, so 1.5 becomes 1 and 1e2 becomes 100) and
// strings of printable ASCII without escapes. Other ids are the SDK's.
func echoedID(raw []byte) (jsonrpc.ID, bool) {
	if len(raw) == 0 {
		return jsonrpc.ID{}, false // a notification
	}
	if raw[0] == '"' {
		for _, c := range raw[1 : len(raw)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
				return jsonrpc.ID{}, false
			}
		}
		id, err := jsonrpc.MakeID(string(raw[1 : len(raw)-1]))
		return id, err == nil
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(raw) > 1) {
		return jsonrpc.ID{}, false // leading zeros are not JSON; "-0" answers 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return jsonrpc.ID{}, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// serve runs the call and writes the reply the go-sdk would write.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, c *mcp.CallToolRequest, id jsonrpc.ID) {
	c.Extra = &mcp.RequestExtra{
		TokenInfo:      sdkauth.TokenInfoFromContext(r.Context()),
		Header:         r.Header,
		CloseSSEStream: func(mcp.CloseSSEStreamArgs) {}, // a JSON reply has no stream to close
	}
	res, err := h.call(r.Context(), methodCallTool, c)
	resp := &jsonrpc.Response{ID: id}
	switch {
	case err != nil:
		resp.Error = wireError(err)
	case res == nil:
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tools/call returned no result"}
	default:
		if resp.Result, err = marshal(res); err != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "marshaling the tools/call result: " + err.Error()}
			resp.Result = nil
		}
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		data, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}})
	}
	hd := w.Header()
	hd.Set("Cache-Control", "no-cache, no-transform")
	hd.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

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

// marshal encodes a result as the go-sdk does: encoding/json without HTML
// escaping at the top level (the result's own MarshalJSON may escape).
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

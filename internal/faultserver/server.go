package faultserver

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Fault is one scripted reply. Exactly one of its reply fields should be
// set; Method, when set, makes the fault wait for a request of that method.
type Fault struct {
	// Method restricts the fault to requests of this JSON-RPC method.
	Method string
	// Status replies with this HTTP status, Header and Body.
	Status int
	Header map[string]string
	Body   string
	// CutStream replies with an event stream of progress frames that ends
	// before the final response.
	CutStream bool
	// Reset closes the connection without any reply.
	Reset bool
	// RPCError replies 200 with this JSON-RPC error.
	RPCError *RPCError
	// ToolError replies 200 with a tool result isError: true and this text.
	ToolError string
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Request is what the server recorded of one POST.
type Request struct {
	Method string
	ID     json.RawMessage
	Header http.Header
	Body   []byte
	Token  string // bearer token, "" if none
}

// toolFunc answers one tool: its structured content and text, or a refusal.
type toolFunc func(args map[string]any) (structured any, text string, refusal string)

// Options configure a [Server].
type Options struct {
	// RequireSession makes the server stateful, like go-sdk's default:
	// anything but initialize without a known Mcp-Session-Id gets 400.
	RequireSession bool
	// Issuer, when set, turns on OAuth: a request whose bearer token the
	// issuer does not recognise gets 401 with WWW-Authenticate.
	Issuer *Issuer
	// ResourceMetadataURL is put in the 401's WWW-Authenticate.
	ResourceMetadataURL string
	// ProgressSteps is the number of progress frames streamed before the
	// result of a call with a progress token. Zero means 2.
	ProgressSteps int
	// Stateless makes the server speak MCP 2026-07-28 too, as the real
	// server does: it answers server/discover, and a request whose
	// MCP-Protocol-Version is 2026-07-28 must carry its revision and client
	// capabilities in params._meta (400 -32602 otherwise) and gets results
	// with resultType (and tools/list the caching fields). Zero: a server
	// of the handshake revisions, which answers server/discover -32601.
	Stateless bool
}

// StatelessRevision is the revision a [Options.Stateless] server speaks
// beside the handshake ones.
const StatelessRevision = "2026-07-28"

// Server is the fault-injecting MCP endpoint. It is an http.Handler for POST.
type Server struct {
	opts  Options
	tools map[string]toolFunc

	mu       sync.Mutex
	faults   []Fault
	requests []Request
	sessions map[string]bool
	nextSess int
}

// New returns a server whose tools give canned replies shaped like the
// specification's samples.
func New(opts Options) *Server {
	if opts.ProgressSteps == 0 {
		opts.ProgressSteps = 2
	}
	return &Server{opts: opts, tools: defaultTools(), sessions: map[string]bool{}}
}

// Enqueue adds faults to the script, consumed in order.
func (s *Server) Enqueue(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestsOf returns the requests of method received so far.
func (s *Server) RequestsOf(method string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Count returns how many requests of method arrived.
func (s *Server) Count(method string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == method {
			n++
		}
	}
	return n
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var msg message
	if err := json.Unmarshal(body, &msg); err != nil {
		writeJSON(w, 400, map[string]any{"jsonrpc": "2.0", "id": nil, "error": RPCError{Code: -32700, Message: "Parse error"}})
		return
	}
	token := ""
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		token = a[7:]
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: msg.Method, ID: msg.ID, Header: r.Header.Clone(), Body: body, Token: token})
	s.mu.Unlock()

	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		writeJSON(w, 406, map[string]any{"jsonrpc": "2.0", "id": nil, "error": RPCError{Code: -32000, Message: "Not Acceptable: Client must accept both application/json and text/event-stream"}})
		return
	}
	if is := s.opts.Issuer; is != nil && !is.Valid(token) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="mcp", error="invalid_token", error_description="Missing or invalid access token", resource_metadata=%q`, s.opts.ResourceMetadataURL))
		writeJSON(w, 401, map[string]any{"jsonrpc": "2.0", "id": nil, "error": RPCError{Code: -32001, Message: "Unauthorized: bearer token is missing, expired, or failed verification"}})
		return
	}
	if f, ok := s.takeFault(msg.Method); ok {
		s.serveFault(w, r, msg, f)
		return
	}
	stateless := s.opts.Stateless && r.Header.Get("Mcp-Protocol-Version") == StatelessRevision
	if stateless && msg.ID != nil && !hasRequestMeta(msg.Params) {
		writeJSON(w, 400, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": RPCError{Code: -32602, Message: "Invalid params: missing _meta keys"}})
		return
	}
	if s.opts.RequireSession && !stateless && msg.Method != "initialize" {
		s.mu.Lock()
		known := s.sessions[r.Header.Get("Mcp-Session-Id")]
		s.mu.Unlock()
		if r.Header.Get("Mcp-Session-Id") == "" {
			http.Error(w, "Bad Request: missing session ID", http.StatusBadRequest)
			return
		}
		if !known {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
	}
	if msg.ID == nil { // notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch msg.Method {
	case "server/discover":
		if !s.opts.Stateless {
			s.reply(w, msg, nil, &RPCError{Code: -32601, Message: "Method not found: " + msg.Method})
			return
		}
		s.reply(w, msg, map[string]any{
			"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
			"supportedVersions": []string{StatelessRevision, "2025-11-25", "2025-06-18"},
			"capabilities":      map[string]any{"tools": map[string]any{}},
			"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "faultserver", "version": "0.0.0"}},
		}, nil)
	case "initialize":
		if s.opts.RequireSession {
			s.mu.Lock()
			s.nextSess++
			id := fmt.Sprintf("sess-%d", s.nextSess)
			s.sessions[id] = true
			s.mu.Unlock()
			w.Header().Set("Mcp-Session-Id", id)
		}
		s.reply(w, msg, map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "faultserver", "version": "0.0.0"},
		}, nil)
	case "tools/list":
		var tools []map[string]any
		for _, name := range slices.Sorted(maps.Keys(s.tools)) {
			tools = append(tools, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
		}
		res := map[string]any{"tools": tools}
		if stateless {
			res["resultType"], res["ttlMs"], res["cacheScope"] = "complete", 0, "public"
		}
		s.reply(w, msg, res, nil)
	case "tools/call":
		s.serveCall(w, r, msg)
	default:
		s.reply(w, msg, nil, &RPCError{Code: -32601, Message: "Method not found: " + msg.Method})
	}
}

// ForgetSessions drops every session, as a restarted server would.
func (s *Server) ForgetSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions = map[string]bool{}
}

func (s *Server) takeFault(method string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		// A fault meant for any call is not spent on the client's
		// server/discover probe: a test scripts the call's replies.
		if f.Method == method || f.Method == "" && method != "server/discover" {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			return f, true
		}
	}
	return Fault{}, false
}

func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, msg message, f Fault) {
	switch {
	case f.Reset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case f.Status != 0:
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
	case f.CutStream:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		token := progressToken(msg.Params)
		for i := range s.opts.ProgressSteps {
			writeEvent(w, progressFrame(token, i, s.opts.ProgressSteps))
		}
		// A half-written final frame, then the connection ends.
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(msg.ID)+`,"res`)
	case f.RPCError != nil:
		s.reply(w, msg, nil, f.RPCError)
	default:
		s.reply(w, msg, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": f.ToolError}}}, nil)
	}
}

func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, msg message) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		s.reply(w, msg, nil, &RPCError{Code: -32602, Message: "Invalid params: " + err.Error()})
		return
	}
	fn, ok := s.tools[p.Name]
	if !ok {
		s.reply(w, msg, nil, &RPCError{Code: -32601, Message: fmt.Sprintf("Method not found: no tool named '%s'", p.Name)})
		return
	}
	structured, text, refusal := fn(p.Arguments)
	var result map[string]any
	if refusal != "" {
		result = map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": refusal}}}
	} else {
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "structuredContent": structured}
	}
	s.reply(w, msg, result, nil)
}

// reply answers with JSON, or with an event stream of progress frames and
// then the response when the request carried a progress token.
func (s *Server) reply(w http.ResponseWriter, msg message, result any, rpcErr *RPCError) {
	resp := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	token := progressToken(msg.Params)
	if token == nil {
		writeJSON(w, 200, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	for i := range s.opts.ProgressSteps {
		writeEvent(w, progressFrame(token, i, s.opts.ProgressSteps))
	}
	writeEvent(w, resp)
}

// hasRequestMeta reports whether params carry the _meta keys every
// 2026-07-28 request must (SEP-2575).
func hasRequestMeta(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	_, v := p.Meta["io.modelcontextprotocol/protocolVersion"]
	_, c := p.Meta["io.modelcontextprotocol/clientCapabilities"]
	return v && c
}

func progressToken(params json.RawMessage) any {
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	return p.Meta.ProgressToken
}

func progressFrame(token any, i, n int) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{
		"progressToken": token, "progress": float64(i+1) / float64(n+1), "total": 1, "message": fmt.Sprintf("step %d of %d", i+1, n),
	}}
}

// writeEvent writes one SSE event, splitting the JSON over two data lines
// when it can, so that clients are made to join data lines.
func writeEvent(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	s := string(b)
	if i := strings.Index(s, `,"`); i > 0 {
		s = s[:i+1] + "\ndata: " + s[i+1:]
	}
	fmt.Fprintf(w, ": frame\nevent: message\ndata: %s\n\n", s)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// JSON-RPC methods the client sends.
const (
	MethodInitialize  = "initialize"
	MethodInitialized = "notifications/initialized"
	MethodToolsCall   = "tools/call"
	MethodToolsList   = "tools/list"
	MethodProgress    = "notifications/progress"
	MethodDiscover    = "server/discover"

	MethodPromptsGet    = "prompts/get"
	MethodResourcesRead = "resources/read"
)

var errNoRefresh = errors.New("client: the token source cannot refresh a fixed token")

// Client calls the tools of one MCP endpoint over Streamable HTTP. It is safe
// for concurrent use.
type Client struct {
	endpoint string
	base     settings

	nextID atomic.Int64
	group  singleflight.Group // one negotiation, one initialize at a time

	mu          sync.Mutex
	sessionID   string
	initialized bool
	// version is the revision requests carry: chosen by [Client.negotiate]
	// on first use, then the one initialize settled on; "" before.
	version string
	// offered are the revisions the server said it speaks (server/discover,
	// or a refusal listing them); nil while it has not said.
	offered   []string
	discovery *cachedDiscovery // the last server/discover answer
	tools     toolCatalog      // what tools/list said, for headers and its cache
}

// New returns a client for the MCP endpoint URL, e.g.
// "https://tridenttaxis.online/mcp".
func New(endpoint string, opts ...Option) (*Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("client: endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("client: endpoint %q is not an http(s) URL", endpoint)
	}
	c := &Client{endpoint: endpoint, base: defaultSettings()}
	for _, o := range opts {
		o(&c.base)
	}
	return c, nil
}

// Endpoint returns the MCP endpoint URL.
func (c *Client) Endpoint() string { return c.endpoint }

// ProtocolVersion returns the MCP revision the client's requests carry: the
// newest the server and the client share, found on the first request (see
// [WithProtocolVersion]); "" before it.
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// SessionID returns the Mcp-Session-Id the server gave at initialize, "" for
// a stateless client.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

func (c *Client) settings(opts []Option) *settings {
	s := c.base
	for _, o := range opts {
		o(&s)
	}
	return &s
}

// Result is a tools/call result.
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// Content is one content block. Text is set for type "text"; Raw keeps the
// whole block for other types (image, audio, resource links).
type Content struct {
	Type string          `json:"type"`
	Text string          `json:"text,omitempty"`
	Raw  json.RawMessage `json:"-"`
}

func (c *Content) UnmarshalJSON(b []byte) error {
	var v struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.Type, c.Text, c.Raw = v.Type, v.Text, append(json.RawMessage(nil), b...)
	return nil
}

// Text joins the text content blocks with newlines.
func (r *Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Call calls tool with args (any JSON-encodable value; nil sends {}). On
// success it decodes structuredContent into out when out is non-nil, and
// returns the whole result. A tool refusal returns the result together with
// a [*ToolError]; protocol and transport failures return [*RPCError] and
// [*TransportError].
func (c *Client) Call(ctx context.Context, tool string, args, out any, opts ...CallOption) (*Result, error) {
	s := c.settings(opts)
	if args == nil {
		args = struct{}{}
	}
	call := callResult{out: out}
	if err := c.do(ctx, s, MethodToolsCall, toolCallParams{Arguments: args, Name: tool}, &call); err != nil {
		return nil, err
	}
	res := &call.res
	if res.IsError {
		te := &ToolError{Tool: tool, Text: res.Text(), Result: res}
		te.Code, te.Retryable = codeForTool(te.Text)
		return res, te
	}
	if out != nil {
		if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
			return res, fmt.Errorf("client: %s: %w", tool, ErrNoStructuredContent)
		}
		if call.decoded {
			return res, nil
		}
		if err := json.Unmarshal(res.StructuredContent, out); err != nil {
			return res, fmt.Errorf("client: %s: decoding structuredContent: %w", tool, err)
		}
	}
	return res, nil
}

// toolCallParams are a tools/call's params. Its members are in the order
// encoding/json writes a map's keys (sorted), so the request is byte for
// byte the one the map[string]any it replaced encoded to; the struct spares
// building, sorting and reflecting over that map on every call (7 of
// BenchmarkClientCallInMemory's 101 allocations).
type toolCallParams struct {
	Arguments any    `json:"arguments"`
	Name      string `json:"name"`
}

// callResult is the result of a [Client.Call], which it passes down
// instead of a *Result to say that the value is its own and still zero, so
// that an application/json reply may be decoded into it in the pass that
// reads the reply ([decodeCallReply]), and the caller's out with it:
// decoded then says that out holds the structured result already. Any
// other way of reading the result decodes it into res alone
// ([decodeResult]).
type callResult struct {
	res     Result
	out     any
	decoded bool
}

// Tool is one entry of tools/list. The schemas are kept as the server sent
// them, byte for byte.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// ListTools returns every tool, following nextCursor.
//
// From 2026-07-28 the listing also tells calls which arguments to mirror
// into Mcp-Param-* headers: a tool whose x-mcp-header marks are invalid is
// left out (and logged, see [WithLogger]), as the revision requires, so
// that one malformed tool does not keep the others from being used. The
// listing is reused while its ttlMs says it is fresh, and a "private" one
// only with the credentials that fetched it.
func (c *Client) ListTools(ctx context.Context, opts ...CallOption) ([]Tool, error) {
	s := c.settings(opts)
	v, err := c.revision(ctx, s)
	if err != nil {
		return nil, err
	}
	stateless := isStateless(v)
	if stateless {
		auth, err := c.authContext(ctx, s)
		if err != nil {
			return nil, err
		}
		if tools, ok := c.tools.cached(s.clock.Now(), auth); ok {
			return slices.Clone(tools), nil
		}
	}
	var tools []Tool
	var ttl time.Duration
	public := true
	cursor := ""
	for page := 0; ; page++ {
		if page == 100 {
			return nil, fmt.Errorf("client: tools/list: more than 100 pages")
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
			TTLMs      int64  `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		}
		if err := c.do(ctx, s, MethodToolsList, params, &res); err != nil {
			return nil, err
		}
		tools = append(tools, res.Tools...)
		// The listing is as fresh as its stalest page, and as private as
		// its most private one.
		if page == 0 || time.Duration(res.TTLMs)*time.Millisecond < ttl {
			ttl = time.Duration(res.TTLMs) * time.Millisecond
		}
		public = public && res.CacheScope == "public"
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if !stateless || c.ProtocolVersion() != v {
		return tools, nil
	}
	kept, bindings := tools[:0:0], map[string][]paramHeader{}
	for _, tl := range tools {
		b, err := paramHeadersOf(tl.InputSchema)
		if err != nil {
			s.logger.Warn("client: leaving out a tool whose x-mcp-header marks are invalid", "tool", tl.Name, "reason", err.Error())
			continue
		}
		kept, bindings[tl.Name] = append(kept, tl), b
	}
	c.tools.learn(kept, bindings)
	auth, err := c.authContext(ctx, s)
	if err != nil {
		return nil, err
	}
	c.tools.keep(&cachedTools{tools: kept, at: s.clock.Now(), ttl: ttl, public: public, auth: auth})
	return slices.Clone(kept), nil
}

// authContext names the credentials the client would send now (a digest
// of the token, "" without one), which a "private" cached answer must
// match: such an answer "MUST NOT" serve another authorization context.
func (c *Client) authContext(ctx context.Context, s *settings) (string, error) {
	if s.tokens == nil {
		return "", nil
	}
	t, err := s.tokens.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("client: getting an access token: %w", err)
	}
	if t == "" {
		return "", nil
	}
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:]), nil
}

// Do sends any JSON-RPC request and decodes its result into result (when
// non-nil), with the same headers, retries, refresh and handshake as Call.
func (c *Client) Do(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	return c.do(ctx, c.settings(opts), method, params, result)
}

// request is a JSON-RPC request; ID nil makes it a notification.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

// frame is any JSON-RPC message the server sends.
type frame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// do runs one JSON-RPC call in the revision the server and the client
// share: stateless ([Client.doStateless]) from 2026-07-28, with the
// handshake's session otherwise ([Client.doHandshake]). A server that
// refuses the revision and lists those it speaks is met in the newest of
// them, once per call.
func (c *Client) do(ctx context.Context, s *settings, method string, params, result any) error {
	for renegotiated := false; ; renegotiated = true {
		v, err := c.revision(ctx, s)
		if err != nil {
			return err
		}
		if isStateless(v) {
			err = c.doStateless(ctx, s, v, method, params, result)
		} else {
			err = c.doHandshake(ctx, s, method, params, result)
		}
		if err == nil || renegotiated || !c.renegotiate(v, err) {
			return err
		}
	}
}

// doHandshake runs one call of the handshake revisions (2025-11-25 and
// older): initialize when the settings or the server ask for a session,
// the session's GET stream while a tools/call may be asked for input.
func (c *Client) doHandshake(ctx context.Context, s *settings, method string, params, result any) error {
	if s.handshake == HandshakeAlways && method != MethodInitialize {
		if err := c.ensureSession(ctx, s, false); err != nil {
			return err
		}
	}
	id := c.newID()
	if s.progress != nil {
		params = withProgressToken(params, string(id))
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("client: %s: encoding params: %w", method, err)
	}
	defer c.listen(ctx, s, method)()
	rebuilt := false
	// A server that wants a session gets one, once per call, without
	// spending a retry attempt.
	again := func(err error) (bool, error) {
		if rebuilt || method == MethodInitialize || s.handshake == HandshakeNever || !c.wantsSession(err) {
			return false, nil
		}
		rebuilt = true
		return true, c.ensureSession(ctx, s, true)
	}
	var hdr http.Header
	if method == MethodInitialize {
		// initialize names the revision it offers, which requests carry
		// from then on.
		hdr = http.Header{"Mcp-Protocol-Version": {c.handshakeVersion(s)}}
	}
	into, _ := result.(*callResult)
	f, err := c.send(ctx, s, method, id, body, hdr, again, into)
	if err != nil {
		return err
	}
	return decodeResult(method, f.Result, result) // nothing to do when readReply decoded it (f.Result nil)
}

func (c *Client) newID() json.RawMessage {
	return strconv.AppendInt(nil, c.nextID.Add(1), 10)
}

// send posts body until the server answers it, retrying transient
// failures as the retry policy says. again, when not nil, is asked first
// about each failure: it may repair what the failure says (a session) and
// have body sent again without spending an attempt. A JSON-RPC error
// answer is returned as an [*RPCError]. into, when not nil, is a zero
// result the reply's may be decoded into directly ([decodeCallReply]).
func (c *Client) send(ctx context.Context, s *settings, method string, id json.RawMessage, body []byte, hdr http.Header, again func(error) (bool, error), into *callResult) (*frame, error) {
	for attempt := 1; ; attempt++ {
		f, err := c.exchange(ctx, s, method, id, body, hdr, into)
		if err == nil && f.Error != nil {
			f.Error.Method, f.Error.Name = method, codeForRPC(f.Error.Code)
			err = f.Error
		}
		if err == nil {
			return f, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("client: %s: %w (last failure: %w)", method, ctx.Err(), err)
		}
		if again != nil {
			retry, aerr := again(err)
			if aerr != nil {
				return nil, aerr
			}
			if retry {
				attempt--
				continue
			}
		}
		var tr *TransportError
		if !errors.As(err, &tr) || !tr.Temporary() || attempt >= s.retry.attempts() {
			return nil, err
		}
		wait, ok := s.retry.delay(attempt, tr.RetryAfter)
		if !ok {
			return nil, err
		}
		if serr := s.clock.Sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("client: %s: %w (last failure: %w)", method, serr, err)
		}
	}
}

// decodeResult decodes a JSON-RPC result into out (when non-nil); a
// [*callResult] gets it in its Result.
func decodeResult(method string, raw json.RawMessage, out any) error {
	if out == nil || len(raw) == 0 {
		return nil
	}
	if call, ok := out.(*callResult); ok {
		out = &call.res
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("client: %s: decoding result: %w", method, err)
	}
	return nil
}

// withProgressToken adds _meta.progressToken to params, which must encode
// as a JSON object.
func withProgressToken(params any, token string) any {
	m := map[string]any{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil || json.Unmarshal(b, &m) != nil {
			return params
		}
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = token
	m["_meta"] = meta
	return m
}

// wantsSession recognises a server that will not serve a call outside an
// initialized session: a 400 that names the session, a 404 for a session it
// forgot, or go-sdk's "invalid during session initialization" error.
func (c *Client) wantsSession(err error) bool {
	var tr *TransportError
	if errors.As(err, &tr) {
		switch tr.StatusCode {
		case 404:
			return c.SessionID() != ""
		case 400:
			return strings.Contains(strings.ToLower(tr.Body), "session")
		}
		return false
	}
	var re *RPCError
	if errors.As(err, &re) && re.Code != -32601 && re.Code != -32602 {
		return strings.Contains(strings.ToLower(re.Message), "initializ")
	}
	return false
}

// shared runs fn once for every caller that asks for key at the same
// time, on the context of the caller that started it. A caller waiting on
// it stops when its own context ends, and when fn failed only because its
// starter gave up, runs it again for itself rather than return someone
// else's cancellation.
func (c *Client) shared(ctx context.Context, key string, fn func() error) error {
	for try := 0; ; try++ {
		select {
		case r := <-c.group.DoChan(key, func() (any, error) { return nil, fn() }):
			if try == 0 && r.Err != nil && ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				continue // the starter's context ended, not ours
			}
			return r.Err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ensureSession runs initialize and notifications/initialized unless done
// already (or, with again, even if done: the server forgot the session).
// Concurrent callers share one handshake ([Client.shared]).
func (c *Client) ensureSession(ctx context.Context, s *settings, again bool) error {
	c.mu.Lock()
	done, stale := c.initialized, c.sessionID
	c.mu.Unlock()
	if done && !again {
		return nil
	}
	return c.shared(ctx, "initialize:"+stale, func() error { return c.handshake(ctx, s, stale) })
}

// handshake is one initialize exchange, unless another caller already
// replaced the session stale.
func (c *Client) handshake(ctx context.Context, s *settings, stale string) error {
	c.mu.Lock()
	if c.initialized && c.sessionID != stale {
		c.mu.Unlock()
		return nil // another caller already rebuilt it
	}
	c.sessionID, c.initialized = "", false
	c.mu.Unlock()

	hs := *s
	hs.progress = nil
	params := map[string]any{
		"protocolVersion": c.handshakeVersion(s),
		"capabilities":    s.capabilities(),
		"clientInfo":      map[string]any{"name": s.clientName, "version": s.clientVersion},
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := c.doHandshake(ctx, &hs, MethodInitialize, params, &res); err != nil {
		return err
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		return fmt.Errorf("client: initialize: the server chose revision %q, which the client does not speak (%s)", res.ProtocolVersion, strings.Join(supportedVersions, ", "))
	}
	c.mu.Lock()
	c.version = res.ProtocolVersion
	c.mu.Unlock()
	body, _ := json.Marshal(request{JSONRPC: "2.0", Method: MethodInitialized})
	if _, err := c.exchange(ctx, &hs, MethodInitialized, nil, body, nil, nil); err != nil {
		return err
	}
	c.mu.Lock()
	c.initialized = true
	c.mu.Unlock()
	return nil
}

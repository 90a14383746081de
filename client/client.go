package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"
)

// DefaultProtocolVersion is the MCP revision the specification documents.
const DefaultProtocolVersion = "2025-06-18"

// JSON-RPC methods the client sends.
const (
	MethodInitialize  = "initialize"
	MethodInitialized = "notifications/initialized"
	MethodToolsCall   = "tools/call"
	MethodToolsList   = "tools/list"
	MethodProgress    = "notifications/progress"
)

var errNoRefresh = errors.New("client: the token source cannot refresh a fixed token")

// Client calls the tools of one MCP endpoint over Streamable HTTP. It is safe
// for concurrent use.
type Client struct {
	endpoint string
	base     settings

	nextID atomic.Int64
	group  singleflight.Group // one initialize at a time

	mu              sync.Mutex
	sessionID       string
	initialized     bool
	protocolVersion string // negotiated; "" before initialize
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
	params := map[string]any{"name": tool, "arguments": args}
	var res Result
	if err := c.do(ctx, s, MethodToolsCall, params, &res); err != nil {
		return nil, err
	}
	if res.IsError {
		te := &ToolError{Tool: tool, Text: res.Text(), Result: &res}
		te.Code, te.Retryable = codeForTool(te.Text)
		return &res, te
	}
	if out != nil {
		if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
			return &res, fmt.Errorf("client: %s: %w", tool, ErrNoStructuredContent)
		}
		if err := json.Unmarshal(res.StructuredContent, out); err != nil {
			return &res, fmt.Errorf("client: %s: decoding structuredContent: %w", tool, err)
		}
	}
	return &res, nil
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
func (c *Client) ListTools(ctx context.Context, opts ...CallOption) ([]Tool, error) {
	s := c.settings(opts)
	var tools []Tool
	cursor := ""
	for range 100 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := c.do(ctx, s, MethodToolsList, params, &page); err != nil {
			return nil, err
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("client: tools/list: more than 100 pages")
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

// do runs one JSON-RPC call with retries, the handshake and decoding.
func (c *Client) do(ctx context.Context, s *settings, method string, params, result any) error {
	if s.handshake == HandshakeAlways && method != MethodInitialize {
		if err := c.ensureSession(ctx, s, false); err != nil {
			return err
		}
	}
	id := json.RawMessage(strconv.AppendInt(nil, c.nextID.Add(1), 10))
	if s.progress != nil {
		params = withProgressToken(params, string(id))
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("client: %s: encoding params: %w", method, err)
	}
	rebuilt := false
	defer c.listen(ctx, s, method)()
	for attempt := 1; ; attempt++ {
		f, err := c.exchange(ctx, s, method, id, body)
		if err == nil && f.Error != nil {
			f.Error.Method, f.Error.Name = method, codeForRPC(f.Error.Code)
			err = f.Error
		}
		if err == nil {
			if result != nil && len(f.Result) > 0 {
				if uerr := json.Unmarshal(f.Result, result); uerr != nil {
					return fmt.Errorf("client: %s: decoding result: %w", method, uerr)
				}
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("client: %s: %w (last failure: %w)", method, ctx.Err(), err)
		}
		// A server that wants a session gets one, once per call, without
		// spending a retry attempt.
		if !rebuilt && method != MethodInitialize && s.handshake != HandshakeNever && c.wantsSession(err) {
			rebuilt = true
			if herr := c.ensureSession(ctx, s, true); herr != nil {
				return herr
			}
			attempt--
			continue
		}
		var tr *TransportError
		if !errors.As(err, &tr) || !tr.Temporary() || attempt >= s.retry.attempts() {
			return err
		}
		wait, ok := s.retry.delay(attempt, tr.RetryAfter)
		if !ok {
			return err
		}
		if serr := s.clock.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("client: %s: %w (last failure: %w)", method, serr, err)
		}
	}
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

// ensureSession runs initialize and notifications/initialized unless done
// already (or, with again, even if done: the server forgot the session).
// Concurrent callers share one handshake, run on the context of the caller
// that started it. A caller waiting on it stops when its own context ends,
// and when the handshake failed only because its starter gave up, runs it
// again for itself rather than return someone else's cancellation.
func (c *Client) ensureSession(ctx context.Context, s *settings, again bool) error {
	c.mu.Lock()
	done, stale := c.initialized, c.sessionID
	c.mu.Unlock()
	if done && !again {
		return nil
	}
	for try := 0; ; try++ {
		select {
		case r := <-c.group.DoChan("initialize:"+stale, func() (any, error) { return nil, c.handshake(ctx, s, stale) }):
			if try == 0 && r.Err != nil && ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				continue // the starter's context ended, not ours
			}
			return r.Err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// handshake is one initialize exchange, unless another caller already
// replaced the session stale.
func (c *Client) handshake(ctx context.Context, s *settings, stale string) error {
	c.mu.Lock()
	if c.initialized && c.sessionID != stale {
		c.mu.Unlock()
		return nil // another caller already rebuilt it
	}
	c.sessionID, c.initialized, c.protocolVersion = "", false, ""
	c.mu.Unlock()

	hs := *s
	hs.progress = nil
	params := map[string]any{
		"protocolVersion": s.protocolVersion,
		"capabilities":    s.capabilities(),
		"clientInfo":      map[string]any{"name": s.clientName, "version": s.clientVersion},
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := c.do(ctx, &hs, MethodInitialize, params, &res); err != nil {
		return err
	}
	c.mu.Lock()
	c.protocolVersion = res.ProtocolVersion
	c.mu.Unlock()
	body, _ := json.Marshal(request{JSONRPC: "2.0", Method: MethodInitialized})
	if _, err := c.exchange(ctx, &hs, MethodInitialized, nil, body); err != nil {
		return err
	}
	c.mu.Lock()
	c.initialized = true
	c.mu.Unlock()
	return nil
}

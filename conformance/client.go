package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// ProtocolVersion is the MCP revision the contracts describe.
const ProtocolVersion = "2025-06-18"

// AcceptBoth is the Accept value every Streamable HTTP call must send.
const AcceptBoth = "application/json, text/event-stream"

// Client sends raw JSON-RPC messages to an MCP endpoint and keeps the whole
// HTTP exchange, so that specs can check status, headers and bytes exactly.
// It is written by hand rather than taken from an MCP SDK on purpose: an SDK
// would hide (or repair) precisely what the suite must see.
type Client struct {
	Endpoint string
	HTTP     *http.Client
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
	// SessionID, when set, is sent as Mcp-Session-Id.
	SessionID string
}

// NewClient returns a Client for endpoint whose exchanges time out after timeout.
func NewClient(endpoint, token string, timeout time.Duration) *Client {
	return &Client{
		Endpoint: endpoint,
		Token:    token,
		HTTP: &http.Client{
			Timeout: timeout,
			// A redirect is an answer in its own right; never follow it.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Exchange is one HTTP request and its complete response.
type Exchange struct {
	RequestBody []byte
	Status      int
	Header      http.Header
	Body        []byte
	// MediaType is the response Content-Type without parameters.
	MediaType string
	// Events are the parsed SSE events when MediaType is text/event-stream.
	Events []Event
	// SSEError is the framing error of an SSE body, if any.
	SSEError error
	// Messages are the JSON-RPC messages of the reply: the body itself for
	// application/json, the data of every event for text/event-stream.
	Messages []Message
	// DecodeError says why the body (or an event's data) is not a JSON-RPC message.
	DecodeError error
}

// Message is a JSON-RPC 2.0 message as it arrived. Raw keeps the exact JSON.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IsResponse says whether m answers a request (it has a result or an error).
func (m Message) IsResponse() bool { return m.Result != nil || m.Error != nil }

// Header overrides for [Client.Post]. A key mapped to "" removes the default.
type Header map[string]string

// Post sends body (already encoded) with the default headers (Content-Type,
// Accept with both media types, MCP-Protocol-Version, Authorization and
// Mcp-Session-Id when set) overridden by hdr, and reads the whole reply.
func (c *Client) Post(ctx context.Context, body []byte, hdr Header) (*Exchange, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", AcceptBoth)
	req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.SessionID != "" {
		req.Header.Set("Mcp-Session-Id", c.SessionID)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return c.do(req, body)
}

func (c *Client) do(req *http.Request, body []byte) (*Exchange, error) {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the reply: %w", req.Method, req.URL, err)
	}
	ex := &Exchange{RequestBody: body, Status: resp.StatusCode, Header: resp.Header, Body: raw}
	ex.MediaType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ex.MediaType {
	case "text/event-stream":
		ex.Events, ex.SSEError = ParseSSE(raw)
		for i, e := range ex.Events {
			m, err := DecodeMessage([]byte(e.Data))
			if err != nil {
				ex.DecodeError = fmt.Errorf("event %d: %w", i, err)
				continue
			}
			ex.Messages = append(ex.Messages, m)
		}
	case "application/json":
		m, err := DecodeMessage(raw)
		if err != nil {
			ex.DecodeError = err
		} else {
			ex.Messages = []Message{m}
		}
	}
	return ex, nil
}

// Get fetches url with the client's headers (no Accept override) and reads the reply.
func (c *Client) Get(ctx context.Context, url string) (*Exchange, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return c.do(req, nil)
}

// Call sends one JSON-RPC request and returns the exchange.
func (c *Client) Call(ctx context.Context, id any, method string, params any, hdr Header) (*Exchange, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		msg["id"] = id
	}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return c.Post(ctx, b, hdr)
}

// CallTool sends tools/call for name with args (and _meta when meta is non-nil).
func (c *Client) CallTool(ctx context.Context, id any, name string, args any, meta map[string]any) (*Exchange, error) {
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	return c.Call(ctx, id, "tools/call", params, nil)
}

// DecodeMessage parses one JSON-RPC message, keeping its exact bytes.
func DecodeMessage(b []byte) (Message, error) {
	var m Message
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("not a JSON object: %w (body %q)", err, truncate(string(b), 200))
	}
	if dec.More() {
		return m, fmt.Errorf("trailing data after the JSON-RPC message (body %q)", truncate(string(b), 200))
	}
	m.Raw = append(json.RawMessage(nil), bytes.TrimSpace(b)...)
	return m, nil
}

// Response returns the reply's response message (the one with a result or an
// error) whose id equals id, its index among Messages, and whether it exists.
func (ex *Exchange) Response(id json.RawMessage) (Message, int, bool) {
	for i, m := range ex.Messages {
		if m.IsResponse() && SameJSON(m.ID, id) {
			return m, i, true
		}
	}
	return Message{}, -1, false
}

// Only returns the single response message of the reply, or an error saying
// what the reply was instead.
func (ex *Exchange) Only() (Message, error) {
	if ex.DecodeError != nil {
		return Message{}, fmt.Errorf("HTTP %d %s: %w", ex.Status, ex.MediaType, ex.DecodeError)
	}
	var resp []Message
	for _, m := range ex.Messages {
		if m.IsResponse() {
			resp = append(resp, m)
		}
	}
	if len(resp) != 1 {
		return Message{}, fmt.Errorf("HTTP %d %s: want exactly one JSON-RPC response, got %d in %q",
			ex.Status, ex.MediaType, len(resp), truncate(string(ex.Body), 400))
	}
	return resp[0], nil
}

// String summarises the exchange for failure messages.
func (ex *Exchange) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "request: %s\nresponse: HTTP %d, Content-Type %q\n", truncate(string(ex.RequestBody), 600), ex.Status, ex.Header.Get("Content-Type"))
	if w := ex.Header.Get("WWW-Authenticate"); w != "" {
		fmt.Fprintf(&b, "WWW-Authenticate: %s\n", w)
	}
	fmt.Fprintf(&b, "body: %s", truncate(string(ex.Body), 1500))
	return b.String()
}

// SameJSON says whether a and b encode the same JSON value.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

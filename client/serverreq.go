package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/tridenttaxis/trident-mcp/client/sse"
)

// Requests a server may send the client inside a reply stream.
const (
	MethodPing   = "ping"
	MethodElicit = "elicitation/create"
)

// ElicitRequest is the params of elicitation/create: the server asks the
// user for input in the middle of a call.
type ElicitRequest struct {
	Message string `json:"message"`
	// RequestedSchema is the flat object schema of the wanted input, as
	// the server sent it.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
}

// Defaults returns the default value of each property of the requested
// schema that has one: what a form shows pre-filled, and what an accept
// with untouched fields sends (SEP-1034). Nil when no property has one.
func (r *ElicitRequest) Defaults() map[string]any {
	var schema struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(r.RequestedSchema, &schema) != nil {
		return nil
	}
	var out map[string]any
	for name, p := range schema.Properties {
		var v any
		if len(p.Default) == 0 || json.Unmarshal(p.Default, &v) != nil {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[name] = v
	}
	return out
}

// ElicitResult answers an [ElicitRequest]: Action is "accept" (with
// Content), "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ElicitationHandler asks the user what an [ElicitRequest] wants. An error
// is sent to the server as a JSON-RPC internal error.
type ElicitationHandler func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)

// WithElicitation declares the elicitation capability in initialize and
// answers the server's elicitation/create requests with h. Default: none;
// such requests are answered "method not found".
func WithElicitation(h ElicitationHandler) Option { return func(s *settings) { s.elicit = h } }

// answer replies to a request the server sent inside a reply stream, by a
// POST as the Streamable HTTP transport says. A server request left
// unanswered would stall the call the stream belongs to, so every request
// gets a reply: ping a result, elicitation/create the handler's, anything
// else -32601.
func (c *Client) answer(ctx context.Context, s *settings, f *frame, token string) error {
	reply := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *RPCError       `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: f.ID}
	switch {
	case f.Method == MethodPing:
		reply.Result = struct{}{}
	case f.Method == MethodElicit && s.elicit != nil:
		res, rerr := elicit(ctx, s, f.Params)
		if rerr != nil {
			reply.Error = rerr
			break
		}
		reply.Result = res
	default:
		reply.Error = &RPCError{Code: -32601, Message: "Method not found: the client does not handle " + f.Method}
	}
	body, err := json.Marshal(reply)
	if err != nil {
		return fmt.Errorf("client: answering %s: %w", f.Method, err)
	}
	resp, err := c.post(ctx, s, body, token, nil)
	if err != nil {
		return &TransportError{Method: f.Method, Err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.statusError(s, f.Method, resp)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return nil
}

// elicit asks the [WithElicitation] handler what an elicitation/create
// with params wants; the error is what a JSON-RPC reply would carry.
func elicit(ctx context.Context, s *settings, params json.RawMessage) (*ElicitResult, *RPCError) {
	var req ElicitRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, &RPCError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	res, err := s.elicit(ctx, &req)
	if err != nil {
		return nil, &RPCError{Code: -32603, Message: err.Error()}
	}
	return res, nil
}

// capabilities is what initialize declares.
func (s *settings) capabilities() map[string]any {
	caps := map[string]any{}
	if s.elicit != nil {
		caps["elicitation"] = map[string]any{}
	}
	return caps
}

// Opening the session's GET stream: how often a 409 is retried, and how long
// to wait between tries.
const (
	listenAttempts   = 5
	listenRetryDelay = 100 * time.Millisecond
)

// listen opens the session's GET stream for the length of one tools/call
// when the client handles server requests: a server may send a request on that
// stream instead of the call's reply stream (the TypeScript SDK's server
// does so for an elicitation/create that a tool issues), and drops it when
// no GET stream is open. Listening only during calls keeps the stream's
// life tied to the caller's context; a server without GET streams (405) or
// with one already open (409) is left alone. The returned func stops
// listening and waits for the reader to finish.
func (c *Client) listen(ctx context.Context, s *settings, method string) (stop func()) {
	if s.elicit == nil || method != MethodToolsCall || c.SessionID() == "" {
		return func() {}
	}
	token := ""
	if s.tokens != nil {
		t, err := s.tokens.Token(ctx)
		if err != nil {
			return func() {}
		}
		token = t
	}
	lctx, cancel := context.WithCancel(ctx)
	var resp *http.Response
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(lctx, http.MethodGet, c.endpoint, nil)
		if err != nil {
			return cancel
		}
		c.setHeaders(req, s, token)
		req.Header.Set("Accept", "text/event-stream")
		if resp, err = s.httpClient.Do(req); err != nil {
			return cancel
		}
		// 409: the server has not yet seen the previous call's stream
		// close; it lets one GET stream per session live at a time.
		if resp.StatusCode != http.StatusConflict || attempt == listenAttempts {
			break
		}
		resp.Body.Close()
		if s.clock.Sleep(lctx, listenRetryDelay) != nil {
			return cancel
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		resp.Body.Close()
		return cancel
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		d := sse.NewDecoder(resp.Body, s.maxEventSize)
		for {
			ev, err := d.Next()
			if err != nil {
				return
			}
			var f frame
			if ev.Type != "message" || json.Unmarshal([]byte(ev.Data), &f) != nil || f.Method == "" || len(f.ID) == 0 {
				continue
			}
			c.answer(lctx, s, &f, token) // a failed answer surfaces as the call's own failure
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

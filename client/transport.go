package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/tridenttaxis/trident-mcp/client/sse"
)

// acceptBoth is what MCP Streamable HTTP requires on every POST; without
// either type the server answers 406.
const acceptBoth = "application/json, text/event-stream"

// exchange sends body once (twice after a 401 with a refreshable token) and
// reads the reply. id is nil for a notification, which expects 202 and no
// body. A nil frame with a nil error means the notification was accepted.
func (c *Client) exchange(ctx context.Context, s *settings, method string, id json.RawMessage, body []byte) (*frame, error) {
	token := ""
	if s.tokens != nil {
		t, err := s.tokens.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("client: %s: getting an access token: %w", method, err)
		}
		token = t
	}
	resp, err := c.post(ctx, s, body, token)
	if err != nil {
		return nil, &TransportError{Method: method, Err: err}
	}
	if resp.StatusCode == http.StatusUnauthorized && s.tokens != nil {
		first := c.statusError(s, method, resp)
		fresh, rerr := s.tokens.Refresh(ctx, token)
		switch {
		case errors.Is(rerr, errNoRefresh):
			return nil, first
		case rerr != nil:
			return nil, fmt.Errorf("client: %s: refreshing after %w: %w", method, first, rerr)
		case fresh == token:
			// Never resend the token the server just refused.
			return nil, fmt.Errorf("client: %s: token source returned the rejected token again: %w", method, first)
		}
		resp, err = c.post(ctx, s, body, fresh)
		if err != nil {
			return nil, &TransportError{Method: method, Err: err}
		}
	}
	return c.readReply(s, method, id, resp)
}

func (c *Client) post(ctx context.Context, s *settings, body []byte, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range s.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	c.mu.Lock()
	version, session := c.protocolVersion, c.sessionID
	c.mu.Unlock()
	if version == "" {
		version = s.protocolVersion
	}
	req.Header.Set("MCP-Protocol-Version", version)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return s.httpClient.Do(req)
}

// statusError builds the TransportError for a non-2xx reply and closes the
// body, keeping a bounded snippet of it.
func (c *Client) statusError(s *settings, method string, resp *http.Response) *TransportError {
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	e := &TransportError{
		Method:           method,
		StatusCode:       resp.StatusCode,
		RetryAfter:       parseRetryAfter(resp.Header, s.clock.Now()),
		Header:           resp.Header,
		ResourceMetadata: resourceMetadataOf(resp.Header),
	}
	snippet := raw
	if len(snippet) > MaxErrorBodySnippet {
		snippet = snippet[:MaxErrorBodySnippet]
	}
	e.Body = string(snippet)
	var f frame
	if json.Unmarshal(raw, &f) == nil && f.Error != nil {
		f.Error.Method, f.Error.Name = method, codeForRPC(f.Error.Code)
		e.RPC = f.Error
	}
	rpcCode, msg := 0, e.Body
	if e.RPC != nil {
		rpcCode, msg = e.RPC.Code, e.RPC.Message
	}
	e.Code = codeForHTTP(resp.StatusCode, rpcCode, msg)
	return e
}

// readReply turns a response into the frame answering id.
func (c *Client) readReply(s *settings, method string, id json.RawMessage, resp *http.Response) (*frame, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.statusError(s, method, resp)
	}
	defer resp.Body.Close()
	if method == MethodInitialize {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			c.mu.Lock()
			c.sessionID = sid
			c.mu.Unlock()
		}
	}
	if id == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, nil // notification: 202 Accepted, nothing to read
	}
	fail := func(err error) *TransportError {
		return &TransportError{Method: method, StatusCode: resp.StatusCode, Header: resp.Header, Err: err}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		raw, err := io.ReadAll(io.LimitReader(resp.Body, s.maxBody+1))
		if err != nil {
			return nil, fail(fmt.Errorf("%w: %w", ErrStreamEnded, err))
		}
		if int64(len(raw)) > s.maxBody {
			return nil, fail(fmt.Errorf("reply larger than %d bytes", s.maxBody))
		}
		var f frame
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fail(fmt.Errorf("decoding reply: %w", err))
		}
		if !sameID(f.ID, id) {
			return nil, fail(fmt.Errorf("reply id %s does not answer request id %s", f.ID, id))
		}
		return &f, nil
	case "text/event-stream":
		f, err := c.readStream(s, id, resp.Body)
		if err != nil {
			return nil, fail(err)
		}
		return f, nil
	default:
		return nil, fail(fmt.Errorf("unexpected Content-Type %q", resp.Header.Get("Content-Type")))
	}
}

// readStream reads SSE frames until the response to id: progress goes to the
// callback, other messages (notifications, server requests, replies to
// other ids) are skipped, as the seed's assembler does.
func (c *Client) readStream(s *settings, id json.RawMessage, body io.Reader) (*frame, error) {
	d := sse.NewDecoder(body, s.maxEventSize)
	for {
		ev, err := d.Next()
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				return nil, err
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, ErrStreamEnded
			}
			return nil, fmt.Errorf("%w: %w", ErrStreamEnded, err)
		}
		if ev.Type != "message" || ev.Data == "" {
			continue
		}
		var f frame
		if json.Unmarshal([]byte(ev.Data), &f) != nil {
			continue // a malformed event is skipped, like the seed does
		}
		if f.Method == MethodProgress {
			if s.progress != nil {
				var p Progress
				if json.Unmarshal(f.Params, &p) == nil && progressFor(p.Token, id) {
					s.progress(p)
				}
			}
			continue
		}
		if f.Method == "" && sameID(f.ID, id) && (f.Result != nil || f.Error != nil) {
			return &f, nil
		}
	}
}

// sameID compares JSON-RPC ids as JSON values (the client sends integers).
func sameID(got, want json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(got), want)
}

// progressFor matches a progressToken (the client uses the request id,
// sent as a string) against id.
func progressFor(token any, id json.RawMessage) bool {
	switch t := token.(type) {
	case string:
		return t == string(id)
	case float64:
		return fmt.Sprint(int64(t)) == string(id)
	}
	return false
}

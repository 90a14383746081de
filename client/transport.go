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
	"time"

	"github.com/tridenttaxis/trident-mcp/client/sse"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/internal/sizedread"
)

// acceptBoth is what MCP Streamable HTTP requires on every POST; without
// either type the server answers 406.
const acceptBoth = "application/json, text/event-stream"

// exchange sends body once (twice after a 401 with a refreshable token, up
// to three times with an [Authorizer]) and reads the reply. id is nil for a
// notification, which expects 202 and no body. A nil frame with a nil error
// means the notification was accepted.
func (c *Client) exchange(ctx context.Context, s *settings, method string, id json.RawMessage, body []byte, hdr http.Header, into *callResult) (*frame, error) {
	token := ""
	if s.tokens != nil {
		t, err := s.tokens.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("client: %s: getting an access token: %w", method, err)
		}
		token = t
	}
	resp, err := c.post(ctx, s, body, token, hdr)
	if err != nil {
		return nil, &TransportError{Method: method, Err: err}
	}
	if az, ok := s.tokens.(Authorizer); ok {
		for round := 0; round < maxChallenges; round++ {
			ch := challengeOf(resp, token)
			if ch == nil {
				break
			}
			first := c.statusError(s, method, resp)
			fresh, aerr := az.Authorize(ctx, ch)
			switch {
			case aerr != nil:
				return nil, fmt.Errorf("client: %s: authorizing after %w: %w", method, first, aerr)
			case fresh == "" || fresh == token:
				return nil, fmt.Errorf("client: %s: authorizer returned no new token: %w", method, first)
			}
			token = fresh
			if resp, err = c.post(ctx, s, body, token, hdr); err != nil {
				return nil, &TransportError{Method: method, Err: err}
			}
		}
	} else if resp.StatusCode == http.StatusUnauthorized && s.tokens != nil {
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
		token = fresh
		resp, err = c.post(ctx, s, body, token, hdr)
		if err != nil {
			return nil, &TransportError{Method: method, Err: err}
		}
	}
	return c.readReply(ctx, s, method, id, resp, token, into)
}

// post sends body with the headers every request carries and hdr, this
// request's own (which win).
func (c *Client) post(ctx context.Context, s *settings, body []byte, token string, hdr http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	c.setHeaders(req, s, token)
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	// Canonical keys assigned directly: Header.Set allocates a slice for
	// each value (2 of BenchmarkClientCallInMemory's allocations).
	req.Header["Content-Type"], req.Header["Accept"] = contentTypeJSON, acceptBothHeader
	return s.httpClient.Do(req)
}

// The values every POST carries, shared by every request: their capacity
// is their length, so an Add to either appends to a copy, never to these.
var (
	contentTypeJSON  = []string{"application/json"}[:1:1]
	acceptBothHeader = []string{acceptBoth}[:1:1]
)

// setHeaders sets what every request to the endpoint carries: the caller's
// extra headers, MCP-Protocol-Version, the session and the bearer token.
func (c *Client) setHeaders(req *http.Request, s *settings, token string) {
	for k, vs := range s.header {
		req.Header[k] = vs
	}
	c.mu.Lock()
	version, session := c.version, c.sessionID
	c.mu.Unlock()
	if version == "" {
		version = s.protocolVersion
	}
	req.Header["Mcp-Protocol-Version"] = []string{version} // canonical: Set would rewrite "MCP-…" into a new string on every request
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
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
	if ch := challengeOf(resp, ""); ch != nil && ch.InsufficientScope() {
		// The catalogue's INSUFFICIENT_SCOPE whatever the body says: the
		// challenge, not the body, is RFC 6750's signal (and never
		// FORBIDDEN_ORIGIN, the other 403).
		e.Code, e.Scopes = errcodes.InsufficientScope, ch.Scopes
	}
	return e
}

// readReply turns a response into the frame answering id. token is the
// bearer token the request carried, reused to resume a stream. into, when
// not nil, is a zero result that an application/json reply's result is
// decoded into ([decodeCallReply]), leaving the frame's Result nil.
func (c *Client) readReply(ctx context.Context, s *settings, method string, id json.RawMessage, resp *http.Response, token string, into *callResult) (*frame, error) {
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
		stated := resp.ContentLength // a hint, read into one buffer when within the limit
		if stated > s.maxBody {
			stated = -1
		}
		raw, err := sizedread.ReadAll(io.LimitReader(resp.Body, s.maxBody+1), stated)
		if err != nil {
			return nil, fail(fmt.Errorf("%w: %w", ErrStreamEnded, err))
		}
		if int64(len(raw)) > s.maxBody {
			return nil, fail(fmt.Errorf("reply larger than %d bytes", s.maxBody))
		}
		if into != nil {
			if f, ok := decodeCallReply(raw, id, into); ok {
				return f, nil
			}
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
		f, err := c.readResumable(ctx, s, id, resp.Body, token)
		if err != nil {
			return nil, fail(err)
		}
		return f, nil
	default:
		return nil, fail(fmt.Errorf("unexpected Content-Type %q", resp.Header.Get("Content-Type")))
	}
}

// DefaultResumeDelay is how long the client waits before resuming a cut
// event stream whose server sent no retry field.
const DefaultResumeDelay = time.Second

// maxResumes bounds the GET resumptions of one reply.
const maxResumes = 3

// readResumable reads the reply stream and, when it ends before the
// response and had event ids, resumes it as the Streamable HTTP transport
// says (MCP 2025-11-25, "Resumability and Redelivery"; SEP-1699): after the
// stream's retry time, a GET with Last-Event-ID. A server that cannot
// resume (no ids, or the GET refused) leaves ErrStreamEnded to the retry
// policy, which sends the request again.
func (c *Client) readResumable(ctx context.Context, s *settings, id json.RawMessage, body io.Reader, token string) (*frame, error) {
	d := sse.NewDecoder(body, s.maxEventSize)
	f, err := c.readStream(ctx, s, id, d, token)
	lastID, wait := d.LastEventID(), DefaultResumeDelay
	if r, ok := d.Retry(); ok {
		wait = r
	}
	for n := 0; errors.Is(err, ErrStreamEnded) && lastID != "" && n < maxResumes; n++ {
		if serr := s.clock.Sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("%w (resuming: %w)", err, serr)
		}
		resp, gerr := c.resume(ctx, s, token, lastID)
		if gerr != nil {
			return nil, fmt.Errorf("%w (resuming after event %q: %w)", err, lastID, gerr)
		}
		d = sse.NewDecoder(resp.Body, s.maxEventSize)
		f, err = c.readStream(ctx, s, id, d, token)
		resp.Body.Close()
		if d.LastEventID() != "" {
			lastID = d.LastEventID()
		}
		if r, ok := d.Retry(); ok {
			wait = r
		}
	}
	return f, err
}

// resume opens the GET stream that continues a cut reply after lastID.
func (c *Client) resume(ctx context.Context, s *settings, token, lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint, nil)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req, s, token)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := s.httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("GET answered HTTP %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp, nil
}

// readStream reads SSE frames until the response to id: progress goes to the
// callback, server requests are answered ([Client.answer]), other messages
// (notifications, replies to other ids) are skipped, as the specification's
// assembler does.
func (c *Client) readStream(ctx context.Context, s *settings, id json.RawMessage, d *sse.Decoder, token string) (*frame, error) {
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
			continue // a malformed event is skipped, as the specification's client does
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
		if f.Method != "" && len(f.ID) > 0 {
			if err := c.answer(ctx, s, &f, token); err != nil {
				return nil, err
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

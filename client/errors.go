package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ErrStreamEnded is wrapped by a [TransportError] when an event stream closed
// before the response frame with the request's id arrived. The specification treats it
// as transient, and so does the retry loop.
var ErrStreamEnded = errors.New("event stream ended before the final response")

// ErrNoStructuredContent is returned when a tool result carries no
// structuredContent but the caller asked for it to be decoded.
var ErrNoStructuredContent = errors.New("tool result has no structuredContent")

// TransportError is a failure below JSON-RPC: a non-2xx HTTP status, a
// network error (StatusCode 0), an event stream that ended early, or a reply
// the client cannot read.
type TransportError struct {
	// Method is the JSON-RPC method of the request, e.g. "tools/call".
	Method string
	// StatusCode is the HTTP status, or 0 when no response arrived.
	StatusCode int
	// RetryAfter is the wait the server asked for in Retry-After (seconds or
	// an HTTP date, resolved against the client's clock), 0 if none.
	RetryAfter time.Duration
	// Body is the start of the response body, at most [MaxErrorBodySnippet]
	// bytes, for logs and messages.
	Body string
	// RPC is the JSON-RPC error object in the body, if the body was one (the
	// OAuth 401 carries code -32001).
	RPC *RPCError
	// ResourceMetadata is the resource_metadata URL of a Bearer challenge in
	// WWW-Authenticate: where OAuth discovery starts (RFC 9728).
	ResourceMetadata string
	// Header holds the response headers, nil when no response arrived.
	Header http.Header
	// Scopes are the scopes a 403 insufficient_scope challenge asks for
	// (Code INSUFFICIENT_SCOPE): authorize again with them. Nil otherwise.
	Scopes []string
	// Code is the catalogue name, e.g. UNAUTHORIZED for 401, "" when the
	// catalogue has no row for this failure.
	Code Code
	// Err is the underlying cause: a network error, [ErrStreamEnded], a
	// decoding error; nil for a plain HTTP status.
	Err error
}

// MaxErrorBodySnippet bounds [TransportError.Body].
const MaxErrorBodySnippet = 512

func (e *TransportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp %s: ", e.Method)
	switch {
	case e.StatusCode == 0:
		b.WriteString("transport failed")
	case e.StatusCode >= 300:
		fmt.Fprintf(&b, "HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	default:
		fmt.Fprintf(&b, "HTTP %d reply unreadable", e.StatusCode)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " [%s]", e.Code)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.RPC != nil {
		fmt.Fprintf(&b, ": %d %s", e.RPC.Code, e.RPC.Message)
	} else if e.Body != "" {
		fmt.Fprintf(&b, ": %s", strings.TrimSpace(e.Body))
	}
	return b.String()
}

func (e *TransportError) Unwrap() error { return e.Err }

// Temporary reports whether the specification's retry policy retries this failure:
// 408, 425, 429, 500, 502, 503, 504, network errors and a stream that ended
// early.
func (e *TransportError) Temporary() bool {
	switch e.StatusCode {
	case 0:
		return e.Err != nil
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return errors.Is(e.Err, ErrStreamEnded)
}

// RPCError is a JSON-RPC error object in the response: the request never
// reached a tool (unknown tool -32601, invalid arguments -32602, ...).
type RPCError struct {
	Method  string          `json:"-"`
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Name is the catalogue name, e.g. INVALID_ARGUMENTS for -32602.
	Name Code `json:"-"`
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("mcp %s: JSON-RPC error %d: %s", e.Method, e.Code, e.Message)
	if e.Name != "" {
		s += " [" + string(e.Name) + "]"
	}
	return s
}

// ToolError is a tool refusal: the call succeeded, the tool answered with
// isError: true. The input is wrong (or, for ROUTING_UNAVAILABLE, an upstream
// is down); the client never retries it.
type ToolError struct {
	Tool string
	// Text is the text content of the result, joined with newlines.
	Text string
	// Result is the whole tool result.
	Result *Result
	// Code is the catalogue name recognised from the text signal, e.g.
	// CAPACITY_EXCEEDED, "" when no signal matched.
	Code Code
	// Retryable is the catalogue's word on whether the same call may succeed
	// later (true only for ROUTING_UNAVAILABLE). The client itself never
	// retries a tool error; this is for the caller to decide.
	Retryable bool
}

func (e *ToolError) Error() string {
	s := fmt.Sprintf("mcp tool %s refused: %s", e.Tool, e.Text)
	if e.Code != "" {
		s += " [" + string(e.Code) + "]"
	}
	return s
}

// CodeOf returns the catalogue name carried by err (a [TransportError],
// [RPCError] or [ToolError] anywhere in its chain), or "".
func CodeOf(err error) Code {
	var te *ToolError
	if errors.As(err, &te) {
		return te.Code
	}
	var re *RPCError
	if errors.As(err, &re) {
		return re.Name
	}
	var tr *TransportError
	if errors.As(err, &tr) {
		return tr.Code
	}
	return ""
}

// IsRetryable reports whether the client's retry policy would retry err.
// Tool errors, JSON-RPC errors, 401 and other 4xx are never retried.
func IsRetryable(err error) bool {
	var tr *TransportError
	return errors.As(err, &tr) && tr.Temporary()
}

// resourceMetadataOf extracts resource_metadata from WWW-Authenticate.
func resourceMetadataOf(h http.Header) string {
	cs, err := oauthex.ParseWWWAuthenticate(h.Values("WWW-Authenticate"))
	if err != nil {
		return ""
	}
	for _, c := range cs {
		if u := c.Params["resource_metadata"]; u != "" {
			return u
		}
	}
	return ""
}

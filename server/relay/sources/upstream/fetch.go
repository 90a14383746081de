package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// MaxBody bounds the answer [Fetch] reads. A price list is a few KiB; a
// larger answer is [Malformed], not a reason to buffer without end.
const MaxBody = 1 << 20

// maxErrorBody bounds what is read of a failed answer to find its code.
const maxErrorBody = 4 << 10

// Fetch sends req with client and returns the body of a 2xx JSON answer.
// Every failure is an *Error: the transport's as by [FromTransport]
// (under req's context), a non-2xx status as by [FromStatus] (the code
// taken from a JSON body's "code" or "error" field, as Uber and Lyft send
// them), a content type other than JSON, a body cut short or larger than
// [MaxBody] as [Malformed]. now reads an HTTP-date Retry-After.
func Fetch(client *http.Client, req *http.Request, provider string, now func() time.Time) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, FromTransport(req.Context(), provider, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, FromStatus(provider, resp.StatusCode, resp.Header.Get("Retry-After"), errorCode(head), now())
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, NewMalformed(provider, resp.StatusCode, "answer is not application/json")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		if req.Context().Err() != nil {
			return nil, FromTransport(req.Context(), provider, err)
		}
		return nil, NewMalformed(provider, resp.StatusCode, "answer body cut short")
	}
	if len(body) > MaxBody {
		return nil, NewMalformed(provider, resp.StatusCode, "answer body too large")
	}
	return body, nil
}

// DecodeJSON decodes one JSON value from body into v, keeping numbers as
// json.Number so amounts and distances keep the provider's exact digits.
// Anything but exactly one JSON value is [Malformed].
func DecodeJSON(provider string, status int, body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return NewMalformed(provider, status, "answer is not the expected JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return NewMalformed(provider, status, "answer has data after the JSON value")
	}
	return nil
}

// errorCode finds a provider error code in a JSON error body: Uber's
// {"code": "unauthorized", "message": ...}, Lyft's {"error":
// "invalid_token", "error_description": ...}. [FromStatus] keeps it only
// when it is a safe token.
func errorCode(body []byte) string {
	var v struct {
		Code  any `json:"code"`
		Error any `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	for _, c := range []any{v.Code, v.Error} {
		if s, ok := c.(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// NoRedirects returns a copy of client (nil: http.DefaultClient) that
// hands back a redirect instead of following it. The price APIs never
// redirect, and Go's client forwards Authorization to a redirect target
// on the same host name even on another port, so following one could
// carry a provider token somewhere else; [Fetch] reports the 3xx as
// [Malformed] instead.
func NoRedirects(client *http.Client) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// Every provider's client is made here, so every upstream request is a
	// client span carrying the search's trace context when tracing is on.
	c.Transport = telemetry.Transport(c.Transport)
	return &c
}

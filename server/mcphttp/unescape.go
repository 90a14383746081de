package mcphttp

import (
	"net/http"

	"github.com/tridenttaxis/trident-mcp/internal/htmlesc"
)

// htmlUnescaper undoes encoding/json's HTML escaping in the go-sdk's
// replies ([htmlesc]), across however many writes a reply comes in.
type htmlUnescaper struct {
	http.ResponseWriter
	escaping bool // the last byte written was a backslash that starts an escape
}

func (u *htmlUnescaper) Write(p []byte) (int, error) {
	if len(p) > 0 && !htmlesc.Has(p) {
		// Nothing to rewrite: passed on as is rather than copied, with
		// the backslash parity the rewriting would leave.
		u.escaping = htmlesc.Parity(p, u.escaping)
		return u.ResponseWriter.Write(p)
	}
	var out []byte
	out, u.escaping = htmlesc.Unescape(make([]byte, 0, len(p)), p, u.escaping)
	if _, err := u.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush keeps SSE frames flowing through the wrapper.
func (u *htmlUnescaper) Flush() {
	if f, ok := u.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (u *htmlUnescaper) Unwrap() http.ResponseWriter { return u.ResponseWriter }

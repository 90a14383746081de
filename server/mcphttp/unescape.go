package mcphttp

import (
	"bytes"
	"net/http"
)

// htmlUnescaper undoes encoding/json's HTML escaping (\u0026, \u003c, \u003e)
// in the go-sdk's replies, so a URL in a result reads "…&dropoff=…" on the
// wire exactly as the specification documents it rather than
// "…\u0026dropoff=…". Both forms are the same JSON value; the plain one is
// what people compare with curl.
//
// It is written by hand because it must be safe on any JSON text split across
// writes: an escape is rewritten only when it is whole within one write and
// its backslash is not itself escaped (the parity of a backslash run is
// carried from one write to the next). Anything else passes through as is.
type htmlUnescaper struct {
	http.ResponseWriter
	escaping bool // the last byte written was a backslash that starts an escape
}

func (u *htmlUnescaper) Write(p []byte) (int, error) {
	if len(p) > 0 && !hasHTMLEscape(p) {
		// Nothing to rewrite: passed on as is rather than copied, which
		// a reply whose text holds escaped quotes (the fast path's tool
		// results, ~19 KB for search_rides) would otherwise be on every
		// call. What is left open is the parity of the trailing
		// backslash run, as the loop below would leave it.
		k := len(p) - len(bytes.TrimRight(p, `\`))
		u.escaping = k%2 == 1 != (k == len(p) && u.escaping)
		return u.ResponseWriter.Write(p)
	}
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\\' {
			u.escaping = false
			out = append(out, c)
			continue
		}
		if u.escaping { // an escaped backslash: "\\"
			u.escaping = false
			out = append(out, c)
			continue
		}
		if i+5 < len(p) && p[i+1] == 'u' && p[i+2] == '0' && p[i+3] == '0' {
			if r, ok := htmlEscapes[[2]byte{p[i+4], p[i+5]}]; ok {
				out = append(out, r)
				i += 5
				continue
			}
		}
		u.escaping = true
		out = append(out, c)
	}
	if _, err := u.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// hasHTMLEscape reports whether p holds \u00 and a pair of htmlEscapes,
// escaped or not: without one, Write has nothing to rewrite.
//
// It looks for "u00" and then at the byte before, rather than for `\u00`:
// a reply of the fast path holds its result's JSON as text, a backslash
// before every quote, and bytes.Index, which looks for the needle's first
// byte with IndexByte, gives up on it for a byte-at-a-time search when that
// byte is so common. 'u' is rarer: on the ~20 KB reply of
// BenchmarkHasHTMLEscape 9.9 µs became 3.6 µs (on the search_rides
// sample's reply, 9.1 to 4.2 µs). Occurrences of either cannot overlap, so
// both searches see the same ones. (A SWAR scan for "u0" measured no
// faster than this IndexByte-driven search.)
func hasHTMLEscape(p []byte) bool {
	if len(p) < len(`\u0026`) {
		return false
	}
	for i := 1; ; i += 3 { // p[i] is the 'u' of a possible \u00, after its backslash
		j := bytes.Index(p[i:], []byte("u00"))
		if j < 0 {
			return false
		}
		i += j
		if i+4 >= len(p) {
			return false
		}
		if p[i-1] == '\\' {
			if _, ok := htmlEscapes[[2]byte{p[i+3], p[i+4]}]; ok {
				return true
			}
		}
	}
}

var htmlEscapes = map[[2]byte]byte{
	{'2', '6'}: '&', {'3', 'c'}: '<', {'3', 'C'}: '<', {'3', 'e'}: '>', {'3', 'E'}: '>',
}

// Flush keeps SSE frames flowing through the wrapper.
func (u *htmlUnescaper) Flush() {
	if f, ok := u.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (u *htmlUnescaper) Unwrap() http.ResponseWriter { return u.ResponseWriter }

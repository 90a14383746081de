// Package htmlesc undoes encoding/json's HTML escaping (\u0026, \u003c,
// \u003e) in JSON text, so that a URL in a reply reads "…&dropoff=…" on the
// wire exactly as the specification documents it rather than
// "…\u0026dropoff=…". Both forms are the same JSON value; the plain one is
// what people compare with curl.
//
// The front door's response writer runs it over every go-sdk reply, which
// may come in several writes, and the fast path runs it over its whole
// reply before it writes it (so that it can state the reply's length). It is
// written by hand because it must be safe on any JSON text split across
// writes: an escape is rewritten only when it is whole within one piece and
// its backslash is not itself escaped (the parity of a backslash run is
// carried from one piece to the next). Anything else passes through as is.
package htmlesc

import "bytes"

// Has reports whether p holds \u00 and a pair of the HTML escapes' digits,
// escaped or not: without one, [Unescape] has nothing to rewrite.
//
// It looks for "u00" and then at the byte before, rather than for `\u00`:
// a reply of the fast path holds its result's JSON as text, a backslash
// before every quote, and bytes.Index, which looks for the needle's first
// byte with IndexByte, gives up on it for a byte-at-a-time search when that
// byte is so common. 'u' is rarer: on the ~20 KB reply of BenchmarkHas
// (then in server/mcphttp) 9.9 µs became 3.6 µs (on the search_rides
// sample's reply, 9.1 to 4.2 µs). Occurrences of either cannot
// overlap, so both searches see the same ones. (A SWAR scan for "u0"
// measured no faster than this IndexByte-driven search.)
func Has(p []byte) bool {
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
			if _, ok := escapes[[2]byte{p[i+3], p[i+4]}]; ok {
				return true
			}
		}
	}
}

// Unescape appends p to dst with every HTML escape that is one rewritten as
// its character. escaping is whether the piece before p ended in a
// backslash that starts an escape (false at the start of a text); the
// returned bool is the same for p, to give with the next piece.
func Unescape(dst, p []byte, escaping bool) ([]byte, bool) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\\' {
			escaping = false
			dst = append(dst, c)
			continue
		}
		if escaping { // an escaped backslash: "\\"
			escaping = false
			dst = append(dst, c)
			continue
		}
		if i+5 < len(p) && p[i+1] == 'u' && p[i+2] == '0' && p[i+3] == '0' {
			if r, ok := escapes[[2]byte{p[i+4], p[i+5]}]; ok {
				dst = append(dst, r)
				i += 5
				continue
			}
		}
		escaping = true
		dst = append(dst, c)
	}
	return dst, escaping
}

// Parity is what [Unescape] would return as escaping for p, for a piece
// passed on as it is because [Has] found nothing in it: whether p ends in
// an odd run of backslashes, counting the one before it when p is nothing
// but backslashes.
func Parity(p []byte, escaping bool) bool {
	k := len(p) - len(bytes.TrimRight(p, `\`))
	return k%2 == 1 != (k == len(p) && escaping)
}

var escapes = map[[2]byte]byte{
	{'2', '6'}: '&', {'3', 'c'}: '<', {'3', 'C'}: '<', {'3', 'e'}: '>', {'3', 'E'}: '>',
}

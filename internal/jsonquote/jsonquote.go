// Package jsonquote writes a Go string as a JSON string, byte for byte as
// encoding/json writes it: [Append] as an Encoder with SetEscapeHTML(false)
// does (the go-sdk's JSON-RPC layer, the server's fast path), [AppendHTML]
// as json.Marshal does. `"` and `\` are escaped, \b \f \n \r \t written as
// such, other bytes below 0x20 as \u00xx (lower-case hex), invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029, and with HTML escaping
// &, < and > as \u0026, \u003c and \u003e.
//
// Why by hand: the text content of a Relay search_rides reply is the
// result's JSON again (~8-10 KB), so it is mostly quotes to escape, and
// encoding/json's appendString, which looks at one byte at a time through a
// table, cost ~26 µs a search in a CPU profile of the server under load (of
// ~530 µs). Here eight bytes at a time are tested at once for one that
// needs attention (SWAR), and stored whole: on the search_rides sample's
// text (8 KB, a quote every 8 bytes) 20.2 µs became 8.0 µs and the
// allocation went (BenchmarkQuoteSearchText, eight runs each on a shared
// machine), and the fast path's reply of BenchmarkFastResultEncoding
// (server/mcphttp) 44 µs to 31 µs.
package jsonquote

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Append appends s to dst as a JSON string, as a json.Encoder with
// SetEscapeHTML(false) writes it (without its newline). The result is dst
// extended in place when dst has the room (for s with its escapes and 16
// bytes more), and then nothing past the result is written. When the
// escapes outgrow the room, the result moves to a new array after some of
// the spare capacity of dst was written to, where append would leave it
// alone.
func Append(dst []byte, s string) []byte { return appendString(dst, s, false) }

// AppendHTML appends s to dst as a JSON string, as json.Marshal writes it:
// as [Append] does, and &, < and > as \u0026,
// \u003c and \u003e.
func AppendHTML(dst []byte, s string) []byte { return appendString(dst, s, true) }

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
	hex  = "0123456789abcdef"
)

// store writes x to out[n:n+8] as load reads it.
func store(out []byte, n int, x uint64) { binary.LittleEndian.PutUint64(out[n:n+8], x) }

// load reads s[i:i+8] as a little-endian word (one load where the
// compiler can merge them, on every platform the same value).
func load(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// zeros has the high bit set in the lowest zero byte of x, and maybe in
// bytes above it, in no byte below it: a borrow only runs upward from a
// byte that was zero. Only its lowest set bit is to be trusted.
func zeros(x uint64) uint64 { return (x - ones) &^ x & high }

// attention has the high bit set in the lowest byte of x that is below
// 0x20, `"`, `\` or at or above 0x80, and maybe in bytes above it, in none
// below it; 0 when no byte of x is such.
func attention(x uint64) uint64 {
	// x - 0x20 in each byte borrows exactly in the bytes below 0x20 (as in
	// zeros, only the lowest flag is exact); x itself flags 0x80 and above.
	return ((x-0x20*ones)&^x | x | zeros(x^'"'*ones) | zeros(x^'\\'*ones)) & high
}

// attentionHTML is what attention adds with HTML escaping: &, < and >.
func attentionHTML(x uint64) uint64 {
	return zeros(x^'&'*ones) | zeros(x^'<'*ones) | zeros(x^'>'*ones)
}

// appendString stores each word of s whole into dst's spare capacity and
// moves the write position past the bytes of it written as themselves, so
// that a run between escapes costs no call (most runs in a JSON text are a
// name or a short value, 5-10 bytes between quotes), and escapes a quote,
// the commonest escape, without leaving the word loop. Before each escape
// len(out)-n is made at least len(s)-i+room: the rest of s as it is, the
// longest escape of one byte (6 bytes for 1) and the closing quote, with
// slack; an escape spends at most 5 of it, and the next one restores it.
// A word stored whole never reaches past the result: the output so far is
// at least as long as the input read, and the rest of the input follows.
func appendString(dst []byte, s string, html bool) []byte {
	const room = 16
	safe := &safeSet
	if html {
		safe = &htmlSafeSet
	}
	out := slices.Grow(dst, len(s)+room)
	n := len(out)
	out = out[:cap(out)]
	out[n] = '"'
	n++
	for i := 0; ; {
		for i+8 <= len(s) {
			x := load(s, i)
			store(out, n, x)
			m := attention(x)
			if html {
				m |= attentionHTML(x)
			}
			if m == 0 {
				i += 8
				n += 8
				continue
			}
			k := bits.TrailingZeros64(m) >> 3
			i += k
			n += k
			// Quotes are most of the escapes in a JSON text: done here
			// without leaving the loop.
			if b := s[i]; b != '"' && b != '\\' || len(out)-n < len(s)-i+room {
				break
			}
			out[n], out[n+1] = '\\', s[i]
			n += 2
			i++
		}
		for i < len(s) && safe[s[i]] { // the last 7 bytes or fewer
			out[n] = s[i]
			i++
			n++
		}
		if i >= len(s) {
			break
		}
		if len(out)-n < len(s)-i+room {
			out = slices.Grow(out[:n], len(s)-i+room)
			out = out[:cap(out)]
		}
		if b := s[i]; b < utf8.RuneSelf {
			switch b {
			case '\\', '"':
				out[n], out[n+1] = '\\', b
				n += 2
			case '\b', '\f', '\n', '\r', '\t':
				out[n], out[n+1] = '\\', shortEscapes[b]
				n += 2
			default: // other control bytes; &, < and > with html
				copy(out[n:n+6], `\u00`)
				out[n+4], out[n+5] = hex[b>>4], hex[b&0xF]
				n += 6
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			copy(out[n:n+6], `\ufffd`)
			n += 6
		case c == '\u2028' || c == '\u2029':
			copy(out[n:n+6], `\u2028`)
			out[n+5] = hex[c&0xF]
			n += 6
		default: // written as itself
			copy(out[n:n+size], s[i:i+size])
			n += size
		}
		i += size
	}
	out[n] = '"'
	return out[:n+1]
}

// shortEscapes are the letters of the escapes of \b, \f, \n, \r and \t.
var shortEscapes = [32]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// safeSet and htmlSafeSet hold the bytes written as themselves without
// and with HTML escaping: printable ASCII but for `"` and `\` (and &<>).
var safeSet, htmlSafeSet = func() (plain, html [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		plain[b] = b != '"' && b != '\\'
		html[b] = plain[b] && b != '&' && b != '<' && b != '>'
	}
	return plain, html
}()

package client

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"github.com/tridenttaxis/trident-mcp/internal/jsonscan"
)

// fastCallReply is [decodeCallReply] without json.Unmarshal of the whole
// reply: the reply is checked to be JSON by [jsonscan.Valid], its envelope and
// result members are taken from their bytes (the layout's, l), the content
// blocks' strings are unquoted by [unquotePlain], and json.Unmarshal reads
// structuredContent alone, straight into out. It answers only when it is
// sure to answer as the one pass would, the common reply; for anything
// else (a member it does not read the way encoding/json would, an escape
// beyond the plain ones, invalid UTF-8, an error, a reply that does not
// decode) it reports false with into and out as they were (zero), and the
// one pass reads the reply.
//
// Why by hand: the one pass (json.Unmarshal of the whole reply) scanned it
// twice, once to check it and once to decode it, the text of the content
// block (a second copy of the result for the client's reader, all escaped
// quotes) through the reflective decoder's string unquoting; here the
// check is one loop without a function call per byte, and only
// structuredContent, which out needs, goes through encoding/json
// ([decodeStrict]). BenchmarkDecodeCallReply/one-pass: 25.0 µs, 53
// allocations then; 15.5 µs, 48 now; BenchmarkEstimateFareInProcess, with
// the server's reading of alternativeVehicleTypes: 68.7 µs then, 45.5 now.
func fastCallReply(raw []byte, id json.RawMessage, l replyLayout, into *callResult) (*frame, bool) {
	if !jsonscan.Valid(raw) {
		return nil, false
	}
	if l.odd || l.id == nil || string(l.id) == "null" || l.rpcError != nil && string(l.rpcError) != "null" ||
		l.meta != nil && string(l.meta) == "null" || !sameID(l.id, id) {
		return nil, false
	}
	f := frame{ID: append(json.RawMessage(nil), l.id...)}
	if l.method != nil {
		var ok bool
		if f.Method, ok = unquotePlain(l.method); !ok {
			return nil, false
		}
	}
	res := Result{Meta: append(json.RawMessage(nil), l.meta...)}
	if l.meta == nil {
		res.Meta = nil
	}
	switch string(l.isError) {
	case "true":
		res.IsError = true
	case "", "false", "null":
	default:
		return nil, false
	}
	var ok bool
	if res.Content, ok = fastContent(l.content); !ok {
		return nil, false
	}
	direct := l.structured != nil && string(l.structured) != "null" && (l.isError == nil || string(l.isError) == "false") && zeroPointee(into.out)
	if direct && !decodeStrict(l.structured, into.out) {
		reflect.ValueOf(into.out).Elem().SetZero()
		if json.Unmarshal(l.structured, into.out) != nil {
			reflect.ValueOf(into.out).Elem().SetZero()
			return nil, false
		}
	}
	res.StructuredContent = shared(l.structured)
	into.res = res
	into.decoded = direct
	return &f, true
}

// fastContent is the Result's Content of the content array at span (nil:
// absent), each block an object whose type and text, when given, are
// strings [unquotePlain] reads; false for anything else.
func fastContent(span []byte) ([]Content, bool) {
	if span == nil || string(span) == "null" {
		return nil, true
	}
	if span[0] != '[' {
		return nil, false
	}
	out := []Content{}
	ok := jsonscan.EachItem(span, func(item []byte) bool {
		var c Content
		var haveType, haveText bool
		ok := jsonscan.EachMember(item, func(key, val []byte) bool {
			var s string
			var ok bool
			switch string(key) {
			case "type":
				s, ok = unquotePlain(val)
				ok = ok && !haveType
				haveType, c.Type = true, s
			case "text":
				s, ok = unquotePlain(val)
				ok = ok && !haveText
				haveText, c.Text = true, s
			default:
				ok = !bytes.EqualFold(key, []byte("type")) && !bytes.EqualFold(key, []byte("text"))
			}
			return ok
		})
		c.Raw = shared(item)
		out = append(out, c)
		return ok
	})
	return out, ok
}

// unquotePlain returns the value of the JSON string s (valid JSON, quotes
// included) as encoding/json decodes it, when s is valid UTF-8 and its
// escapes are the two-byte ones or \u escapes of characters outside the
// surrogate range: false for anything else (where encoding/json puts
// U+FFFD in place of what it cannot decode, which this leaves to it).
func unquotePlain(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	if !utf8.Valid(s) {
		return "", false
	}
	i := bytes.IndexByte(s, '\\')
	if i < 0 {
		return string(s), true
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		if i+1 >= len(s) {
			return "", false
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			b = append(b, c)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if i+6 > len(s) {
				return "", false
			}
			r, ok := hex4(s[i+2 : i+6])
			if !ok || utf8.RuneLen(r) < 0 { // a surrogate: encoding/json pairs it or replaces it
				return "", false
			}
			b = utf8.AppendRune(b, r)
			s = s[i+6:]
			i = bytes.IndexByte(s, '\\')
			continue
		default:
			return "", false
		}
		s = s[i+2:]
		i = bytes.IndexByte(s, '\\')
	}
	return string(append(b, s...)), true
}

func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Package jsonscan splits JSON text that a decoder has accepted (or will
// accept before what is read here is used) into members and items without
// allocating. The server's fast path reads a tools/call envelope with it
// (server/fastcall) and the client finds the parts of a tools/call reply it
// keeps as bytes (client): written by hand because the standard decoders
// either allocate per member (json.Decoder.Token, a map of
// json.RawMessage) or hide what these callers must see, a name given twice
// or spelled with an escape.
//
// Nothing here but [Valid] validates: on invalid JSON the other functions
// never read out of bounds, and what they report is to be trusted only for
// valid JSON.
package jsonscan

import "bytes"

// EachMember calls fn with the name (the bytes between its quotes) and the
// value bytes of each member of the JSON object obj (spaces around
// allowed), until fn returns false. It reports whether it read the whole
// object, every name without an escape, and fn never returned false.
func EachMember(obj []byte, fn func(key, val []byte) bool) bool {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = SkipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return SkipSpace(obj, i+1) == len(obj)
	}
	for {
		end, escaped := StringEnd(obj, i)
		if end < 0 || escaped {
			return false
		}
		key := obj[i+1 : end-1]
		i = SkipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = SkipSpace(obj, i+1)
		vend := ValueEnd(obj, i)
		if vend < 0 || !fn(key, obj[i:vend]) {
			return false
		}
		i = SkipSpace(obj, vend)
		switch {
		case i < len(obj) && obj[i] == ',':
			i = SkipSpace(obj, i+1)
		case i < len(obj) && obj[i] == '}':
			return SkipSpace(obj, i+1) == len(obj)
		default:
			return false
		}
	}
}

// EachItem calls fn with the bytes of each element of the JSON array arr,
// until fn returns false. It reports whether it read the whole array and
// fn never returned false.
func EachItem(arr []byte, fn func(item []byte) bool) bool {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = SkipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return SkipSpace(arr, i+1) == len(arr)
	}
	for {
		end := ValueEnd(arr, i)
		if end < 0 || !fn(arr[i:end]) {
			return false
		}
		i = SkipSpace(arr, end)
		switch {
		case i < len(arr) && arr[i] == ',':
			i = SkipSpace(arr, i+1)
		case i < len(arr) && arr[i] == ']':
			return SkipSpace(arr, i+1) == len(arr)
		default:
			return false
		}
	}
}

// ValueEnd returns the end of the JSON value that starts at b[i], -1 when
// none does.
func ValueEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			end, _ := StringEnd(b, i)
			if end < 0 || depth == 0 {
				return end
			}
			i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			switch {
			case depth < 0:
				return -1
			case depth == 0:
				return i + 1
			}
		default:
			if depth == 0 {
				return scalarEnd(b, i)
			}
		}
		i++
	}
	return -1
}

// scalarEnd returns the end of the number or literal at b[i], -1 when it
// is empty.
func scalarEnd(b []byte, i int) int {
	j := i
	for j < len(b) && !endsScalar(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func endsScalar(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// StringEnd returns the end of the JSON string that starts at b[i], -1 when
// none does, and whether it has an escape. It looks for the closing quote
// with bytes.IndexByte, a string's bytes being most of a tool result's.
func StringEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return -1, false
	}
	escaped := false
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1, escaped
		}
		e := bytes.IndexByte(b[j:j+q], '\\')
		if e < 0 {
			return j + q + 1, escaped
		}
		escaped = true
		j += e + 2 // past the backslash and the byte it escapes
	}
	return -1, escaped
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

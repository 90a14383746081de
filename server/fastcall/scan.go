package fastcall

// A scanner over JSON text that encoding/json has already judged valid
// (json.Valid): it splits one object into raw members without allocating,
// so the envelope of a call is read once. Written by hand because the
// standard decoders either allocate per member (json.Decoder.Token, a map
// of json.RawMessage) or do not report duplicate keys, which the fast path
// must see in order to leave such bodies to the go-sdk.

// member is one name/value pair of an object, both as raw JSON text; key is
// the name without its quotes and is only set for names without escapes.
type member struct {
	key   []byte
	value []byte
}

// maxMembers bounds the members the fast path reads; an envelope has four,
// tools/call params two. More sends the call to the go-sdk.
const maxMembers = 6

// members splits the JSON object b into at most maxMembers members. It
// reports false when b is not an object, has more members, or a name with an
// escape sequence or a duplicate name, leaving those bodies to the SDK.
func members(b []byte, out *[maxMembers]member) (int, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return 0, skipSpace(b, i+1) == len(b)
	}
	n := 0
	for {
		if n == maxMembers || i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end := stringEnd(b, i)
		if end < 0 {
			return 0, false
		}
		key := b[i+1 : end-1]
		if hasEscape(key) {
			return 0, false
		}
		for _, m := range out[:n] {
			if string(m.key) == string(key) {
				return 0, false
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return 0, false
		}
		out[n] = member{key: key, value: b[i:vend]}
		n++
		i = skipSpace(b, vend)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return n, skipSpace(b, i+1) == len(b)
		default:
			return 0, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the closing quote of the string that
// starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

func hasEscape(s []byte) bool {
	for _, c := range s {
		if c == '\\' {
			return true
		}
	}
	return false
}

// valueEnd returns the index after the JSON value that starts at b[i], or
// -1. Since b is valid JSON, brackets only need counting outside strings.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
				if j < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

package jsonscan

import "encoding/json"

// Valid is json.Valid(b), for the server's fast path (a call's body) and
// the client (a tools/call reply). Written by hand because json.Valid's
// scanner calls a state function per byte: it was two thirds of
// encoding/json.Valid's 9% of BenchmarkEstimateFare (server/trident), for
// the few hundred bytes of a call's body, and 4.3 of 1.4 µs on the 1.1 KB
// estimate_fare reply the client reads. This one takes a string's plain bytes in a tight loop and
// nests by recursion; beyond maxValidDepth, rare in a request and where
// json.Valid's own limit of 10000 levels starts to matter, it asks
// json.Valid. FuzzValidJSON holds it to json.Valid.
func Valid(b []byte) bool {
	v := validator{b: b}
	i, ok := v.value(SkipSpace(b, 0), 0)
	if v.deep {
		return json.Valid(b)
	}
	return ok && SkipSpace(b, i) == len(b)
}

const maxValidDepth = 64

type validator struct {
	b    []byte
	deep bool // nesting beyond maxValidDepth: the answer is json.Valid's
}

// value checks the value at b[i] and returns the index after it.
func (v *validator) value(i, depth int) (int, bool) {
	b := v.b
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return v.str(i)
	case c == '{' || c == '[':
		if depth == maxValidDepth {
			v.deep = true
			return 0, false
		}
		return v.container(i, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return v.number(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	}
	return 0, false
}

func (v *validator) literal(i int, lit string) (int, bool) {
	if len(v.b)-i < len(lit) || string(v.b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// container checks the object or array opening at b[i].
func (v *validator) container(i, depth int) (int, bool) {
	b := v.b
	object, closer := b[i] == '{', byte(']')
	if object {
		closer = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, true
	}
	for {
		var ok bool
		if object {
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			if i, ok = v.str(i); !ok {
				return 0, false
			}
			if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = SkipSpace(b, i+1)
		}
		if i, ok = v.value(i, depth); !ok {
			return 0, false
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case closer:
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// str checks the string opening at b[i]. As json.Valid, it takes any byte
// but a control character as itself, invalid UTF-8 included.
func (v *validator) str(i int) (int, bool) {
	b := v.b
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// number checks the number at b[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number(i int) (int, bool) {
	b := v.b
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i + 1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

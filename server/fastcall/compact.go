package fastcall

// isCompactJSON reports whether b is one JSON value with no whitespace
// outside its strings, nested at most 64 deep: a value json.Compact
// accepts and returns unchanged. False says nothing; the caller then
// leaves b to json.Compact.
//
// Why by hand: a search_rides result carries ~10 KB of structuredContent
// as a json.RawMessage, already compact. json.Compact's byte-at-a-time
// scanner took 60% of the time of writing such a reply
// (BenchmarkFastResultEncoding, server/mcphttp); this check and a copy
// take a fraction of that, since a string is skipped by a tight loop.
func isCompactJSON(b []byte) bool {
	var open [64]byte // the byte that closes each open object or array
	depth, i := 0, 0
	for {
		if i < len(b) && (b[i] == '{' || b[i] == '[') { // a value starts at b[i]
			if depth == len(open) {
				return false
			}
			end := b[i] + 2 // '{'+2 is '}', '['+2 is ']'
			open[depth], depth, i = end, depth+1, i+1
			if i >= len(b) || b[i] != end {
				if end == '}' {
					if i = skipKey(b, i); i < 0 {
						return false
					}
				}
				continue
			}
			depth, i = depth-1, i+1 // empty
		} else if i = skipScalar(b, i); i < 0 {
			return false
		}
		for depth > 0 && i < len(b) && b[i] == open[depth-1] { // a value ended: close what ends with it
			depth, i = depth-1, i+1
		}
		if depth == 0 {
			return i == len(b)
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i++
		if open[depth-1] == '}' {
			if i = skipKey(b, i); i < 0 {
				return false
			}
		}
	}
}

// skipKey returns the index after the member name and colon at b[i], or -1.
func skipKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i); i < 0 || i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// skipScalar returns the index after the string, number, true, false or
// null at b[i], or -1.
func skipScalar(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case 't':
		return skipLiteral(b, i, "true")
	case 'f':
		return skipLiteral(b, i, "false")
	case 'n':
		return skipLiteral(b, i, "null")
	}
	return skipNumber(b, i)
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipString returns the index after the string at b[i] (a quote), or -1.
// Like encoding/json it takes any byte from 0x20 up, valid UTF-8 or not.
func skipString(b []byte, i int) int {
	for i++; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c != '\\':
			i++
		case i+1 >= len(b):
			return -1
		case b[i+1] == 'u':
			if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return -1
			}
			i += 6
		default:
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// skipNumber returns the index after the number at b[i], or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := skipDigits(b, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

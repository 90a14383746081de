package relay

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// outOfRange finds the first number of a decoded document (json.Number
// leaves) that float64 cannot hold, and returns its JSON Pointer: one that
// overflows it, such as 1e99999999999, or one that is not zero yet
// underflows it, such as 1e-99999999999. JSON allows any exponent; no
// argument of Relay means such a number, and the schema validator cannot
// compare it: it reads a number exactly with math/big, which costs time in
// the size of the exponent and fails beyond a million (the validator then
// panics). So such a number is refused before validation, as an
// out-of-range argument. A zero with any exponent (0e99999999999) is zero:
// math/big reads it at once, and it passes.
func outOfRange(doc any, at string) (string, bool) {
	switch v := doc.(type) {
	case json.Number:
		if beyondFloat64(string(v)) {
			return at, true
		}
	case map[string]any:
		for k, e := range v {
			if p, ok := outOfRange(e, at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := outOfRange(e, at+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// beyondFloat64 reports whether the number literal s overflows float64 or,
// not being zero, reads as 0. strconv is fast whatever the exponent.
func beyondFloat64(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return true
	}
	mantissa, _, _ := strings.Cut(strings.ToLower(s), "e")
	return f == 0 && strings.ContainsAny(mantissa, "123456789")
}

package relay

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// tooLarge finds the first number of a decoded document (json.Number
// leaves) beyond float64's range, such as 1e99999999999, and returns its
// JSON Pointer. JSON allows any exponent; no argument of Relay means one
// that large, and the schema validator cannot compare it (it panics on a
// number math/big does not parse), so such a number is refused before
// validation, as an out-of-range argument.
func tooLarge(doc any, at string) (string, bool) {
	switch v := doc.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); errors.Is(err, strconv.ErrRange) {
			return at, true
		}
	case map[string]any:
		for k, e := range v {
			if p, ok := tooLarge(e, at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := tooLarge(e, at+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

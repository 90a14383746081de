package relay

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestOutOfRange(t *testing.T) {
	type found struct {
		at string
		ok bool
	}
	for doc, want := range map[string]found{
		// Within float64, a subnormal, zeros with any exponent.
		`{"a":[1,-1.7e308,1e-320,-0e99999999999,0.0e-400]}`: {},
		`{"a":[1,1e309]}`:               {"/a/1", true},
		`{"a/b":{"c~":-1e99999999999}}`: {"/a~1b/c~0", true},
		`[1e-400]`:                      {"/0", true},
		`-0.0001e-99999999999`:          {"", true},
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if at, ok := outOfRange(v, ""); (found{at, ok}) != want {
			t.Errorf("%s: got %q %v, want %q %v", doc, at, ok, want.at, want.ok)
		}
	}
}

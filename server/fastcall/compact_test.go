package fastcall

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var compactSeeds = []string{
	`{}`, `[]`, `0`, `-0`, `-0.5e+10`, `1E-2`, `12.34`, `"a\"\\\/\b\f\n\r\t\u00e9\uD83D"`, `true`, `false`, `null`,
	`{"a":[1,{"b":null},"c",[],{}],"d":{"e":true}}`, "\"\xff\xe2\x80\xa8\"", `[[[[]]]]`,
	strings.Repeat("[", 64) + strings.Repeat("]", 64),
	// not compact, or not JSON
	strings.Repeat("[", 65) + strings.Repeat("]", 65), ` {}`, `{} `, `{"a": 1}`, `[1 ,2]`, ``, `{`, `[1,]`, `{"a"}`,
	`{"a":1,}`, `{,}`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `tru`, `nul`, `"\x01"`, `"\u12"`, `"\u12g4"`, `"\x"`, `"abc`,
	`{"a":1]`, `[1}`, `{1:2}`, `{} {}`, `"a"x`, `[true false]`,
}

// TestIsCompactJSON: true exactly for the compact values, which
// json.Compact then leaves as they are.
func TestIsCompactJSON(t *testing.T) {
	for i, s := range compactSeeds {
		want := i < 15
		if got := isCompactJSON([]byte(s)); got != want {
			t.Errorf("isCompactJSON(%q) = %v, want %v", s, got, want)
		}
		checkCompact(t, []byte(s))
	}
}

// FuzzIsCompactJSON: whatever isCompactJSON accepts, json.Compact accepts
// and leaves unchanged; and a compact value it refuses is only a deep one.
func FuzzIsCompactJSON(f *testing.F) {
	for _, s := range compactSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkCompact)
}

func checkCompact(t *testing.T, b []byte) {
	var out bytes.Buffer
	err := json.Compact(&out, b)
	compact := err == nil && bytes.Equal(out.Bytes(), b)
	if got := isCompactJSON(b); got && !compact {
		t.Errorf("isCompactJSON(%q) = true; json.Compact: %q, %v", b, out.Bytes(), err)
	} else if !got && compact && bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) <= 64 {
		t.Errorf("isCompactJSON(%q) = false for a compact value", b)
	}
}

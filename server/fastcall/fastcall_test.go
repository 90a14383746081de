package fastcall

import (
	"testing"
)

func TestMembers(t *testing.T) {
	tests := []struct {
		in   string
		keys []string // nil: refused
	}{
		{`{}`, []string{}},
		{` { "a" : 1 , "b":[1,{"c":"}"}] ,"d":"x\"}"} `, []string{"a", "b", "d"}},
		{`{"a":{"b":{"c":[[]]}},"e":null}`, []string{"a", "e"}},
		{`{"a":1,"a":2}`, nil}, // duplicate
		{`{"\u0061":1}`, nil},  // escaped name
		{`[1]`, nil},           // not an object
		{`"s"`, nil},           // not an object
		{`{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7}`, nil}, // too many
	}
	for _, tt := range tests {
		var out [maxMembers]member
		n, ok := members([]byte(tt.in), &out)
		if ok != (tt.keys != nil) {
			t.Errorf("%s: ok = %v", tt.in, ok)
			continue
		}
		if !ok {
			continue
		}
		var keys []string
		for _, m := range out[:n] {
			keys = append(keys, string(m.key))
		}
		if len(keys) != len(tt.keys) {
			t.Errorf("%s: keys %q, want %q", tt.in, keys, tt.keys)
			continue
		}
		for i := range keys {
			if keys[i] != tt.keys[i] {
				t.Errorf("%s: keys %q, want %q", tt.in, keys, tt.keys)
			}
		}
	}
	var out [maxMembers]member
	if n, _ := members([]byte(`{"a" : [1, "]"] , "b":true}`), &out); n != 2 || string(out[0].value) != `[1, "]"]` || string(out[1].value) != "true" {
		t.Errorf("values: %q %q", out[0].value, out[1].value)
	}
}

func TestEchoedID(t *testing.T) {
	for raw, want := range map[string]bool{
		`1`: true, `0`: true, `-7`: true, `999999999999999`: true, `"abc"`: true, `""`: true, `"a&b <c>"`: true,
		`-0`: false, `01`: false, `1.0`: false, `1e2`: false, `9007199254740993`: false,
		`"a\"b"`: false, `"a\u0041"`: false, `"é"`: false, `null`: false, ``: false, `{}`: false, `true`: false,
	} {
		if got := echoedID([]byte(raw)); got != want {
			t.Errorf("echoedID(%s) = %v, want %v", raw, got, want)
		}
	}
}

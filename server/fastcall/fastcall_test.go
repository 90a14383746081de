package fastcall

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	tests := []struct {
		raw  string
		want any // nil: left to the SDK
	}{
		{`1`, int64(1)}, {`0`, int64(0)}, {`-7`, int64(-7)}, {`999999999999999`, int64(999999999999999)},
		{`"abc"`, "abc"}, {`""`, ""}, {`"a&b <c>"`, "a&b <c>"},
		{`-0`, nil}, {`01`, nil}, {`1.0`, nil}, {`1e2`, nil}, {`9007199254740993`, nil},
		{`"a\"b"`, nil}, {`"é"`, nil}, {`null`, nil}, {``, nil}, {`{}`, nil},
	}
	for _, tt := range tests {
		id, ok := echoedID([]byte(tt.raw))
		if ok != (tt.want != nil) {
			t.Errorf("%s: ok = %v, want %v", tt.raw, ok, tt.want != nil)
			continue
		}
		if !ok {
			continue
		}
		want, _ := jsonrpc.MakeID(tt.want)
		if i, isInt := tt.want.(int64); isInt {
			want, _ = jsonrpc.MakeID(float64(i))
		}
		if id != want {
			t.Errorf("%s: id %v, want %v", tt.raw, id.Raw(), want.Raw())
		}
	}
}

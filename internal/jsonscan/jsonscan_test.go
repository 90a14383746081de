package jsonscan

import (
	"encoding/json"
	"testing"
)

// Every member and item is the value encoding/json finds there, and an
// object or array that is not whole, or a name with an escape, is refused.
func TestEachMemberAndItem(t *testing.T) {
	const obj = ` { "a" : 1 , "b":"x\"}y", "c":{"d":[1,{"e":null}]} ,"f":[true, -1.5e3] } `
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &want); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if !EachMember([]byte(obj), func(k, v []byte) bool { got[string(k)] = string(v); return true }) {
		t.Fatal("a valid object was refused")
	}
	for k, v := range want {
		if got[k] != string(v) {
			t.Errorf("member %s: %q, want %q", k, got[k], v)
		}
	}
	var items []string
	if !EachItem([]byte(`[1, "a,b", {"c":[]}, []]`), func(v []byte) bool { items = append(items, string(v)); return true }) ||
		len(items) != 4 || items[1] != `"a,b"` || items[2] != `{"c":[]}` {
		t.Errorf("items %q", items)
	}
	for _, bad := range []string{`{"a\u0062":1}`, `{"a":1`, `{"a":1}x`, `[1,2`, `{"a" 1}`} {
		if EachMember([]byte(bad), func(_, _ []byte) bool { return true }) || EachItem([]byte(bad), func([]byte) bool { return true }) {
			t.Errorf("%s was read as whole", bad)
		}
	}
}

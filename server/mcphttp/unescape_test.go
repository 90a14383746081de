package mcphttp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTMLUnescaper(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"u":"a\u0026b\u003cc\u003ed"}`, `{"u":"a&b<c>d"}`},
		{`{"u":"\\u0026"}`, `{"u":"\\u0026"}`},      // an escaped backslash, then the text u0026
		{`{"u":"\\\u0026"}`, `{"u":"\\&"}`},         // an escaped backslash, then an escape
		{`{"u":"\u00e9\u0026"}`, `{"u":"\u00e9&"}`}, // other escapes are left alone
		{`{"u":"\"\u003C"}`, `{"u":"\"<"}`},         // upper-case hex
	} {
		rec := httptest.NewRecorder()
		u := &htmlUnescaper{ResponseWriter: rec}
		if n, err := u.Write([]byte(tc.in)); err != nil || n != len(tc.in) {
			t.Fatalf("Write(%s) = %d, %v", tc.in, n, err)
		}
		if got := rec.Body.String(); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tc.in), &a) != nil || json.Unmarshal(rec.Body.Bytes(), &b) != nil {
			t.Fatalf("%s: not JSON both ways", tc.in)
		}
		if ja, _ := json.Marshal(a); string(ja) != mustMarshal(b) {
			t.Errorf("%s: the value changed", tc.in)
		}
	}
}

// TestHTMLUnescaperAcrossWrites: a backslash run split between writes keeps
// its parity, and an escape split between writes is left as it is.
func TestHTMLUnescaperAcrossWrites(t *testing.T) {
	for _, parts := range [][]string{
		{`{"u":"\`, `\u0026"}`},  // "\\u0026": must stay
		{`{"u":"a\u00`, `26"}`},  // split escape: left escaped, still valid
		{`{"u":"\\`, `\u0026"}`}, // "\\" then "\u0026": the second becomes &
	} {
		rec := httptest.NewRecorder()
		u := &htmlUnescaper{ResponseWriter: rec}
		for _, p := range parts {
			u.Write([]byte(p))
		}
		in := strings.Join(parts, "")
		var a, b any
		if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
			t.Fatalf("%s became invalid JSON %s: %v", in, rec.Body.String(), err)
		}
		_ = json.Unmarshal([]byte(in), &a)
		if ja, _ := json.Marshal(a); string(ja) != mustMarshal(b) {
			t.Errorf("%s: value changed to %s", in, rec.Body.String())
		}
	}
}

// TestHTMLUnescaperParity: a write with nothing to rewrite, passed on as
// is, leaves the backslash parity as the rewriting loop would, so the
// escape in a later write is rewritten exactly when it is one.
func TestHTMLUnescaperParity(t *testing.T) {
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{`{"u":"\`, `\u0026"}`}, `{"u":"\\u0026"}`}, // odd: the next backslash is escaped
		{[]string{`{"u":"\\`, `\u0026"}`}, `{"u":"\\&"}`},
		{[]string{`{"u":"\`, `\`, `\u0026"}`}, `{"u":"\\&"}`},            // odd, then all backslashes: even
		{[]string{`{"u":"\`, `\`, `\`, `\u0026"}`}, `{"u":"\\\\u0026"}`}, // four: the text u0026
		{[]string{`{"u":"\"\`, `\u003c"}`}, `{"u":"\"\\u003c"}`},
		{[]string{`{"u":"\u0001\\`, `\u003e"}`}, `{"u":"\u0001\\>"}`},
		{[]string{`{"u":"\u0026\`, `\u0026"}`}, `{"u":"&\\u0026"}`},
	} {
		rec := httptest.NewRecorder()
		u := &htmlUnescaper{ResponseWriter: rec}
		for _, p := range tc.parts {
			u.Write([]byte(p))
		}
		if got := rec.Body.String(); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.parts, got, tc.want)
		}
	}
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

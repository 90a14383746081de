package mcphttp

import (
	"bytes"
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

// hasHTMLEscapeIndex is hasHTMLEscape as it was, searching for `\u00`:
// the reference the new one is compared with.
func hasHTMLEscapeIndex(p []byte) bool {
	for {
		i := bytes.Index(p, []byte(`\u00`))
		if i < 0 || i+5 >= len(p) {
			return false
		}
		if _, ok := htmlEscapes[[2]byte{p[i+4], p[i+5]}]; ok {
			return true
		}
		p = p[i+4:]
	}
}

// hasHTMLEscapeCases are texts around an HTML escape: whole or cut at
// either end, after a backslash or not, with the letters of its search
// ("u00") without the backslash, among backslashes and other \u00 escapes.
func hasHTMLEscapeCases() []string {
	out := []string{"", `\`, `u00`, `\u00`, `\u002`, `\u0026`, `\u003c`, `\u003C`, `\u003e`, `\u003E`, `\u003d`, `\u0027`,
		`u0026`, `\\u0026`, `x\u0026`, `u0026\u0026`, `\u00\u0026`, `\u0\u0026`, `\u00u0026`, `\\\\\\\\u0026`, `uu00\u003e`,
		`\u00e9\u0026`, `\u00e9`, `\u0000\u0001`, `\"\"\"\u003c\"`, `"\u0026"`, `\u003c` + strings.Repeat(`\"`, 40),
		strings.Repeat(`\"a\":\"b\",`, 30) + `\u0026`, strings.Repeat(`u00\`, 20), strings.Repeat(`\u00`, 20) + `26`}
	var more []string
	for _, s := range out {
		for cut := 0; cut <= len(s); cut++ {
			more = append(more, s[:cut], s[cut:], "ab"+s[:cut], s[cut:]+"cd")
		}
	}
	return append(out, more...)
}

// TestHasHTMLEscapeMatchesIndex: the search for "u00" reports what the
// search for `\u00` did, on every case and on the reply of a search.
func TestHasHTMLEscapeMatchesIndex(t *testing.T) {
	reply := searchLikeReply(t)
	cases := append(hasHTMLEscapeCases(), reply, reply+`\u0026`, `\u0026`+reply, reply[:len(reply)/2]+`\u003e`+reply[len(reply)/2:])
	reached := map[bool]int{}
	for _, s := range cases {
		want := hasHTMLEscapeIndex([]byte(s))
		reached[want]++
		if got := hasHTMLEscape([]byte(s)); got != want {
			t.Errorf("%.120q: %v, want %v", s, got, want)
		}
	}
	if reached[true] == 0 || reached[false] == 0 {
		t.Fatalf("the cases reach only one answer: %v", reached)
	}
}

// FuzzHasHTMLEscape compares the two searches for any bytes.
//
//	go test -run '^$' -fuzz FuzzHasHTMLEscape -fuzztime 60s ./server/mcphttp/
func FuzzHasHTMLEscape(f *testing.F) {
	for _, s := range hasHTMLEscapeCases()[:30] {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := hasHTMLEscape(p), hasHTMLEscapeIndex(p); got != want {
			t.Errorf("%q: %v, want %v", p, got, want)
		}
	})
}

// BenchmarkHasHTMLEscape looks for an HTML escape in the reply of a search
// as the fast path writes it (~19 KB, a backslash before every quote of its
// text, no escape to find): the search for `\u00` against the one for "u00".
func BenchmarkHasHTMLEscape(b *testing.B) {
	reply := []byte(searchLikeReply(b))
	for _, tc := range []struct {
		name string
		has  func([]byte) bool
	}{{"index-backslash-u00", hasHTMLEscapeIndex}, {"index-u00", hasHTMLEscape}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				if tc.has(reply) {
					b.Fatal("found an escape")
				}
			}
		})
	}
}

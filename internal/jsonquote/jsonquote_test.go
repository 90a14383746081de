package jsonquote

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tridenttaxis/trident-mcp/contracts/relay"
)

// stdlib is s as encoding/json writes it: through an Encoder with
// SetEscapeHTML(false) (its newline cut), or with json.Marshal.
func stdlib(t testing.TB, s string, html bool) string {
	t.Helper()
	if html {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// check compares both quoters with encoding/json for s, each appended after
// a prefix that must stay as it was.
func check(t testing.TB, s string) {
	t.Helper()
	for _, html := range []bool{false, true} {
		want := stdlib(t, s, html)
		quote := Append
		if html {
			quote = AppendHTML
		}
		got := string(quote([]byte("x:"), s))
		if got != "x:"+want {
			t.Errorf("html %v, %q:\n got %q\nwant %q", html, s, got, "x:"+want)
		}
	}
}

// searchText is the text content of the search_rides sample: the JSON of
// a real search result, ~8 KB.
func searchText(t testing.TB) string {
	t.Helper()
	b, err := relay.FS.ReadFile("samples/search_rides.success.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample struct {
		Response struct {
			Result struct {
				Content []struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(b, &sample); err != nil || len(sample.Response.Result.Content) == 0 {
		t.Fatalf("the search_rides sample has no text: %v", err)
	}
	return sample.Response.Result.Content[0].Text
}

// interesting are strings each of whose bytes or runes is treated apart:
// every escape, every control byte, HTML characters, the separators,
// multi-byte runes and every kind of invalid UTF-8.
func interesting() []string {
	out := []string{
		"", "a", `"`, `\`, `\\`, `\"`, `"\"`, "\u007f", "&<>", "</script>", "a&b<c>d",
		"\b\f\n\r\t", "\u2028", "\u2029", "a\u2028b\u2029c", "\u2027\u202a", // neighbours of the separators
		"é", "東京", "😀", "\ufeff", "\ufffd", "\U0010ffff", "\u0080", "\u07ff", "\u0800", "\uffff", "\U00010000",
		// Invalid UTF-8: a lone continuation, a truncated sequence of each
		// length, an overlong encoding, a surrogate, beyond U+10FFFF, bytes
		// never valid, and a truncated sequence at the very end.
		"\x80", "\xbf", "\xc2", "\xe2\x80", "\xf0\x9f\x98", "\xc0\xaf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xfe", "\xff", "a\xffb",
		"\xe2\x80\xa8\xe2\x80", "abcdefg\xe2\x80", "abcdefgh\xe2", "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa",
	}
	// Escapes back to back, longer than any slack, so that the output
	// grows while being written.
	for _, e := range []string{`"`, `\`, "\x01", "\n", "\xff", "\u2028", "é", "&"} {
		out = append(out, strings.Repeat(e, 100), strings.Repeat(e+"abcdefgh", 40))
	}
	for b := range 256 {
		out = append(out, string([]byte{byte(b)}), "abcdefg"+string([]byte{byte(b)})+"hijklmnop")
	}
	for r := rune(0); r < 0x3000; r++ {
		out = append(out, string(r))
	}
	return out
}

// TestAppendMatchesEncodingJSON: for every interesting string, alone and at
// every offset within eight safe bytes (so that the word loop meets it in
// each byte of a word and in the tail), both quoters write what
// encoding/json writes.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range interesting() {
		check(t, s)
		for pad := 1; pad <= 9; pad++ {
			p := strings.Repeat("p", pad)
			check(t, p+s)
			check(t, s+p)
			check(t, p+s+p+s)
		}
	}
}

// TestAppendEveryLength: strings of every length 0..64 with a byte that
// needs escaping (or none) at every position, so that each length of the
// tail after the word loop is met, with and without work in it.
func TestAppendEveryLength(t *testing.T) {
	specials := []string{"", `"`, `\`, "\x00", "\x1f", "\n", "\x7f", "&", "é", "\xff", "\u2028", "\xe2\x80"}
	for n := 0; n <= 64; n++ {
		base := strings.Repeat("abcdefghij", 7)[:n]
		for _, sp := range specials {
			for at := 0; at <= n; at++ {
				check(t, base[:at]+sp+base[at:])
			}
		}
	}
}

// TestAppendSearchText: the text of a real search_rides result, and JSON
// texts of other shapes, quoted as encoding/json quotes them.
func TestAppendSearchText(t *testing.T) {
	text := searchText(t)
	if !strings.Contains(text, `"`) || !strings.Contains(text, "&") || !strings.ContainsFunc(text, func(r rune) bool { return r >= utf8.RuneSelf }) {
		t.Fatalf("the sample lost what makes it a test: %.80q", text)
	}
	check(t, text)
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	indented, _ := json.MarshalIndent(v, "", "\t")
	check(t, string(indented))
	check(t, text[:len(text)/3]+"\u2028\x01"+text[len(text)/3:len(text)/2]+"\xc3"+text[len(text)/2:])
}

// TestAppendKeepsDst: the quote is appended, in place when dst has room.
func TestAppendKeepsDst(t *testing.T) {
	dst := make([]byte, 2, 64)
	copy(dst, "ab")
	out := Append(dst, `x"y`)
	if string(out) != `ab"x\"y"` || &out[0] != &dst[0] {
		t.Errorf("got %q (moved: %v)", out, &out[0] != &dst[0])
	}
	text := searchText(t)
	out = make([]byte, 0, 2*len(text))
	if n := testing.AllocsPerRun(100, func() { out = Append(out[:0], text) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// TestAppendSpareCapacity: with room in dst, Append writes the result in
// place and nothing past it (a word is stored whole only where the result
// will be at least as long).
func TestAppendSpareCapacity(t *testing.T) {
	for _, s := range append(interesting()[:80], searchText(t), strings.Repeat("\x01", 100)) {
		buf := bytes.Repeat([]byte{'#'}, 6*len(s)+64) // the longest escape is 6 bytes
		out := Append(buf[:0], s)
		if &out[0] != &buf[0] {
			t.Fatalf("%.40q: Append moved a slice with room", s)
		}
		if last := bytes.LastIndexFunc(buf[len(out):], func(r rune) bool { return r != '#' }); last >= 0 {
			t.Errorf("%.40q: written %d bytes past the result", s, last+1)
		}
	}
}

// FuzzAppend compares both quoters with encoding/json for any string.
//
//	go test -run '^$' -fuzz FuzzAppend -fuzztime 60s ./internal/jsonquote/
func FuzzAppend(f *testing.F) {
	for _, s := range interesting()[:80] {
		f.Add(s)
	}
	f.Add(searchText(f)[:600])
	f.Fuzz(func(t *testing.T, s string) { check(t, s) })
}

// BenchmarkQuoteSearchText quotes the text of a real search_rides result
// (~8 KB of JSON) as the fast path writes it: encoding/json (an Encoder
// with SetEscapeHTML(false), as appendResult used to) against Append.
func BenchmarkQuoteSearchText(b *testing.B) { benchQuote(b, searchText(b)) }

// BenchmarkQuoteShort quotes a string of the size the other callers quote
// (an error message, a tool name or argument of a request): the numbers
// behind leaving them to encoding/json, inside whose reflection over the
// value around them the quoting is a small part.
func BenchmarkQuoteShort(b *testing.B) {
	benchQuote(b, `Invalid params: pickup.latitude: must be between -90 and 90, got "91.5"`)
}

// benchQuote quotes s with encoding/json (an Encoder with
// SetEscapeHTML(false)) and with Append.
func benchQuote(b *testing.B, s string) {
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			enc.Encode(s)
		}
	})
	b.Run("jsonquote", func(b *testing.B) {
		var buf []byte
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		for b.Loop() {
			buf = Append(buf[:0], s)
		}
	})
}

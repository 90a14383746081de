package htmlesc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// searchLikeReply is a reply shaped as the fast path writes search_rides'
// (~19 KB): a result's JSON as text, a backslash before every quote, then
// again as structuredContent, its links holding & as themselves.
func searchLikeReply() string {
	ride := map[string]any{"provider": "trident", "product": "saloon", "fare_pence": 2450, "eta": 240,
		"link": "https://e.test/book?pickup=55.86,-4.25&dropoff=55.95,-4.56&p=saloon"}
	rides := make([]map[string]any, 60)
	for i := range rides {
		rides[i] = ride
	}
	var raw strings.Builder
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{"rides": rides, "note": `fares "estimated"`})
	sc := strings.TrimSuffix(raw.String(), "\n")
	text, _ := json.Marshal(sc)
	return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + strings.ReplaceAll(string(text), `\u0026`, "&") +
		`}],"structuredContent":` + sc + `}}`
}

// hasIndex is Has as it was, searching for `\u00`:
// the reference the new one is compared with.
func hasIndex(p []byte) bool {
	for {
		i := bytes.Index(p, []byte(`\u00`))
		if i < 0 || i+5 >= len(p) {
			return false
		}
		if _, ok := escapes[[2]byte{p[i+4], p[i+5]}]; ok {
			return true
		}
		p = p[i+4:]
	}
}

// hasCases are texts around an HTML escape: whole or cut at
// either end, after a backslash or not, with the letters of its search
// ("u00") without the backslash, among backslashes and other \u00 escapes.
func hasCases() []string {
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

// TestHasMatchesIndex: the search for "u00" reports what the
// search for `\u00` did, on every case and on the reply of a search.
func TestHasMatchesIndex(t *testing.T) {
	reply := searchLikeReply()
	cases := append(hasCases(), reply, reply+`\u0026`, `\u0026`+reply, reply[:len(reply)/2]+`\u003e`+reply[len(reply)/2:])
	reached := map[bool]int{}
	for _, s := range cases {
		want := hasIndex([]byte(s))
		reached[want]++
		if got := Has([]byte(s)); got != want {
			t.Errorf("%.120q: %v, want %v", s, got, want)
		}
	}
	if reached[true] == 0 || reached[false] == 0 {
		t.Fatalf("the cases reach only one answer: %v", reached)
	}
}

// FuzzHas compares the two searches for any bytes.
//
//	go test -run '^$' -fuzz FuzzHas -fuzztime 60s ./internal/htmlesc/
func FuzzHas(f *testing.F) {
	for _, s := range hasCases()[:30] {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := Has(p), hasIndex(p); got != want {
			t.Errorf("%q: %v, want %v", p, got, want)
		}
	})
}

// BenchmarkHas looks for an HTML escape in the reply of a search
// as the fast path writes it (~19 KB, a backslash before every quote of its
// text, no escape to find): the search for `\u00` against the one for "u00".
func BenchmarkHas(b *testing.B) {
	reply := []byte(searchLikeReply())
	for _, tc := range []struct {
		name string
		has  func([]byte) bool
	}{{"index-backslash-u00", hasIndex}, {"index-u00", Has}} {
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

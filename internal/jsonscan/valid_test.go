package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}}}`,
	` {"a" : [1, -0, 0.5, -1.25e+10, 3E-2, 1e5, true, false, null, {}, [], "x\"\\\/\b\f\n\r\t\u00e9\uABCD"]} `,
	`0`, `-`, `-0`, `01`, `1.`, `.5`, `1e`, `1e+`, `+1`, `"\u12"`, `"\u12G4"`, `"\x"`, "\"\x01\"", "\"\xff\xfe\"", `"`,
	`[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{,}`, `[,1]`, `{"a":1}x`, `{"a":1} {}`, `tru`, `nul`, `falsex`, ``, ` `,
	`{"a":1 "b":2}`, `[1 2]`, `{1:2}`, "[\t\r\n]", "\u00a0{}", `{"a":[[[[[[[[[[]]]]]]]]]]}`,
	strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65) + strings.Repeat("]", 65),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70), strings.Repeat("[", 70) + strings.Repeat("]", 69),
}

// TestValidJSONMatchesStdlib: over the seeds and many mutations of them,
// Valid answers as json.Valid.
func TestValidJSONMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2026))
	alphabet := []byte("{}[]:,\" \t\n\r\\/bfnrtu0123456789abcdefABCDEF-+.eEtruefalsenull\x00\x1f\x7f\xff")
	valid := 0
	for _, seed := range validSeeds {
		for k := range 2000 {
			b := []byte(seed)
			if k > 0 {
				for range 1 + rng.IntN(3) {
					if len(b) == 0 {
						b = append(b, alphabet[rng.IntN(len(alphabet))])
						continue
					}
					i := rng.IntN(len(b))
					switch rng.IntN(3) {
					case 0:
						b = slices.Delete(b, i, i+1)
					case 1:
						b = slices.Insert(b, i, alphabet[rng.IntN(len(alphabet))])
					default:
						b[i] = alphabet[rng.IntN(len(alphabet))]
					}
				}
			}
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Fatalf("Valid(%q) = %v, json.Valid %v", b, got, want)
			} else if got {
				valid++
			}
		}
	}
	if valid < 5000 {
		t.Fatalf("only %d valid texts: the mutations do not exercise the accepting path", valid)
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	body := []byte(validSeeds[0])
	b.Run("Valid", func(b *testing.B) {
		for b.Loop() {
			Valid(body)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(body)
		}
	})
}

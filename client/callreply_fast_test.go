package client

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// mutations returns seeds and, for each, n copies with one to three bytes
// dropped, inserted or replaced by JSON's delimiters, escapes, controls and
// invalid UTF-8.
func mutations(seeds []string, n int, rng *rand.Rand) [][]byte {
	alphabet := []byte("{}[]:,\"\\ \t\nu0123456789abcdefABCDEF-+.eEtrufalsn\x00\x1f\x7f\xff\xed\xa0\xc3\xa9")
	var out [][]byte
	for _, s := range seeds {
		out = append(out, []byte(s))
		for range n {
			b := []byte(s)
			for range 1 + rng.IntN(3) {
				if len(b) == 0 {
					break
				}
				k := rng.IntN(len(b))
				switch rng.IntN(3) {
				case 0:
					b = slices.Delete(b, k, k+1)
				case 1:
					b = slices.Insert(b, k, alphabet[rng.IntN(len(alphabet))])
				default:
					b[k] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			out = append(out, b)
		}
	}
	return out
}

func fastSeeds(tb testing.TB) []string {
	raw, err := os.ReadFile("testdata/estimate_fare_reply.json")
	if err != nil {
		tb.Fatal(err)
	}
	return append([]string{string(raw),
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"fareGBP\":1,\"rate\":\"d\\u00e9y\\n\",\"x\":\"\\ud83d\\ude00\"}"}],"structuredContent":{"fareGBP":1e2,"rate":"d\u00e9y","note":"\t\"q\"","appliedRules":[],"alternatives":[null,{"vehicleType":"wav","fareGBP":-0.5}]},"_meta":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","result":{"content":[{"type":"text","text":"\ud800"}],"structuredContent":{"fareGBP":1,"FAREGBP":2}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\xff"}],"structuredContent":{"fareGBP":1e999,"alternatives":{}}},"_META":1}`,
		`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":1},"_meta":null,"_Meta":{}},"Id":1,"params":{}}`,
	}, callReplies...)
}

// checkFast holds fastCallReply to the one pass (unmarshalCallReply) on
// raw for each kind of out: whatever it answers is the one pass's answer,
// and what it declines it leaves untouched. It reports whether it answered
// into a typed out.
func checkFast(t *testing.T, raw []byte) bool {
	id := json.RawMessage("1")
	typed := false
	for _, out := range append(outs(), &mcptypes.EstimateFareOutput{}) {
		typ := reflect.TypeOf(out).Elem()
		l, ok := callReplyLayout(raw)
		if !ok {
			continue
		}
		call := callResult{out: out}
		gotFrame, gotOK := fastCallReply(raw, id, l, &call)
		if !gotOK {
			if !reflect.ValueOf(&call.res).Elem().IsZero() || !reflect.ValueOf(out).Elem().IsZero() || call.decoded {
				t.Fatalf("%q into %s: declined with result %+v, out %+v", raw, typ, call.res, out)
			}
			continue
		}
		wantOut := reflect.New(typ).Interface()
		want := callResult{out: wantOut}
		wantFrame, wantOK := unmarshalCallReply(raw, id, l, &want)
		if !wantOK {
			t.Fatalf("%q into %s: answered where the one pass refuses", raw, typ)
		}
		if diff := cmp.Diff(wantFrame, gotFrame, cmp.AllowUnexported(frame{})); diff != "" {
			t.Fatalf("%q into %s: frame (-one pass +fast):\n%s", raw, typ, diff)
		}
		if diff := cmp.Diff(want.res, call.res); diff != "" {
			t.Fatalf("%q into %s: result (-one pass +fast):\n%s", raw, typ, diff)
		}
		if want.decoded != call.decoded {
			t.Fatalf("%q into %s: decoded %v, one pass %v", raw, typ, call.decoded, want.decoded)
		}
		if diff := cmp.Diff(wantOut, out); diff != "" {
			t.Fatalf("%q into %s: out (-one pass +fast):\n%s", raw, typ, diff)
		}
		typed = typed || call.decoded && typ.Kind() == reflect.Struct
	}
	return typed
}

// TestFastCallReplyAgreesWithTheOnePass over valid and mutated replies;
// the common reply is answered into the generated output.
func TestFastCallReplyAgreesWithTheOnePass(t *testing.T) {
	seeds := fastSeeds(t)
	answered := 0
	for _, raw := range mutations(seeds, 1500, rand.New(rand.NewPCG(4, 2026))) {
		if checkFast(t, raw) {
			answered++
		}
	}
	if answered < 1000 {
		t.Errorf("only %d typed answers: the mutations do not exercise the fast path", answered)
	}
	var out mcptypes.EstimateFareOutput
	call := callResult{out: &out}
	l, _ := callReplyLayout([]byte(seeds[0]))
	if _, ok := fastCallReply([]byte(seeds[0]), json.RawMessage("1"), l, &call); !ok || !call.decoded || len(out.Alternatives) != 5 {
		t.Errorf("the common reply: answered %v, decoded %v, %d alternatives", ok, call.decoded, len(out.Alternatives))
	}
	if !decodeStrict(l.structured, new(mcptypes.EstimateFareOutput)) {
		t.Error("the common structuredContent is left to json.Unmarshal")
	}
}

func FuzzFastCallReply(f *testing.F) {
	for _, s := range fastSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFast(t, raw)
		checkCallReply(t, raw)
		checkPieces(t, raw)
	})
}

// checkPieces holds unquotePlain to encoding/json's
// string decoding and decodeStrict to json.Unmarshal, on b.
func checkPieces(t *testing.T, b []byte) {
	if !json.Valid(b) {
		return
	}
	if len(b) > 0 && b[0] == '"' {
		var want string
		err := json.Unmarshal(b, &want)
		if got, ok := unquotePlain(b); ok && (err != nil || got != want) {
			t.Fatalf("unquotePlain(%q) = %q, encoding/json %q, %v", b, got, want, err)
		}
	}
	for _, out := range []any{&fareOut{}, &mcptypes.EstimateFareOutput{}, new([]*string), new(int8), new(uint16), new(float32)} {
		typ := reflect.TypeOf(out).Elem()
		if !decodeStrict(b, out) {
			continue
		}
		want := reflect.New(typ).Interface()
		if err := json.Unmarshal(b, want); err != nil {
			t.Fatalf("decodeStrict(%q) into %s decoded what json.Unmarshal refuses: %v", b, typ, err)
		}
		if diff := cmp.Diff(want, out); diff != "" {
			t.Fatalf("decodeStrict(%q) into %s (-json.Unmarshal +strict):\n%s", b, typ, diff)
		}
	}
}

// TestPiecesAgreeWithEncodingJSON: the reply's parts and mutations of them.
func TestPiecesAgreeWithEncodingJSON(t *testing.T) {
	seeds := []string{`"a\"b\\c\/d\b\f\n\r\t\u00e9\u0000\u20ac"`, `"\ud83d\ude00"`, `"\ud800x"`, "\"\xff\"", `"plain £"`,
		`[1,-0,0.5e-3,1E+2,-1.5,127,128,-129,65536,1e40,"x",null,true,false]`, `[{"a":[]}]`, `{"fareGBP":1,"fAREGBP":2}`, `{"fareGBP":1,"fareGBP":2}`}
	for _, raw := range fastSeeds(t) {
		seeds = append(seeds, raw)
		if l, ok := callReplyLayout([]byte(raw)); ok && l.structured != nil {
			seeds = append(seeds, string(l.structured))
		}
	}
	for _, b := range mutations(seeds, 1000, rand.New(rand.NewPCG(5, 2026))) {
		checkPieces(t, b)
	}
}

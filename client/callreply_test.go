package client

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// previousDecodeCallReply is decodeCallReply as it was before it decoded
// structuredContent into out: the reference its one pass must agree with.
func previousDecodeCallReply(raw []byte, id json.RawMessage, into *Result) (*frame, bool) {
	r := struct {
		ID     json.RawMessage `json:"id,omitempty"`
		Method string          `json:"method,omitempty"`
		Params json.RawMessage `json:"params,omitempty"`
		Result *Result         `json:"result,omitempty"`
		Error  *RPCError       `json:"error,omitempty"`
	}{Result: into}
	if json.Unmarshal(raw, &r) != nil || r.Error != nil || r.Result != into || !sameID(r.ID, id) {
		*into = Result{}
		return nil, false
	}
	return &frame{ID: r.ID, Method: r.Method, Params: r.Params}, true
}

// fareOut is an out with the shapes a generated output has: numbers,
// strings, an optional member, a nested array of objects.
type fareOut struct {
	FareGBP      float64  `json:"fareGBP"`
	Rate         string   `json:"rate"`
	Note         *string  `json:"note,omitempty"`
	Rules        []string `json:"appliedRules"`
	Alternatives []struct {
		VehicleType string  `json:"vehicleType"`
		FareGBP     float64 `json:"fareGBP"`
	} `json:"alternatives"`
}

// outs are the zero outs each reply is decoded into.
func outs() []any {
	var anything any
	return []any{&fareOut{}, &anything, new(map[string]any), new(json.RawMessage)}
}

// checkCallReply holds decodeCallReply to the previous decoding on raw, for
// each kind of out: whatever it reads in one pass is what the reply, then
// the result, then structuredContent into out read; whatever it leaves to
// the general way it leaves untouched.
func checkCallReply(t *testing.T, raw []byte) {
	id := json.RawMessage("1")
	for _, out := range outs() {
		typ := reflect.TypeOf(out).Elem()
		var want Result
		wantFrame, wantOK := previousDecodeCallReply(raw, id, &want)
		call := callResult{out: out}
		gotFrame, gotOK := decodeCallReply(raw, id, &call)
		if !gotOK {
			if !reflect.ValueOf(&call.res).Elem().IsZero() || !reflect.ValueOf(out).Elem().IsZero() || call.decoded {
				t.Fatalf("%s into %s: left to the general way with result %+v, out %+v", raw, typ, call.res, out)
			}
			continue
		}
		if !wantOK {
			t.Fatalf("%s into %s: read in one pass where the previous decoding went the general way", raw, typ)
		}
		if diff := cmp.Diff(wantFrame, gotFrame, cmp.AllowUnexported(frame{})); diff != "" {
			t.Fatalf("%s into %s: frame (-previous +now):\n%s", raw, typ, diff)
		}
		if diff := cmp.Diff(want, call.res); diff != "" {
			t.Fatalf("%s into %s: result (-previous +now):\n%s", raw, typ, diff)
		}
		wantOut := reflect.New(typ).Interface()
		decodable := !want.IsError && len(want.StructuredContent) > 0 && string(want.StructuredContent) != "null" &&
			json.Unmarshal(want.StructuredContent, wantOut) == nil
		switch {
		case call.decoded && !decodable:
			t.Fatalf("%s into %s: decoded into out where Call would not have", raw, typ)
		case call.decoded:
			if diff := cmp.Diff(wantOut, out); diff != "" {
				t.Fatalf("%s into %s: out (-previous +now):\n%s", raw, typ, diff)
			}
		case !reflect.ValueOf(out).Elem().IsZero():
			t.Fatalf("%s into %s: out %+v written but not said to be decoded", raw, typ, out)
		}
	}
}

// callReplies are replies of every layout decodeCallReply tells apart.
var callReplies = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"£57.70 · 22 miles"}],"structuredContent":{"fareGBP":57.7,"rate":"day","appliedRules":["Airport pickup/drop fee +£10"],"alternatives":[{"vehicleType":"estate","fareGBP":57.7}]}}}`,
	" \n{ \"id\" : 1 , \"result\" : { \"structuredContent\" : { \"fareGBP\" : 1e1 , \"rate\" : \"a\\\"}]\\\\\" } , \"isError\" : false } , \"jsonrpc\" : \"2.0\" } \t",
	`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"fareGBP":1},"_meta":{"k":[1,{"x":"}"}]}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":null}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":[1,2]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":"text"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":"x"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":2,"note":null}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no"}],"structuredContent":{"fareGBP":3},"isError":true}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":3},"isError":null}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":3},"isError":"yes"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":4},"structuredContent":{"rate":"night"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"StructuredContent":{"fareGBP":4}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"ſtructuredContent":{"fareGBP":4}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structured\u0043ontent":{"fareGBP":4}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":4},"IsError":true}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":4}},"result":{"isError":true}}`,
	`{"jsonrpc":"2.0","id":1,"Result":{"structuredContent":{"fareGBP":4}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":4}},"error":{"code":-32603,"message":"boom"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":4}},"error":null}`,
	`{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"fareGBP":5}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[ {"type":"text","text":"a\"]}\u00e9","annotations":{"x":[]}} , null ,{"type":"image","data":"AA=="},{"TYPE":"text","Text":"b","text":"c"}],"structuredContent":{"fareGBP":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":null,"structuredContent":{"fareGBP":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[ ],"structuredContent":{"fareGBP":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[],"content":[{"type":"text","text":"x"}],"structuredContent":{"fareGBP":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"Content":[{"type":"text","text":"x"}],"structuredContent":{"fareGBP":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[5],"structuredContent":{"fareGBP":6}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":{},"structuredContent":{"fareGBP":6}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":5,"structuredContent":{"fareGBP":6}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":6},"content":[{"type":7}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":null}`,
	`{"jsonrpc":"2.0","id":1,"result":[]}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":1}}}x`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":1}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":1]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":}}`,
	`[]`, `null`, ``, `{`, `{"`, `{"a"`, `{"a":`, `{"a":1,}`, `{}`,
}

// decodeCallReply reads each layout as the previous decoding did, and the
// common reply in its one pass, structuredContent straight into out.
func TestDecodeCallReplyAgreesWithThePreviousDecoding(t *testing.T) {
	for _, raw := range callReplies {
		checkCallReply(t, []byte(raw))
	}
	for _, raw := range callReplies[:3] {
		call := callResult{out: &fareOut{}}
		if _, ok := decodeCallReply([]byte(raw), json.RawMessage("1"), &call); !ok || !call.decoded {
			t.Errorf("%s: one pass %v, into out %v; want both", raw, ok, call.decoded)
		}
	}
}

// An out that holds something already is merged into by json.Unmarshal,
// as Call always did: the one pass leaves it to Call.
func TestDecodeCallReplyLeavesAFilledOut(t *testing.T) {
	out := fareOut{Rate: "kept"}
	call := callResult{out: &out}
	if _, ok := decodeCallReply([]byte(callReplies[0]), json.RawMessage("1"), &call); !ok || call.decoded || out.Rate != "kept" || out.FareGBP != 0 {
		t.Errorf("one pass %v, into out %v, out %+v; want the reply read, out untouched", ok, call.decoded, out)
	}
}

// The parts of the reply a Result shares cannot grow into one another: an
// append to a block's Raw leaves structuredContent as it was.
func TestDecodeCallReplyPartsDoNotGrowIntoEachOther(t *testing.T) {
	call := callResult{out: &fareOut{}}
	if _, ok := decodeCallReply([]byte(callReplies[0]), json.RawMessage("1"), &call); !ok {
		t.Fatal("not read in one pass")
	}
	want := string(call.res.StructuredContent)
	_ = append(call.res.Content[0].Raw, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...)
	if got := string(call.res.StructuredContent); got != want {
		t.Errorf("structuredContent %s after an append to the block before it, want %s", got, want)
	}
}

func FuzzDecodeCallReply(f *testing.F) {
	for _, raw := range callReplies {
		f.Add([]byte(raw))
	}
	f.Fuzz(checkCallReply)
}

// BenchmarkDecodeCallReply reads the estimate_fare reply that
// BenchmarkEstimateFareInProcess gets (six classes, 1.1 KB) into a Result
// and the generated output: the previous way (the reply, then the result,
// then structuredContent into out) and in one pass.
func BenchmarkDecodeCallReply(b *testing.B) {
	raw, err := os.ReadFile("testdata/estimate_fare_reply.json")
	if err != nil {
		b.Fatal(err)
	}
	id := json.RawMessage("1")
	b.Run("previous", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var res Result
			var out mcptypes.EstimateFareOutput
			if _, ok := previousDecodeCallReply(raw, id, &res); !ok || json.Unmarshal(res.StructuredContent, &out) != nil {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out mcptypes.EstimateFareOutput
			call := callResult{out: &out}
			l, _ := callReplyLayout(raw)
			if _, ok := unmarshalCallReply(raw, id, l, &call); !ok || !call.decoded {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("one-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out mcptypes.EstimateFareOutput
			call := callResult{out: &out}
			if _, ok := decodeCallReply(raw, id, &call); !ok || !call.decoded {
				b.Fatal("not decoded")
			}
		}
	})
}

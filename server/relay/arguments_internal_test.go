package relay

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

func TestOutOfRange(t *testing.T) {
	type found struct {
		at string
		ok bool
	}
	for doc, want := range map[string]found{
		// Within float64, a subnormal, zeros with any exponent.
		`{"a":[1,-1.7e308,1e-320,-0e99999999999,0.0e-400]}`: {},
		`{"a":[1,1e309]}`:               {"/a/1", true},
		`{"a/b":{"c~":-1e99999999999}}`: {"/a~1b/c~0", true},
		`[1e-400]`:                      {"/0", true},
		`-0.0001e-99999999999`:          {"", true},
		// A zero whose exponent math/big cannot read.
		`{"z":[0E10000000000000000000]}`: {"/z/0", true},
		`-0e-9223372036854775809`:        {"", true},
		`0e+9223372036854775807`:         {},
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if at, ok := outOfRange(v, ""); (found{at, ok}) != want {
			t.Errorf("%s: got %q %v, want %q %v", doc, at, ok, want.at, want.ok)
		}
	}
}

// sampleArguments reads the arguments of a request in
// contracts/relay/samples: a real server's answers, so their options are
// as a search issued them.
func sampleArguments(tb testing.TB, file string) json.RawMessage {
	tb.Helper()
	b, err := relaycontracts.FS.ReadFile("samples/" + file)
	if err != nil {
		tb.Fatal(err)
	}
	var s struct {
		Request struct {
			Params struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		} `json:"request"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		tb.Fatal(err)
	}
	return s.Request.Params.Arguments
}

// compareTwo is compare_rides's sample with its first two options.
func compareTwo(tb testing.TB) json.RawMessage {
	tb.Helper()
	var args map[string]any
	if err := json.Unmarshal(sampleArguments(tb, "compare_rides.success.json"), &args); err != nil {
		tb.Fatal(err)
	}
	args["options"] = args["options"].([]any)[:2]
	b, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func testInputs(tb testing.TB) inputSchemas {
	tb.Helper()
	m, err := relaycontracts.Set.Manifest()
	if err != nil {
		tb.Fatal(err)
	}
	in, err := compileInputs(m)
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// BenchmarkDecode is decode on each tool's sample arguments, and on
// invalid_arguments's sample (three bad fields).
func BenchmarkDecode(b *testing.B) {
	in := testInputs(b)
	for _, tc := range []struct {
		name, tool string
		raw        json.RawMessage
		new        func() any
		refused    bool
	}{
		{"search_rides", "search_rides", sampleArguments(b, "search_rides.success.json"), func() any { return new(mcptypes.SearchRidesInput) }, false},
		{"search_rides_invalid", "search_rides", sampleArguments(b, "errors/invalid_arguments.json"), func() any { return new(mcptypes.SearchRidesInput) }, true},
		{"compare_rides_2", "compare_rides", compareTwo(b), func() any { return new(mcptypes.CompareRidesInput) }, false},
		{"resolve_ride", "resolve_ride", sampleArguments(b, "resolve_ride.success.json"), func() any { return new(mcptypes.ResolveRideInput) }, false},
		{"get_ride_booking_handoff", "get_ride_booking_handoff", sampleArguments(b, "get_ride_booking_handoff.success.json"), func() any { return new(mcptypes.GetRideBookingHandoffInput) }, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime(b)
			for b.Loop() {
				if r := in.decode(tc.tool, tc.raw, tc.new()); (r != nil) != tc.refused {
					b.Fatalf("refused %v: %+v", r != nil, r)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used, in nanoseconds: on a
// machine shared with other work, wall time per operation (ns/op) counts
// the time the benchmark waited for a core, CPU time (cpu-ns/op) less so.
// It includes the garbage collector's workers.
func cpuTime(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// inlineRefs inlines a bare local $ref, keeps one with a keyword beside it
// (which applies both) or naming no definition, stops at a definition's
// reference to itself, and writes numbers back as they were.
func TestInlineRefs(t *testing.T) {
	doc := `{"$defs":{"T":{"type":"object","properties":{"next":{"$ref":"#/$defs/T"}},"maximum":1.50}},` +
		`"properties":{"a":{"$ref":"#/$defs/T"},"b":{"$ref":"#/$defs/T","description":"beside"},"c":{"$ref":"#/$defs/Missing"}}}`
	got, err := inlineRefs([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	// Inside $defs, T's reference to itself is unrolled once, as in a.
	want := `{"$defs":{"T":{"maximum":1.50,"properties":{"next":{"maximum":1.50,"properties":{"next":{"$ref":"#/$defs/T"}},"type":"object"}},"type":"object"}},` +
		`"properties":{"a":{"maximum":1.50,"properties":{"next":{"$ref":"#/$defs/T"}},"type":"object"},"b":{"$ref":"#/$defs/T","description":"beside"},"c":{"$ref":"#/$defs/Missing"}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A name given twice is read as the validator read it, its last value,
// also for an object: encoding/json alone would merge the two objects and
// let the first's members past the schema.
func TestDecodeRepeatedNames(t *testing.T) {
	in := testInputs(t)
	const trip = `"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306}`
	var got mcptypes.SearchRidesInput
	if r := in.decode("search_rides", json.RawMessage(`{`+trip+`,"journey_context":{"party_size":99,"currency":"xx"},"journey_context":{}}`), &got); r != nil {
		t.Fatalf("refused: %+v", r.out)
	}
	if jc := got.JourneyContext; jc == nil || jc.PartySize != nil || jc.Currency != nil {
		t.Errorf("journey_context %+v; want the last copy, {}", jc)
	}
	// The other order is refused: the last copy is the one validated.
	if r := in.decode("search_rides", json.RawMessage(`{`+trip+`,"journey_context":{},"journey_context":{"party_size":99}}`), &got); r == nil || r.out.Status != mcptypes.RefusalStatusInvalidArguments {
		t.Errorf("a repeated journey_context whose last copy breaks the schema: %+v; want invalid_arguments", r)
	}
	// A repeated plain value: the last, as before.
	got = mcptypes.SearchRidesInput{}
	if r := in.decode("search_rides", json.RawMessage(`{`+trip+`,"party_size":3,"party_size":2}`), &got); r != nil || got.PartySize == nil || *got.PartySize != 2 {
		t.Errorf("party_size given twice: %+v, %v; want 2", r, got.PartySize)
	}
}

// membersIn counts a member per colon outside strings, escaped quotes
// included, as the decoded tree counts them.
func TestMembersIn(t *testing.T) {
	for _, text := range []string{
		`{}`, `[]`, `"a:b"`, `{"a":1}`, `{"a:\"b":{"c":[{"d":"e\\"},{"f:":":"}]}}`, `{"a":{"b":{"c":{}}},"d":[1,2,{"e":null}]}`,
	} {
		var doc any
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatal(text, err)
		}
		if got, want := membersIn([]byte(text)), membersOf(doc); got != want {
			t.Errorf("%s: membersIn %d, membersOf %d", text, got, want)
		}
	}
}

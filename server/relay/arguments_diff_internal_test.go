package relay

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/draft2020"
)

// The differential tests hold decode to what it answered before the input
// schemas were compiled with their references inlined (compileInputs
// before inlineRefs): the same refusal, word for word, for every bad input
// and the same decoded struct for every good one.

// inputsBefore compiles the input schemas as the contracts write them.
func inputsBefore(tb testing.TB) inputSchemas {
	tb.Helper()
	m, err := relaycontracts.Set.Manifest()
	if err != nil {
		tb.Fatal(err)
	}
	out := inputSchemas{}
	for _, t := range m.Tools {
		raw, err := t.Input()
		if err != nil {
			tb.Fatal(err)
		}
		s, err := draft2020.Compile(t.InputSchema, raw)
		if err != nil {
			tb.Fatal(err)
		}
		out[t.Name] = &inputSchema{Schema: s}
	}
	return out
}

// inputTypes makes the struct each tool decodes its arguments into.
var inputTypes = map[string]func() any{
	mcptypes.ToolSearchRides:           func() any { return new(mcptypes.SearchRidesInput) },
	mcptypes.ToolCompareRides:          func() any { return new(mcptypes.CompareRidesInput) },
	mcptypes.ToolResolveRide:           func() any { return new(mcptypes.ResolveRideInput) },
	mcptypes.ToolGetRideBookingHandoff: func() any { return new(mcptypes.GetRideBookingHandoffInput) },
	mcptypes.ToolContinueJourney:       func() any { return new(mcptypes.ContinueJourneyInput) },
}

// decodeDiff is what decoding raw for tool tells apart from before, or "".
func decodeDiff(before, after inputSchemas, tool string, raw []byte) string {
	vb, va := inputTypes[tool](), inputTypes[tool]()
	rb, ra := before.decode(tool, raw, vb), after.decode(tool, raw, va)
	switch {
	case (rb == nil) != (ra == nil):
		return fmt.Sprintf("refused before %v, after %v", rb, ra)
	case rb == nil && !reflect.DeepEqual(vb, va):
		return fmt.Sprintf("decoded before %+v, after %+v", vb, va)
	case rb != nil && comparable(rb) != comparable(ra):
		return fmt.Sprintf("refusal before\n%s\nafter\n%s", comparable(rb), comparable(ra))
	}
	return ""
}

// comparable is a refusal as text, with what decode leaves to map order
// made canonical: the extra member names in one additionalProperties
// reason (the validator lists them as it meets them), and which of several
// out-of-range numbers is named (outOfRange takes the first it meets).
func comparable(r *refusal) string {
	out := r.out
	out.Fields = slices.Clone(out.Fields)
	for i, f := range out.Fields {
		if f.Reason == "number out of range" {
			return "number out of range"
		}
		out.Fields[i].Reason = canonicalNames(f.Reason)
	}
	out.Message = canonicalNames(out.Message)
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	cause := ""
	if r.cause != nil {
		cause = canonicalNames(r.cause.Error())
	}
	return string(b) + "\ncause: " + cause
}

var (
	additional = regexp.MustCompile(`additionalProperties ((?:'(?:[^'\\]|\\.)*'(?:, )?)+) not allowed`)
	quoted     = regexp.MustCompile(`'(?:[^'\\]|\\.)*'`)
)

func canonicalNames(s string) string {
	return additional.ReplaceAllStringFunc(s, func(m string) string {
		names := quoted.FindAllString(m, -1)
		slices.Sort(names)
		return "additionalProperties " + strings.Join(names, ", ") + " not allowed"
	})
}

// sampleCalls are each tool's sample arguments, good ones and the bad
// ones the tests name, by tool.
func sampleCalls(tb testing.TB) map[string][][]byte {
	tb.Helper()
	search := sampleArguments(tb, "search_rides.success.json")
	compare := compareTwo(tb)
	option := func(edit func(m map[string]any)) []byte {
		var args map[string]any
		if err := json.Unmarshal(sampleArguments(tb, "resolve_ride.success.json"), &args); err != nil {
			tb.Fatal(err)
		}
		edit(args["option"].(map[string]any))
		b, err := json.Marshal(args)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	lines := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, v := range s {
			out[i] = []byte(v)
		}
		return out
	}
	return map[string][][]byte{
		mcptypes.ToolSearchRides: append([][]byte{search, sampleArguments(tb, "search_rides.partial.json"), sampleArguments(tb, "search_rides.handoff_available.json"), sampleArguments(tb, "errors/invalid_arguments.json")}, lines(
			// TestInvalidArguments, TestHostileCoordinates, FuzzSearchInput's seeds.
			`{"pickup":{"latitude":90.5,"longitude":0}}`, `{"dropoff":{"latitude":0,"longitude":-180.1}}`, `{"pickup":{"latitude":1}}`,
			`{"party_size":9}`, `{"party_size":0}`, `{"party_size":2.5}`, `{"limit":13}`, `{"limit":0}`, `{"currency":"gbp"}`, `{"currency":"GBPX"}`,
			`{"vehicle":"saloon"}`, `{"vehicle":"saloon","colour":"red","wheels":4}`, `{"providers":["uber","made_up"]}`,
			`{"journey_context":{"start_date":"2026-13-01"}}`, `{"journey_context":{"origin_airport":"gla"}}`,
			`{"pickup":{"latitude":1e999,"longitude":0}}`, `{"pickup":{"latitude":-1e400,"longitude":1e400}}`, `{"pickup":{"latitude":1e-99999999999,"longitude":0e99999999}}`,
			`{"pickup":{"latitude":"56.0","longitude":null}}`, `{"pickup":{"latitude":[56],"longitude":{}}}`, `{"pickup":{"latitude":-0e99999999999,"longitude":0}}`,
			`{"limit":12.0}`, `{"limit":9223372036854775808}`, `{"providers":["uber","uber"]}`, `{"currency":"GB\u0000"}`,
			`{"context":{"session_id":"a","journey_id":"b","intent_id":"c","request_id":"d","verification":{"kid":"k1","alg":"HS256","signature":"x"}}}`,
			`{"context":{"session_id":"","verification":{"alg":"none","extra":1}}}`, `{"journey_context":{"start_date":"2026-02-30"}}`,
			`{"destination_city":"`+strings.Repeat("x", 101)+`"}`, `{"context":`+strings.Repeat(`{"a":`, 50)+"1"+strings.Repeat("}", 50)+`}`,
			`{"journey_context":`+strings.Repeat("[", 50)+strings.Repeat("]", 50)+`}`,
			`{}`, `null`, ``, ` `, `[]`, `"x"`, `1`, `{"a":1} trailing`, `{"party_size":2,"party_size":3}`, `{`, `{"pickup":}`,
		)...),
		mcptypes.ToolCompareRides: append([][]byte{compare, sampleArguments(tb, "compare_rides.success.json")}, lines(
			`{"options":[]}`, `{"options":[],"sort_by":"commission"}`, `{"options":{}}`, `{"options":[{},{}]}`,
			`{"options":[`+strings.Repeat(`{},`, 60)+`{}]}`,
		)...),
		mcptypes.ToolResolveRide: {
			sampleArguments(tb, "resolve_ride.success.json"), sampleArguments(tb, "resolve_ride.partial.json"), []byte(`{}`),
			// TestOptionNotAsIssuedIsInvalidOption's options.
			option(func(m map[string]any) { delete(m, "verification") }),
			option(func(m map[string]any) { m["verification"] = map[string]any{} }),
			option(func(m map[string]any) { m["verification"].(map[string]any)["alg"] = "none" }),
			option(func(m map[string]any) { m["discount"] = 10 }),
			option(func(m map[string]any) { delete(m, "price") }),
			option(func(m map[string]any) { delete(m["price"].(map[string]any), "currency") }),
			option(func(m map[string]any) { m["duration_seconds"] = 1.5; m["issued_at"] = "yesterday" }),
			option(func(m map[string]any) { m["distance_meters"] = json.Number("1e30") }),
			option(func(m map[string]any) { m["eta_seconds"] = json.Number("60.0") }),
		},
		mcptypes.ToolGetRideBookingHandoff: append([][]byte{sampleArguments(tb, "get_ride_booking_handoff.success.json"), sampleArguments(tb, "get_ride_booking_handoff.provider_entry.json")}, lines(
			`{}`, `{"provider":"uber","option":{}}`, `{"provider":"made_up"}`, `{"provider":"uber","search":{"pickup":{"latitude":91,"longitude":0}}}`,
		)...),
		mcptypes.ToolContinueJourney: append([][]byte{sampleArguments(tb, "continue_journey.success.json")}, lines(
			`{"journey_id":"jny_1","to_connector":"stays"}`, `{"journey_id":"","to_connector":"x","journey_context":{"start_date":"2026-12-10","end_date":"2026-12-1"}}`,
		)...),
	}
}

// mutations are doc changed in one place each: every member dropped, every
// value replaced by one of a set of others, a member added to every object.
func mutations(tb testing.TB, doc []byte) [][]byte {
	tb.Helper()
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil
	}
	replacements := []any{nil, true, "", "x", "2026-13-01T00:00:00Z", json.Number("0"), json.Number("-1"), json.Number("1.5"),
		json.Number("1e400"), json.Number("99999999999999999999"), []any{}, map[string]any{}, strings.Repeat("y", 300)}
	var out [][]byte
	emit := func() {
		b, err := json.Marshal(root)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			v["zz_added"] = json.Number("1")
			emit()
			delete(v, "zz_added")
			for _, k := range slices.Sorted(maps.Keys(v)) {
				was := v[k]
				delete(v, k)
				emit()
				for _, r := range replacements {
					v[k] = r
					emit()
				}
				v[k] = was
				walk(was)
			}
		case []any:
			for i, was := range v {
				for _, r := range replacements {
					v[i] = r
					emit()
				}
				v[i] = was
				walk(was)
			}
		}
	}
	walk(root)
	return out
}

func TestDecodeAsBefore(t *testing.T) {
	before, after := inputsBefore(t), testInputs(t)
	n := 0
	for tool, calls := range sampleCalls(t) {
		for _, raw := range calls {
			docs := [][]byte{raw}
			if len(raw) < 4<<10 { // compare_rides's sample of six options only as it is: its mutations take seconds
				docs = append(docs, mutations(t, raw)...)
			}
			for _, doc := range docs {
				n++
				if d := decodeDiff(before, after, tool, doc); d != "" {
					t.Errorf("%s %s: %s", tool, doc, d)
				}
			}
		}
	}
	t.Logf("%d calls decoded as before", n)
}

// FuzzDecodeAsBefore decodes arbitrary arguments for every tool as before.
func FuzzDecodeAsBefore(f *testing.F) {
	for _, calls := range sampleCalls(f) {
		for _, raw := range calls {
			f.Add(raw)
		}
	}
	before, after := inputsBefore(f), testInputs(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for tool := range inputTypes {
			if d := decodeDiff(before, after, tool, raw); d != "" {
				t.Errorf("%s %s: %s", tool, raw, d)
			}
		}
	})
}

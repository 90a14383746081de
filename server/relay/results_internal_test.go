package relay

import (
	"bytes"
	"encoding/json"
	"testing"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// sampleResult is the structuredContent of a file of contracts/relay/samples.
func sampleResult(tb testing.TB, file string) json.RawMessage {
	tb.Helper()
	b, err := relaycontracts.FS.ReadFile("samples/" + file)
	if err != nil {
		tb.Fatal(err)
	}
	var s struct {
		Response struct {
			Result struct {
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		tb.Fatal(err)
	}
	return s.Response.Result.StructuredContent
}

// marshalStdlib is marshal as it was before the generated encoders.
func marshalStdlib(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestMarshalSamples: marshal writes encoding/json's bytes for every
// tool's sample result, through the generated encoder or not.
func TestMarshalSamples(t *testing.T) {
	for file, out := range map[string]any{
		"search_rides.success.json":             new(mcptypes.SearchRidesOutput),
		"search_rides.partial.json":             new(mcptypes.SearchRidesOutput),
		"search_rides.handoff_available.json":   new(mcptypes.SearchRidesOutput),
		"compare_rides.success.json":            new(mcptypes.CompareRidesOutput),
		"resolve_ride.success.json":             new(mcptypes.ResolveRideOutput),
		"get_ride_booking_handoff.success.json": new(mcptypes.GetRideBookingHandoffOutput),
		"continue_journey.success.json":         new(mcptypes.ContinueJourneyOutput),
		"errors/invalid_option.json":            new(mcptypes.Refusal),
	} {
		if err := json.Unmarshal(sampleResult(t, file), out); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, v := range []any{out, pointee(out)} {
			got, err := marshal(v)
			if want := marshalStdlib(v); err != nil || got != string(want) {
				t.Errorf("%s: %T: marshal = %s, %v\nwant %s", file, v, got, err, want)
			}
		}
	}
	// The error is encoding/json's, wrapped as before.
	if _, err := marshal(map[string]any{"c": make(chan int)}); err == nil || err.Error() != "relay: encoding the result: json: unsupported type: chan int" {
		t.Errorf("marshal(chan) error %v", err)
	}
}

func pointee(p any) any {
	switch p := p.(type) {
	case *mcptypes.SearchRidesOutput:
		return *p
	case *mcptypes.CompareRidesOutput:
		return *p
	case *mcptypes.ResolveRideOutput:
		return *p
	case *mcptypes.GetRideBookingHandoffOutput:
		return *p
	case *mcptypes.ContinueJourneyOutput:
		return *p
	case *mcptypes.Refusal:
		return *p
	}
	panic("pointee: add the type")
}

// BenchmarkMarshal is the search_rides sample's result (~8 KB, six
// options) through marshal, as result encodes every search.
func BenchmarkMarshal(b *testing.B) {
	var out mcptypes.SearchRidesOutput
	if err := json.Unmarshal(sampleResult(b, "search_rides.success.json"), &out); err != nil {
		b.Fatal(err)
	}
	got, err := marshal(out)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(got)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}

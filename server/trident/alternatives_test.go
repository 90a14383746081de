package trident_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// structured is a tools/call reply's structuredContent as estimate_fare's
// output type, failing the test on a JSON-RPC error or a tool refusal.
func structured(t *testing.T, reply map[string]any) mcptypes.EstimateFareOutput {
	t.Helper()
	res, ok := reply["result"].(map[string]any)
	if !ok || res["isError"] == true {
		t.Fatalf("not a result: %v", reply)
	}
	raw, err := json.Marshal(res["structuredContent"])
	if err != nil {
		t.Fatal(err)
	}
	var out mcptypes.EstimateFareOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAlternativesPriceEachClassAsItsOwnCall: each quote in alternatives is
// the quote a call for that class alone gets (fare, band, surcharge and
// rules), on the main quote's route, in the order asked, for trips that
// reach each tariff rule (an airport, the day and night bands, a pre-booked
// departure, meet & greet, a local 8-seater hire).
func TestAlternativesPriceEachClassAsItsOwnCall(t *testing.T) {
	ts := start(t, nil)
	var all []string
	for _, v := range mcptypes.EstimateFareInputAlternativeVehicleTypesItemValues {
		all = append(all, string(v))
	}
	// Every class, the main one among them, in reverse schema order: each
	// is answered where it was asked.
	asked := make([]string, 0, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		asked = append(asked, all[i])
	}
	askedJSON, _ := json.Marshal(asked)
	trips := []string{
		`"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport"`,
		`"pickup":"Glasgow Airport","dropoff":"Helensburgh Central Station","meetAndGreet":true`,
		`"pickup":"Helensburgh Central Station","dropoff":"Dumbarton","departAt":"2025-03-12T23:30:00Z"`,
		`"pickup":"56.0036,-4.7346","dropoff":"56.0100,-4.7700"`,
	}
	for _, trip := range trips {
		t.Run(trip, func(t *testing.T) {
			got := structured(t, call(t, ts.URL, "estimate_fare", fmt.Sprintf(`{%s,"vehicleType":"executive","alternativeVehicleTypes":%s}`, trip, askedJSON)))
			alone := structured(t, call(t, ts.URL, "estimate_fare", fmt.Sprintf(`{%s,"vehicleType":"executive"}`, trip)))
			main := got
			main.Alternatives = nil
			if d := cmp.Diff(alone, main); d != "" {
				t.Errorf("the main quote differs from the call without alternatives (-alone +with):\n%s", d)
			}
			if len(got.Alternatives) != len(asked) {
				t.Fatalf("%d alternatives, want %d: %+v", len(got.Alternatives), len(asked), got.Alternatives)
			}
			for i, vt := range asked {
				one := structured(t, call(t, ts.URL, "estimate_fare", fmt.Sprintf(`{%s,"vehicleType":%q}`, trip, vt)))
				want := mcptypes.AlternativeQuote{
					VehicleType:         mcptypes.AlternativeQuoteVehicleType(vt),
					FareGBP:             one.FareGBP,
					Rate:                mcptypes.AlternativeQuoteRate(one.Rate),
					AirportSurchargeGBP: one.AirportSurchargeGBP,
					AppliedRules:        one.AppliedRules,
				}
				if d := cmp.Diff(want, got.Alternatives[i]); d != "" {
					t.Errorf("alternative %d (%s) differs from its own call (-alone +alternative):\n%s", i, vt, d)
				}
				if one.DistanceMiles != got.DistanceMiles || one.DurationSeconds != got.DurationSeconds || one.TariffVersion != got.TariffVersion {
					t.Errorf("%s alone is routed %v mi/%v s (%s), the call with alternatives %v mi/%v s (%s)", vt, one.DistanceMiles, one.DurationSeconds, one.TariffVersion, got.DistanceMiles, got.DurationSeconds, got.TariffVersion)
				}
			}
		})
	}
}

// TestAlternativesAbsentUnlessAsked: a call as the specification documents
// it gets no alternatives field, so its reply is the specification's.
func TestAlternativesAbsentUnlessAsked(t *testing.T) {
	ts := start(t, nil)
	reply := call(t, ts.URL, "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive"}`)
	sc := reply["result"].(map[string]any)["structuredContent"].(map[string]any)
	if _, ok := sc["alternatives"]; ok {
		t.Errorf("alternatives sent unasked: %v", sc)
	}
	text := reply["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if strings.Contains(text, "Also priced") {
		t.Errorf("text names alternatives unasked: %q", text)
	}
}

// TestAlternativesText: the text content names each alternative's fare
// after the main quote's line, a class asked twice twice.
func TestAlternativesText(t *testing.T) {
	ts := start(t, nil)
	reply := call(t, ts.URL, "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","alternativeVehicleTypes":["saloon","mpv","saloon"]}`)
	text := reply["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	want := "£62.40 · 22 miles · 33 min · day tariff\nAlso priced: saloon £57.70 · mpv £80.60 · saloon £57.70"
	if text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
}

// TestAlternativesRefusedArguments: a class outside the enum, an empty
// list, more than nine classes and a non-array are -32602 in Zod's words,
// before any geocoding (an unknown pickup would otherwise be the failure).
func TestAlternativesRefusedArguments(t *testing.T) {
	ts := start(t, nil)
	ten := `["saloon","saloon","saloon","saloon","saloon","saloon","saloon","saloon","saloon","saloon"]`
	for _, tc := range []struct{ alts, want string }{
		{`["bus"]`, "Invalid params: alternativeVehicleTypes.0: Invalid enum value. Expected 'saloon' | 'estate' | 'executive' | 'luxury' | '5seater' | '6seater' | '7seater' | 'mpv' | 'wav', received 'bus'"},
		{`[]`, "Invalid params: alternativeVehicleTypes: Array must contain at least 1 element(s)"},
		{ten, "Invalid params: alternativeVehicleTypes: Array must contain at most 9 element(s)"},
		{`"mpv"`, "Invalid params: alternativeVehicleTypes: Expected array, received string"},
	} {
		t.Run(tc.alts, func(t *testing.T) {
			reply := call(t, ts.URL, "estimate_fare", `{"pickup":"Nowhere At All","dropoff":"Glasgow Airport","alternativeVehicleTypes":`+tc.alts+`}`)
			e, ok := reply["error"].(map[string]any)
			if !ok {
				t.Fatalf("no JSON-RPC error: %v", reply)
			}
			if e["code"] != float64(-32602) || e["message"] != tc.want {
				t.Errorf("error = %v %q, want -32602 %q", e["code"], e["message"], tc.want)
			}
		})
	}
}

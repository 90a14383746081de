package validate

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// Odd structs for DecodeNormal: each field is one json.Unmarshal treats in
// its own way, which DecodeNormal must leave to it or repeat exactly.
type (
	upper     string
	textual   string
	caseApart struct{ PICKUP string } // matched case aside
	quoted    struct {
		Pickup       string `json:"pickup,string"`
		MeetAndGreet bool   `json:"meetAndGreet"`
	}
	numberField struct {
		Pickup json.Number `json:"pickup"`
	}
	textField struct {
		Pickup  textual `json:"pickup"`
		Dropoff *upper  `json:"dropoff"`
	}
	intField struct {
		Pickup       int    `json:"pickup"`
		Dropoff      string `json:"dropoff"`
		MeetAndGreet string `json:"meetAndGreet"`
	}
	embedded struct {
		caseApart
		Dropoff string `json:"dropoff"`
	}
	hidden struct {
		pickup       string
		Pickup       string `json:"-"`
		Dropoff      **string
		MeetAndGreet any `json:"meetAndGreet"`
	}
	prefilled struct {
		Pickup       *string `json:"pickup"`
		MeetAndGreet *bool   `json:"meetAndGreet"`
		VehicleType  string  `json:"vehicleType"`
		Unrelated    string  `json:"passengers"`
		// A slice json.Unmarshal reuses the array of: left to it.
		AlternativeVehicleTypes []string `json:"alternativeVehicleTypes"`
	}
	stringsField struct {
		Pickup                  string    `json:"pickup"`
		Dropoff                 string    `json:"dropoff"`
		AlternativeVehicleTypes *[]string `json:"alternativeVehicleTypes"`
	}
	textItems struct {
		AlternativeVehicleTypes []textual `json:"alternativeVehicleTypes"`
	}
	stringArray struct {
		AlternativeVehicleTypes [2]string `json:"alternativeVehicleTypes"`
	}
	scalarForArray struct {
		AlternativeVehicleTypes string `json:"alternativeVehicleTypes"`
	}
	oddTag struct {
		Pickup string `json:"pick'up"`
	}
)

func (t *textual) UnmarshalText(b []byte) error { *t = textual("text:" + string(b)); return nil }

// newTargets returns a fresh target of each kind, the generated input
// types first.
func newTargets() []any {
	s := "already"
	tr := true
	return []any{
		new(mcptypes.EstimateFareInput), new(mcptypes.StartBookingInput), new(mcptypes.GetServiceInfoInput),
		new(caseApart), new(quoted), new(numberField), new(textField), new(intField), new(embedded), new(hidden),
		&prefilled{Pickup: &s, MeetAndGreet: &tr}, &prefilled{AlternativeVehicleTypes: []string{"x", "y", "z"}}, new(oddTag), new(map[string]any), new(string),
		new(stringsField), new(textItems), new(stringArray), new(scalarForArray),
	}
}

// decodeArgs are arguments in and near normal form for every tool.
func decodeArgs(rng *rand.Rand, n int) []string {
	out := slices.Clone(strictSeeds)
	places := []string{"Helensburgh Central Station", "Glasgow Airport", "G84 7HL", "56.0036,-4.7346", "ab", "déf", strings.Repeat("x", 201), "12", "Q\u2028R", "a&b<c>"}
	vehicles := []string{"saloon", "estate", "executive", "luxury", "mpv", "wav", "limo"}
	for range n {
		var members []string
		add := func(k, v string) { members = append(members, `"`+k+`":`+v) }
		if rng.IntN(10) > 0 {
			add("pickup", `"`+places[rng.IntN(len(places))]+`"`)
		}
		if rng.IntN(10) > 0 {
			add("dropoff", `"`+places[rng.IntN(len(places))]+`"`)
		}
		if rng.IntN(5) > 0 {
			add("vehicleType", `"`+vehicles[rng.IntN(len(vehicles))]+`"`)
		}
		switch rng.IntN(4) {
		case 0:
			add("meetAndGreet", "true")
		case 1:
			add("meetAndGreet", "false")
		case 2:
			add("meetAndGreet", `"yes"`)
		}
		if rng.IntN(2) == 0 {
			var items []string
			classes := []string{"saloon", "estate", "executive", "luxury", "5seater", "6seater", "7seater", "mpv", "wav"}
			for range rng.IntN(11) {
				c := classes[rng.IntN(len(classes))]
				if rng.IntN(30) == 0 {
					c = "limo"
				}
				items = append(items, `"`+c+`"`)
			}
			sep := []string{",", " , ", ",\n"}[rng.IntN(3)]
			switch rng.IntN(8) {
			case 0:
				add("alternativeVehicleTypes", `"saloon"`)
			case 1:
				add("alternativeVehicleTypes", `["saloon",true]`)
			case 2:
				add("alternativeVehicleTypes", `["sal\u006fon"]`)
			case 3:
				add("alternativeVehicleTypes", `[["saloon"]]`)
			default:
				add("alternativeVehicleTypes", "[ "+strings.Join(items, sep)+" ]")
			}
		}
		switch rng.IntN(4) {
		case 0:
			add("departAt", `"2025-12-25T10:00:00Z"`)
		case 1:
			add("passengers", []string{"4", "4.0", "9", `"4"`}[rng.IntN(4)])
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		out = append(out, "{"+strings.Join(members, ",")+"}")
	}
	return out
}

// TestDecodeNormal: whenever DecodeNormal decodes, Validate succeeds and
// json.Unmarshal of its result gives the same value; whenever it does not,
// the target is untouched. The common calls of estimate_fare and
// start_booking are decoded.
func TestDecodeNormal(t *testing.T) {
	schemas := contractSchemas(t)
	rng := rand.New(rand.NewPCG(9, 2026))
	decoded := map[string]int{} // by target type, the decodings that set a field
	for _, args := range decodeArgs(rng, 5000) {
		for _, s := range schemas {
			for i, got := range newTargets() {
				zero := reflect.ValueOf(got).Elem().Interface()
				if decodeOnce(t, s, args, got, newTargets()[i]) && !reflect.DeepEqual(reflect.ValueOf(got).Elem().Interface(), zero) {
					decoded[reflect.TypeOf(got).String()]++
					if in, ok := got.(*mcptypes.EstimateFareInput); ok && len(in.AlternativeVehicleTypes) > 0 {
						decoded["alternatives"]++
					}
				}
			}
		}
	}
	for _, typ := range []string{"*mcptypes.EstimateFareInput", "*mcptypes.StartBookingInput", "*validate.prefilled", "*validate.stringsField", "alternatives"} {
		if decoded[typ] < 100 {
			t.Errorf("%s decoded %d times: the test does not exercise it (%v)", typ, decoded[typ], decoded)
		}
	}
	for _, typ := range []string{"*validate.caseApart", "*validate.quoted", "*validate.numberField", "*validate.textField", "*validate.embedded", "*validate.hidden", "*validate.oddTag", "*map[string]interface {}", "*string", "*validate.textItems", "*validate.stringArray", "*validate.scalarForArray"} {
		if decoded[typ] > 0 {
			t.Errorf("%s decoded by DecodeNormal %d times, which should leave it to json.Unmarshal", typ, decoded[typ])
		}
	}
}

// decodeOnce compares DecodeNormal into got with Validate and json.Unmarshal
// into want (a fresh copy of got), and reports whether DecodeNormal decoded.
func decodeOnce(t *testing.T, s *Schema, args string, got, want any) bool {
	t.Helper()
	before := reflect.ValueOf(got).Elem().Interface()
	if !s.DecodeNormal(json.RawMessage(args), got) {
		if after := reflect.ValueOf(got).Elem().Interface(); !reflect.DeepEqual(after, before) {
			t.Fatalf("DecodeNormal(%s, %T) refused but changed the target: %#v", args, got, after)
		}
		return false
	}
	norm, err := s.Validate(json.RawMessage(args))
	if err != nil {
		t.Fatalf("DecodeNormal(%s, %T) decoded what Validate refuses: %v", args, got, err)
	}
	if err := json.Unmarshal(norm, want); err != nil {
		t.Fatalf("DecodeNormal(%s, %T) decoded what json.Unmarshal refuses: %v", args, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeNormal(%s) = %#v, json.Unmarshal %#v", args, got, want)
	}
	return true
}

// FuzzDecodeNormal is TestDecodeNormal for the fuzzer.
func FuzzDecodeNormal(f *testing.F) {
	for _, s := range decodeArgs(rand.New(rand.NewPCG(1, 1)), 50) {
		f.Add(s)
	}
	schemas := contractSchemas(f)
	f.Fuzz(func(t *testing.T, args string) {
		for _, s := range schemas {
			for i, got := range newTargets() {
				decodeOnce(t, s, args, got, newTargets()[i])
			}
		}
	})
}

// TestDecodeNormalConcurrent: calls racing to build a type's plan (go test
// -race) all decode.
func TestDecodeNormalConcurrent(t *testing.T) {
	s := contractSchemas(t)[0]
	const args = `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var in mcptypes.EstimateFareInput
			if !s.DecodeNormal(json.RawMessage(args), &in) || in.Dropoff != "Glasgow Airport" || *in.VehicleType != "executive" || *in.MeetAndGreet {
				t.Errorf("DecodeNormal(%s) = %v", args, in)
			}
		})
	}
	wg.Wait()
}

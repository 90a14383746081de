package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/validate"
)

func mustCompile(t testing.TB, path string) *validate.Schema {
	t.Helper()
	b, err := tridentcontracts.Set.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := validate.Compile(b)
	if err != nil {
		t.Fatalf("Compile(%s): %v", path, err)
	}
	return s
}

func TestValidateReasons(t *testing.T) {
	fare := mustCompile(t, "schemas/estimate_fare.input.json")
	booking := mustCompile(t, "schemas/start_booking.input.json")
	info := mustCompile(t, "schemas/get_service_info.input.json")
	long := strings.Repeat("a", 201)
	tests := []struct {
		name    string
		schema  *validate.Schema
		args    string
		wantErr string // "" means valid
	}{
		{"seed example", fare, `{"pickup":"ab","dropoff":"Glasgow Airport"}`, "Invalid params: pickup: String must contain at least 3 character(s)"},
		{"missing pickup", fare, `{"dropoff":"Glasgow Airport"}`, "Invalid params: pickup: Required"},
		{"missing both reports first in schema order", fare, `{}`, "Invalid params: pickup: Required"},
		{"null arguments count as empty", fare, `null`, "Invalid params: pickup: Required"},
		{"absent arguments count as empty", fare, ``, "Invalid params: pickup: Required"},
		{"dropoff after a valid pickup", fare, `{"pickup":"Helensburgh","dropoff":1}`, "Invalid params: dropoff: Expected string, received number"},
		{"too long", fare, `{"pickup":"` + long + `","dropoff":"Glasgow Airport"}`, "Invalid params: pickup: String must contain at most 200 character(s)"},
		{"length counts characters not bytes", fare, `{"pickup":"ééé","dropoff":"Glasgow Airport"}`, ""},
		{"null is a type error", fare, `{"pickup":null,"dropoff":"Glasgow Airport"}`, "Invalid params: pickup: Expected string, received null"},
		{"enum", fare, `{"pickup":"abc","dropoff":"def","vehicleType":"bus"}`, "Invalid params: vehicleType: Invalid enum value. Expected 'saloon' | 'estate' | 'executive' | 'luxury' | '5seater' | '6seater' | '7seater' | 'mpv' | 'wav', received 'bus'"},
		{"enum of start_booking", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"bus"}`, "Invalid params: vehicleType: Invalid enum value. Expected 'saloon' | 'mpv' | 'wav', received 'bus'"},
		{"enum given a number", booking, `{"pickup":"abc","dropoff":"def","vehicleType":3}`, "Invalid params: vehicleType: Expected 'saloon' | 'mpv' | 'wav', received number"},
		{"required enum missing", booking, `{"pickup":"abc","dropoff":"def"}`, "Invalid params: vehicleType: Required"},
		{"boolean", fare, `{"pickup":"abc","dropoff":"def","meetAndGreet":"yes"}`, "Invalid params: meetAndGreet: Expected boolean, received string"},
		{"datetime", fare, `{"pickup":"abc","dropoff":"def","departAt":"tomorrow"}`, "Invalid params: departAt: Invalid datetime"},
		{"datetime without offset", fare, `{"pickup":"abc","dropoff":"def","departAt":"2025-01-01T10:00:00"}`, "Invalid params: departAt: Invalid datetime"},
		{"datetime 30 February", fare, `{"pickup":"abc","dropoff":"def","departAt":"2025-02-30T10:00:00Z"}`, "Invalid params: departAt: Invalid datetime"},
		{"datetime Z", fare, `{"pickup":"abc","dropoff":"def","departAt":"2025-01-01T10:00:00Z"}`, ""},
		{"datetime offset and fraction", fare, `{"pickup":"abc","dropoff":"def","departAt":"2025-07-01T22:30:00.123+01:00"}`, ""},
		{"datetime given a number", fare, `{"pickup":"abc","dropoff":"def","departAt":5}`, "Invalid params: departAt: Expected string, received number"},
		{"float passengers", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":2.5}`, "Invalid params: passengers: Expected integer, received float"},
		{"integral float passengers is an integer", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":3.0}`, ""},
		{"passengers string", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":"3"}`, "Invalid params: passengers: Expected number, received string"},
		{"passengers below minimum", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":0}`, "Invalid params: passengers: Number must be greater than or equal to 1"},
		{"passengers above maximum", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":9}`, "Invalid params: passengers: Number must be less than or equal to 8"},
		{"huge passengers", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":1e400}`, "Invalid params: passengers: Number must be less than or equal to 8"},
		{"passengers beyond float64", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":1e999999}`, "Invalid params: passengers: Number must be less than or equal to 8"},
		{"passengers below minus float64", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":-1e999999}`, "Invalid params: passengers: Number must be greater than or equal to 1"},
		{"passengers below float64's smallest", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":1e-999999}`, "Invalid params: passengers: Expected integer, received float"},
		{"zero with a huge exponent is zero", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":0e999999}`, "Invalid params: passengers: Number must be greater than or equal to 1"},
		{"a long literal is read as float64", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":3.` + strings.Repeat("0", 200) + `}`, ""},
		{"a long integer literal", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":1` + strings.Repeat("0", 200) + `}`, "Invalid params: passengers: Number must be less than or equal to 8"},
		{"arguments not an object", fare, `"hello"`, "Invalid params: arguments: Expected object, received string"},
		{"arguments an array", fare, `[]`, "Invalid params: arguments: Expected object, received array"},
		{"unknown keys are ignored", fare, `{"pickup":"abc","dropoff":"def","passengers":12,"x":{}}`, ""},
		{"no-argument tool takes anything extra", info, `{"verbose":true}`, ""},
		{"order follows the schema, not the request", booking, `{"passengers":0,"vehicleType":"bus","pickup":"abc","dropoff":"de"}`, "Invalid params: dropoff: String must contain at least 3 character(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.schema.Validate(json.RawMessage(tt.args))
			got := ""
			if err != nil {
				got = err.Error()
				var fe *validate.FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %T is not a *FieldError", err)
				}
			}
			if got != tt.wantErr {
				t.Errorf("Validate(%s)\n got: %q\nwant: %q", tt.args, got, tt.wantErr)
			}
		})
	}
}

func TestValidateNormalises(t *testing.T) {
	fare := mustCompile(t, "schemas/estimate_fare.input.json")
	booking := mustCompile(t, "schemas/start_booking.input.json")
	tests := []struct {
		name   string
		schema *validate.Schema
		args   string
		want   map[string]any
	}{
		{"default vehicle applied", fare, `{"pickup":"abc","dropoff":"def"}`,
			map[string]any{"pickup": "abc", "dropoff": "def", "vehicleType": "saloon"}},
		{"given vehicle kept", fare, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv"}`,
			map[string]any{"pickup": "abc", "dropoff": "def", "vehicleType": "mpv"}},
		{"integral float becomes an integer", booking, `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":6.0}`,
			map[string]any{"pickup": "abc", "dropoff": "def", "vehicleType": "mpv", "passengers": float64(6)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.schema.Validate(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out, []byte("6.0")) {
				t.Errorf("integer not normalised: %s", out)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("normalised args (-want +got):\n%s", d)
			}
		})
	}
}

// TestValidateBoundsNumberCost: an exact reading of "1e999999" builds a
// million-digit integer (over 400 KB, tens of milliseconds), so a nine-byte
// literal could buy a client that much CPU per call. The cost of a number
// must not depend on its value. Measured in bytes allocated, not time, so
// the test does not depend on the machine's speed.
func TestValidateBoundsNumberCost(t *testing.T) {
	booking := mustCompile(t, "schemas/start_booking.input.json")
	for _, n := range []string{"1e999999", "-1e999999", "1e-999999", "123456789e999999", "1" + strings.Repeat("0", 100000), "0." + strings.Repeat("0", 100000) + "1"} {
		args := `{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":` + n + `}`
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := booking.Validate(json.RawMessage(args))
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("passengers %.20s... accepted", n)
		}
		// The decoder copies the literal itself; anything beyond a few
		// copies of the text is the value being expanded.
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(8*len(args)+64<<10); got > limit {
			t.Errorf("passengers %.20s...: validation allocated %d bytes, want at most %d", n, got, limit)
		}
	}
}

func TestCompileRefusesUnknownKeywords(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`,
		`{"type":"object","oneOf":[]}`,
		`{"type":"string","format":"hostname"}`,
		`[]`,
	} {
		if _, err := validate.Compile([]byte(s)); err == nil {
			t.Errorf("Compile(%s) succeeded; want an error naming the keyword", s)
		}
	}
}

func TestValidateGenericKeywords(t *testing.T) {
	s, err := validate.Compile([]byte(`{"type":"object","additionalProperties":false,
		"properties":{"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5},
		"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","minLength":1}},
		"ok":{"const":true},"when":{"type":["string","null"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		`{"n":0}`:                  "Invalid params: n: Number must be greater than 0",
		`{"n":1.5}`:                "Invalid params: n: Number must be less than 1.5",
		`{"tags":[]}`:              "Invalid params: tags: Array must contain at least 1 element(s)",
		`{"tags":["a","b","c"]}`:   "Invalid params: tags: Array must contain at most 2 element(s)",
		`{"tags":["a",""]}`:        "Invalid params: tags.1: String must contain at least 1 character(s)",
		`{"ok":false}`:             "Invalid params: ok: Invalid literal value, expected true",
		`{"when":3}`:               "Invalid params: when: Invalid input",
		`{"zed":1,"extra":2}`:      "Invalid params: arguments: Unrecognized key(s) in object: 'extra', 'zed'",
		`{"n":1,"when":null}`:      "",
		`{"tags":["a"],"ok":true}`: "",
	}
	for args, want := range tests {
		_, err := s.Validate(json.RawMessage(args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Validate(%s) = %q, want %q", args, got, want)
		}
	}
}

func TestParseDateTime(t *testing.T) {
	for in, want := range map[string]string{
		"2025-01-01T10:00:00Z":      "2025-01-01T10:00:00Z",
		"2025-07-01t22:30:00+01:00": "2025-07-01T21:30:00Z",
		"2016-12-31T23:59:60Z":      "2016-12-31T23:59:59Z",
	} {
		got, err := validate.ParseDateTime(in)
		if err != nil {
			t.Errorf("ParseDateTime(%q): %v", in, err)
			continue
		}
		if s := got.UTC().Format("2006-01-02T15:04:05Z07:00"); s != want {
			t.Errorf("ParseDateTime(%q) = %s, want %s", in, s, want)
		}
	}
	for _, in := range []string{"2016-12-31T22:59:60Z", "2025-13-01T00:00:00Z", "2025-01-01 10:00:00Z", "2025-01-01T10:00:00+24:00"} {
		if _, err := validate.ParseDateTime(in); err == nil {
			t.Errorf("ParseDateTime(%q) succeeded, want an error", in)
		}
	}
}

// reference compiles a schema with santhosh-tekuri/jsonschema, formats
// asserted, as the second opinion on what is valid.
func reference(t testing.TB, path string) *jsonschema.Schema {
	t.Helper()
	b, err := tridentcontracts.Set.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource("mem://"+path, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://" + path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// longNumber matches a number literal longer than validate reads exactly.
var longNumber = regexp.MustCompile(`[0-9][0-9.eE+-]{100,}`)

// FuzzValidate checks, for arbitrary argument bytes, that validation never
// panics, that it agrees with the reference validator, and that what it
// accepts decodes again.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`,
		`{"pickup":"ab","dropoff":"Glasgow Airport"}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":6,"meetAndGreet":true}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"saloon","passengers":2.5}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"wav","departAt":"2025-12-25T10:00:00Z"}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"wav","departAt":"2016-12-31T23:59:60Z"}`,
		`{"pickup":null}`, `[]`, `"x"`, `null`, `{"pickup":{"a":1}}`, `{"passengers":1e999}`,
	} {
		f.Add([]byte(seed))
	}
	paths := []string{"schemas/estimate_fare.input.json", "schemas/start_booking.input.json", "schemas/get_service_info.input.json"}
	ours := make([]*validate.Schema, len(paths))
	refs := make([]*jsonschema.Schema, len(paths))
	for i, p := range paths {
		ours[i] = mustCompile(f, p)
		refs[i] = reference(f, p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if dec.Decode(&doc) != nil || dec.More() {
			return // not one JSON value: the transport answers -32700 first
		}
		if doc == nil {
			doc = map[string]any{} // null arguments mean {}
		}
		if longNumber.Match(data) {
			// Read as float64 on purpose (readNumber), where the reference
			// reads them exactly; TestValidateReasons covers them.
			return
		}
		for i := range paths {
			out, err := ours[i].Validate(data)
			refErr := refs[i].Validate(doc)
			switch {
			case err == nil && refErr != nil:
				t.Fatalf("%s: we accept %s, reference refuses: %v", paths[i], data, refErr)
			case err != nil && refErr == nil && !strings.Contains(err.Error(), "Invalid datetime"):
				// We are stricter than the reference only on date-times
				// (it reads "+1" as an hour, via strconv.Atoi).
				t.Fatalf("%s: we refuse %s (%v), reference accepts", paths[i], data, err)
			case err == nil:
				var again map[string]any
				if err := json.Unmarshal(out, &again); err != nil {
					t.Fatalf("%s: normalised args do not decode: %v", paths[i], err)
				}
			default:
				var fe *validate.FieldError
				if !errors.As(err, &fe) || fe.Field == "" || fe.Reason == "" {
					t.Fatalf("%s: error %v is not a complete FieldError", paths[i], err)
				}
			}
		}
	})
}

// Arguments already in normal form come back as sent; any change made while
// normalising (a default, a dropped key, an integer rewritten) re-encodes.
func TestValidateKeepsNormalArguments(t *testing.T) {
	s, err := validate.Compile([]byte(`{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer"},"d":{"type":"boolean","default":false}},"required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{` {"d":true, "a":"x","n":2} `, `{"d":true, "a":"x","n":2}`},
		{`{"a":"x","n":2}`, `{"a":"x","d":false,"n":2}`},           // default filled
		{`{"a":"x","n":2.0,"d":true}`, `{"a":"x","d":true,"n":2}`}, // integer rewritten
		{`{"a":"x","z":1,"d":true}`, `{"a":"x","d":true}`},         // unknown key dropped
		{`{"a":"x","d":true,"n":-0}`, `{"a":"x","d":true,"n":0}`},
	}
	for _, tt := range tests {
		got, err := s.Validate(json.RawMessage(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Validate(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

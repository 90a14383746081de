package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Unit tests of the suite's own plumbing; they run without a server.

func TestParseSSE(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Event
		wantErr bool
	}{
		{"two events", "event: message\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n\n",
			[]Event{{Type: "message", Data: `{"a":1}`}, {Data: `{"b":2}`}}, false},
		{"multi-line data and CRLF", "id: 7\r\ndata: line1\r\ndata:line2\r\n\r\n",
			[]Event{{ID: "7", Data: "line1\nline2"}}, false},
		{"comments are skipped", ": ping\n\ndata: x\n\n", []Event{{Data: "x"}}, false},
		{"an unterminated last event is an error", "data: x\n\ndata: y\n", []Event{{Data: "x"}}, true},
		{"unknown field", "date: x\n\n", nil, true},
		{"empty body", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSSE([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		in   string
		want []Challenge
	}{
		{`Bearer resource_metadata="https://x.test/.well-known/oauth-protected-resource"`,
			[]Challenge{{"Bearer", map[string]string{"resource_metadata": "https://x.test/.well-known/oauth-protected-resource"}}}},
		{`Bearer realm="mcp", error="invalid_token", error_description="Missing or invalid access token", resource_metadata="u"`,
			[]Challenge{{"Bearer", map[string]string{"realm": "mcp", "error": "invalid_token", "error_description": "Missing or invalid access token", "resource_metadata": "u"}}}},
		{`Basic realm="a\"b", Bearer error=invalid_token`,
			[]Challenge{{"Basic", map[string]string{"realm": `a"b`}}, {"Bearer", map[string]string{"error": "invalid_token"}}}},
		{`Bearer`, []Challenge{{"Bearer", map[string]string{}}}},
		{`Negotiate abc123==`, []Challenge{{"Negotiate", map[string]string{"": "abc123=="}}}},
	}
	for _, tt := range tests {
		got, err := ParseChallenges(tt.in)
		if err != nil {
			t.Errorf("ParseChallenges(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseChallenges(%q) (-want +got):\n%s", tt.in, d)
		}
	}
	for _, bad := range []string{``, `Bearer realm="unterminated`, `Bearer a=1, a=2`} {
		if _, err := ParseChallenges(bad); err == nil {
			t.Errorf("ParseChallenges(%q) succeeded, want an error", bad)
		}
	}
}

func TestKnownFailures(t *testing.T) {
	got, err := ParseKnownFailures("# comment\n\nNOT_ACCEPTABLE text/html  # issue 12: proxy rewrites\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []KnownFailure{{Match: "NOT_ACCEPTABLE text/html", Reason: "issue 12: proxy rewrites"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, ok := Lookup(got, "contracts/errors.json NOT_ACCEPTABLE text/html"); !ok {
		t.Error("Lookup missed a matching spec")
	}
	if _, err := ParseKnownFailures("a spec without a reason\n"); err == nil {
		t.Error("a line without a reason was accepted")
	}
	if k, err := LoadKnownFailures(""); err != nil || len(k) != 0 {
		t.Errorf("the embedded known failures must parse and be empty for our server: %v %v", k, err)
	}
}

// Every violation the errors table sends must really be invalid, and the
// baselines and generated valid arguments really valid, by the contract's own
// schema: otherwise the suite would blame the server for its own mistake.
func TestGeneratorsAgreeWithTheSchemas(t *testing.T) {
	c, err := LoadContracts()
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range c.Tools {
		var base map[string]any
		for _, s := range c.Samples {
			if s.Name == name+".success" {
				var req struct {
					Params struct {
						Arguments map[string]any `json:"arguments"`
					} `json:"params"`
				}
				if err := json.Unmarshal(s.Request, &req); err != nil {
					t.Fatal(err)
				}
				base = req.Params.Arguments
			}
		}
		if err := Validate(tc.InputSchema, mustMarshal(t, base)); err != nil {
			t.Fatalf("%s: the success sample's arguments are invalid: %v", name, err)
		}
		for _, v := range Violations(tc.Input) {
			if err := Validate(tc.InputSchema, mustMarshal(t, v.Apply(base))); err == nil {
				t.Errorf("%s: violation %s is valid by the schema", name, v.Name())
			}
		}
		for seed := int64(1); seed <= 20; seed++ {
			g := NewGenerator(seed, name)
			for i := 0; i < 20; i++ {
				args := g.Valid(tc.Input)
				if err := Validate(tc.InputSchema, mustMarshal(t, args)); err != nil {
					t.Fatalf("%s seed %d: generated valid args %v are invalid: %v", name, seed, args, err)
				}
				if len(Violations(tc.Input)) == 0 {
					continue
				}
				bad, v := g.Invalid(tc.Input)
				if err := Validate(tc.InputSchema, mustMarshal(t, bad)); err == nil {
					t.Fatalf("%s seed %d: generated invalid args %v (%s) are valid", name, seed, bad, v.Name())
				}
			}
		}
	}
}

func TestGeneratorIsReproducible(t *testing.T) {
	c, err := LoadContracts()
	if err != nil {
		t.Fatal(err)
	}
	in := c.Tools["start_booking"].Input
	a, b := NewGenerator(42, "x"), NewGenerator(42, "x")
	for i := 0; i < 10; i++ {
		if d := cmp.Diff(a.Valid(in), b.Valid(in)); d != "" {
			t.Fatalf("same seed, different cases:\n%s", d)
		}
	}
}

func TestViolationReasonsUseZodWording(t *testing.T) {
	c, err := LoadContracts()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range Violations(c.Tools["start_booking"].Input) {
		got[v.Name()] = v.ExpectedMessage()
	}
	want := map[string]string{
		"pickup too_short":        "Invalid params: pickup: String must contain at least 3 character(s)",
		"pickup missing":          "Invalid params: pickup: Required",
		"vehicleType bad_enum":    "Invalid params: vehicleType: Invalid enum value. Expected 'saloon' | 'mpv' | 'wav', received 'bus'",
		"passengers not_integer":  "Invalid params: passengers: Expected integer, received float",
		"passengers too_big":      "Invalid params: passengers: Number must be less than or equal to 8",
		"departAt bad_datetime":   "Invalid params: departAt: Invalid datetime",
		"meetAndGreet wrong_type": "Invalid params: meetAndGreet: Expected boolean, received string",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
}

func TestJSONDiffIsExactOnValues(t *testing.T) {
	if d := JSONDiff([]byte(`{"a":118,"b":[1,2]}`), []byte(`{"b":[1,2],"a":118.0}`)); d != "" {
		t.Errorf("equal documents differ:\n%s", d)
	}
	if d := JSONDiff([]byte(`{"fareGBP":62.4}`), []byte(`{"fareGBP":62.41}`)); d == "" {
		t.Error("a penny went unnoticed")
	}
	if d := JSONDiff([]byte(`{"a":1}`), []byte(`{"a":1,"b":null}`)); d == "" {
		t.Error("an extra null field went unnoticed")
	}
}

func TestRawMessageKeepsNullID(t *testing.T) {
	m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != "null" {
		t.Errorf("id = %q, want null", m.ID)
	}
	m, _ = DecodeMessage([]byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`))
	if SameJSON(m.ID, []byte("null")) {
		t.Error("an absent id passed for null")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSchemaMeaningIgnoresWordingOnly(t *testing.T) {
	c, err := LoadContracts()
	if err != nil {
		t.Fatal(err)
	}
	raw := c.Tools["start_booking"].OutputRaw
	// The same schema in other words: no $id or descriptions, $refs
	// inlined, enums reordered.
	reworded := []byte(`{"type":"object","additionalProperties":false,
	  "required":["quote","bookingUrl","confirmed","requiresPassengerAction","prefilled"],
	  "properties":{
	    "bookingUrl":{"type":"string","format":"uri","description":"Open this."},
	    "confirmed":{"type":"boolean","const":false},
	    "requiresPassengerAction":{"type":"boolean","const":true},
	    "quote":{"type":"object","additionalProperties":false,
	      "required":["tariffVersion","fareGBP","distanceMiles","durationSeconds","rate","vehicleType"],
	      "properties":{"fareGBP":{"type":"number","minimum":0},"distanceMiles":{"type":"number","minimum":0},
	        "durationSeconds":{"type":"number","minimum":0},"rate":{"type":"string","enum":["night","day","holiday"]},
	        "vehicleType":{"type":"string","enum":["wav","saloon","mpv"]},"tariffVersion":{"type":"string","minLength":1}}},
	    "prefilled":{"type":"object","additionalProperties":false,
	      "required":["pickup","dropoff","vehicleType","departAt","meetAndGreet"],
	      "properties":{"pickup":{"type":"string"},"dropoff":{"type":"string"},"vehicleType":{"type":"string","enum":["saloon","mpv","wav"]},
	        "departAt":{"type":["null","string"],"format":"date-time"},"meetAndGreet":{"type":"boolean"}}}}}`)
	if d := SchemaMeaningDiff(raw, reworded); d != "" {
		t.Errorf("a reworded schema means something else (-want +got):\n%s", d)
	}
	for name, change := range map[string][2]string{
		"a looser constraint":  {`"minLength":1}}},`, `"minLength":0}}},`},
		"a dropped enum value": {`"enum":["wav","saloon","mpv"]`, `"enum":["saloon","mpv"]`},
		"extra properties allowed": {`{"type":"object","additionalProperties":false,
	  "required":["quote"`, `{"type":"object",
	  "required":["quote"`},
		"a field no longer required": {`"departAt","meetAndGreet"]`, `"departAt"]`},
	} {
		changed := strings.Replace(string(reworded), change[0], change[1], 1)
		if changed == string(reworded) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if SchemaMeaningDiff(raw, []byte(changed)) == "" {
			t.Errorf("%s went unnoticed", name)
		}
	}
}

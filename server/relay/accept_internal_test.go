package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/server/draft2020"
)

// The acceptor's tests hold it to jsonschema v5, its reference: whatever
// it finds valid the validator accepts, whatever it finds invalid the
// validator refuses, over every sample call, their mutations, hand-picked
// instances at each keyword's edges, and fuzzed arguments and numbers.

// tree decodes raw as decode does, or reports that decode would refuse it
// before validation (not JSON, or a number out of range).
func tree(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	if _, out := outOfRange(doc, ""); out {
		return nil, false
	}
	return doc, true
}

// disagreement is what the acceptor said of doc that the validator of the
// same schema contradicts, or "".
func disagreement(s *inputSchema, doc any) string {
	got := s.accept.check(doc)
	err := validateRecovered(s, doc)
	switch {
	case got == valid && err != nil:
		return fmt.Sprintf("acceptor: valid; validator: %v", err)
	case got == invalid && err == nil:
		return "acceptor: invalid; validator: valid"
	}
	return ""
}

// validateRecovered is the validator's answer, a panic (math/big failing
// to read a number such as 0E10000000000000000000) as an error: the
// validator then accepts nothing.
func validateRecovered(s *inputSchema, doc any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator panicked: %v", r)
		}
	}()
	return s.Validate(doc)
}

func TestEveryToolHasAnAcceptor(t *testing.T) {
	m, err := relaycontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	in := testInputs(t)
	for _, tool := range m.Tools {
		if _, err := newAcceptor(in[tool.Name].Schema); err != nil {
			t.Errorf("%s: no acceptor, every call is validated in full: %v", tool.Name, err)
		}
	}
}

// Every sample call the contracts hold is accepted without the validator
// (otherwise the fast path serves no real call), and decode answers as it
// does without the acceptor, for them and for every mutation of them and
// every bad call the other tests make: the same struct, the same refusal.
func TestAcceptorAgreesWithValidator(t *testing.T) {
	in := testInputs(t)
	full := inputSchemas{}
	for tool, s := range in {
		full[tool] = &inputSchema{Schema: s.Schema}
	}
	samples, err := relaycontracts.FS.ReadDir("samples")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range samples {
		tool, _, _ := strings.Cut(f.Name(), ".")
		if f.IsDir() || in[tool] == nil {
			continue
		}
		if doc, ok := tree(sampleArguments(t, f.Name())); !ok || in[tool].accept.check(doc) != valid {
			t.Errorf("%s: the sample's arguments are not accepted by %s's acceptor", f.Name(), tool)
		}
	}
	verdicts := map[verdict]int{}
	for tool, calls := range sampleCalls(t) {
		for _, raw := range calls {
			docs := append([][]byte{raw}, mutations(t, raw)...)
			for _, raw := range docs {
				if doc, ok := tree(raw); ok {
					verdicts[in[tool].accept.check(doc)]++
					if d := disagreement(in[tool], doc); d != "" {
						t.Errorf("%s %s: %s", tool, raw, d)
					}
				}
				if len(raw) < 4<<10 { // decoding twice is what takes the time
					if d := decodeDiff(full, in, tool, raw); d != "" {
						t.Errorf("%s %s: with the acceptor: %s", tool, raw, d)
					}
				}
			}
		}
	}
	t.Logf("verdicts: %d valid, %d invalid, %d unsure", verdicts[valid], verdicts[invalid], verdicts[unsure])
	if verdicts[valid] == 0 || verdicts[invalid] == 0 {
		t.Errorf("verdicts %v: the calls should include some the acceptor finds valid and some it finds invalid", verdicts)
	}
}

// compileSchema compiles a schema document as the input schemas are.
func compileSchema(tb testing.TB, doc string) *inputSchema {
	tb.Helper()
	s, err := draft2020.Compile("test.schema.json", []byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	a, err := newAcceptor(s)
	if err != nil {
		tb.Fatalf("%s: %v", doc, err)
	}
	return &inputSchema{Schema: s, accept: a}
}

// Each keyword the acceptor knows, at its edges: what it answers, which
// must also be what the validator answers (unsure leaves it to the
// validator).
func TestAcceptorKeywords(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   map[string]verdict
	}{{
		schema: `{"type":"integer","minimum":1,"maximum":8}`,
		want: map[string]verdict{`1`: valid, `8`: valid, `-0`: invalid, `0`: invalid, `9`: invalid, `2.5`: invalid, `8.0`: unsure,
			`1e0`: unsure, `9.5`: invalid, `1.50`: invalid, `0.5`: invalid, `99999999999999999999`: invalid, `"1"`: invalid, `null`: invalid, `[1]`: invalid},
	}, {
		schema: `{"type":"number","minimum":-90,"maximum":90}`,
		want: map[string]verdict{`90`: valid, `-90`: valid, `90.0`: unsure, `89.5`: valid, `-90.5`: invalid, `90.00000000000000000001`: unsure,
			`89.99999999999999999999`: unsure, `89.9999999999999`: valid, `1e-320`: valid, `9e1`: unsure, `91`: invalid, `"0"`: invalid,
			`1e-00000000000000000001`: unsure, `5e-0001`: valid},
	}, {
		schema: `{"exclusiveMinimum":0,"exclusiveMaximum":1.5}`,
		want:   map[string]verdict{`0`: invalid, `1`: valid, `1.5`: unsure, `1.25`: valid, `0.0`: unsure, `1.75`: invalid, `"x"`: valid, `{}`: valid},
	}, {
		schema: `{"type":"string","minLength":2,"maxLength":3}`,
		want:   map[string]verdict{`"ab"`: valid, `"éé"`: valid, `"ééé"`: valid, `"éééé"`: invalid, `"a"`: invalid, `"\u00e9"`: invalid, `"\ud83d\ude95x"`: valid, `"\ud83d"`: invalid, `1`: invalid},
	}, {
		schema: `{"type":"string","pattern":"^[A-Z]{3}$"}`,
		want:   map[string]verdict{`"GBP"`: valid, `"gbp"`: invalid, `"GBPX"`: invalid, `"GBP\n"`: invalid, `"GB\u0000"`: invalid, `""`: invalid},
	}, {
		schema: `{"pattern":"é+"}`,
		want:   map[string]verdict{`"xéx"`: valid, `"x"`: invalid, `3`: valid},
	}, {
		schema: `{"type":"string","format":"date"}`,
		want:   map[string]verdict{`"2026-12-01"`: valid, `"2026-02-30"`: invalid, `"2026-13-01"`: invalid, `"2026-12-1"`: invalid, `"2026-12-01T00:00:00Z"`: invalid},
	}, {
		schema: `{"format":"date-time"}`,
		want: map[string]verdict{`"2026-12-01T09:00:00Z"`: valid, `"2026-12-01t09:00:00.5+01:00"`: valid, `"2026-12-31T23:59:60Z"`: valid,
			`"2026-12-01T09:00:60Z"`: invalid, `"2026-12-01 09:00:00Z"`: invalid, `"yesterday"`: invalid, `5`: valid},
	}, {
		schema: `{"type":"string","enum":["uber","lyft"]}`,
		want:   map[string]verdict{`"uber"`: valid, `"Uber"`: invalid, `"made_up"`: invalid, `1`: invalid},
	}, {
		schema: `{"enum":["a",null,false]}`,
		want:   map[string]verdict{`"a"`: valid, `null`: valid, `false`: valid, `true`: invalid, `0`: invalid, `{}`: invalid, `[]`: invalid},
	}, {
		schema: `{"const":"HS256"}`,
		want:   map[string]verdict{`"HS256"`: valid, `"none"`: invalid, `null`: invalid},
	}, {
		schema: `{"type":["boolean","null"]}`,
		want:   map[string]verdict{`true`: valid, `null`: valid, `0`: invalid, `"true"`: invalid},
	}, {
		schema: `{"type":"object","required":["a"],"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"additionalProperties":false}`,
		want:   map[string]verdict{`{"a":1}`: valid, `{"a":1,"b":"x"}`: valid, `{"b":"x"}`: invalid, `{"a":1,"c":1}`: invalid, `{"a":"1"}`: invalid, `{"a":1.0}`: unsure, `[]`: invalid},
	}, {
		schema: `{"properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string"},"minProperties":1,"maxProperties":2}`,
		want:   map[string]verdict{`{"a":1,"z":"x"}`: valid, `{"z":1}`: invalid, `{}`: invalid, `{"a":1,"y":"","z":""}`: invalid, `3`: valid},
	}, {
		schema: `{"type":"array","minItems":1,"maxItems":2,"items":{"enum":["x","y"]}}`,
		want:   map[string]verdict{`["x"]`: valid, `["x","y"]`: valid, `[]`: invalid, `["x","y","x"]`: invalid, `["z"]`: invalid, `{}`: invalid},
	}, {
		// get_ride_booking_handoff's root: an option xor a provider.
		schema: `{"properties":{"option":{"type":"object"},"provider":{"type":"string"}},"oneOf":[{"properties":{"option":{"type":"object"}},"required":["option"]},{"properties":{"provider":{"type":"string"}},"required":["provider"]}]}`,
		want:   map[string]verdict{`{"option":{}}`: valid, `{"provider":"uber"}`: valid, `{"option":{},"provider":"uber"}`: invalid, `{}`: invalid, `{"option":1}`: invalid},
	}, {
		schema: `{"oneOf":[{"type":"integer"},{"minimum":2}]}`,
		want:   map[string]verdict{`1`: valid, `3`: invalid, `2.5`: valid, `2.50e0`: unsure, `3.0`: unsure, `1.0`: unsure, `"x"`: valid, `1.5`: invalid},
	}, {
		schema: `{"anyOf":[{"type":"integer"},{"type":"string"}],"not":{"const":"no"},"allOf":[{"maximum":10}]}`,
		want:   map[string]verdict{`1`: valid, `"x"`: valid, `"no"`: invalid, `11`: invalid, `1.5`: invalid, `1.0`: unsure, `null`: invalid},
	}, {
		schema: `{"properties":{"yes":true,"no":false}}`,
		want:   map[string]verdict{`{"yes":[1]}`: valid, `{"no":null}`: invalid, `{}`: valid},
	}, {
		// A reference with a keyword beside it, as inlineRefs leaves it.
		schema: `{"$defs":{"C":{"type":"string","maxLength":2}},"$ref":"#/$defs/C","minLength":2}`,
		want:   map[string]verdict{`"ab"`: valid, `"a"`: invalid, `"abc"`: invalid, `1`: invalid},
	}} {
		s := compileSchema(t, tc.schema)
		for inst, want := range tc.want {
			doc, ok := tree([]byte(inst))
			if !ok {
				t.Fatalf("%s: not an instance", inst)
			}
			if got := s.accept.check(doc); got != want {
				t.Errorf("%s %s: verdict %d, want %d", tc.schema, inst, got, want)
			}
			if d := disagreement(s, doc); d != "" {
				t.Errorf("%s %s: %s", tc.schema, inst, d)
			}
		}
	}
}

// A schema with a keyword the acceptor does not know, or a value it cannot
// compare exactly, has none.
func TestAcceptorRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, doc := range []string{
		`{"uniqueItems":true}`, `{"patternProperties":{"^a":{}}}`, `{"multipleOf":2}`, `{"prefixItems":[{}]}`,
		`{"properties":{"a":{"if":{"type":"string"},"then":{"minLength":1}}}}`, `{"dependentRequired":{"a":["b"]}}`,
		`{"unevaluatedProperties":false}`, `{"propertyNames":{"maxLength":3}}`, `{"contains":{"type":"string"}}`,
		`{"items":{"contentEncoding":"base64"}}`, `{"enum":[1,2]}`, `{"const":{"a":1}}`, `{"minimum":0.1}`,
		`{"$defs":{"T":{"properties":{"next":{"$ref":"#/$defs/T"}}}},"$ref":"#/$defs/T"}`,
		`{"$defs":{"a":{"$dynamicAnchor":"a","type":"string"}},"$dynamicRef":"#a"}`,
	} {
		s, err := draft2020.Compile("test.schema.json", []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if _, err := newAcceptor(s); err == nil {
			t.Errorf("%s: an acceptor", doc)
		}
	}
	// A format the library does not assert is no check, as for the validator.
	s := compileSchema(t, `{"format":"no-such-format","type":"string"}`)
	if doc, _ := tree([]byte(`"anything"`)); s.accept.check(doc) != valid || s.Validate(doc) != nil {
		t.Errorf("an unknown format: want valid from both")
	}
}

// Every field of jsonschema.Schema is named in schemaFields or must be
// zero; a field the library adds is then refused until someone says what
// it does. This lists the fields, so that a new one shows up here.
func TestSchemaFieldsKnown(t *testing.T) {
	typ := reflect.TypeFor[jsonschema.Schema]()
	var unknown []string
	for i := range typ.NumField() {
		if _, ok := schemaFields[typ.Field(i).Name]; !ok {
			unknown = append(unknown, typ.Field(i).Name)
		}
	}
	// The keywords the acceptor refuses, which must be zero.
	want := "RecursiveRef DynamicRef If Then Else PropertyNames RegexProperties PatternProperties Dependencies DependentRequired DependentSchemas UnevaluatedProperties UniqueItems Items AdditionalItems PrefixItems Contains UnevaluatedItems decoder ContentEncoding ContentMediaType mediaType ContentSchema MultipleOf Extensions"
	got := strings.Join(unknown, " ")
	for _, name := range strings.Fields(want) {
		if !strings.Contains(" "+got+" ", " "+name+" ") {
			t.Errorf("%s: named in schemaFields, which accepts it", name)
		}
	}
	if len(unknown) != len(strings.Fields(want)) {
		t.Errorf("fields of jsonschema.Schema the acceptor refuses: %s\nwant %s", got, want)
	}
}

// FuzzAccept holds the acceptor to the validator on arbitrary arguments,
// for every tool.
func FuzzAccept(f *testing.F) {
	for _, calls := range sampleCalls(f) {
		for _, raw := range calls {
			f.Add(raw)
		}
	}
	in := testInputs(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, ok := tree(raw)
		if !ok {
			return
		}
		for tool, s := range in {
			if d := disagreement(s, doc); d != "" {
				t.Errorf("%s %s: %s", tool, raw, d)
			}
		}
	})
}

// FuzzAcceptNumber holds the acceptor's comparisons to the validator's
// exact ones on arbitrary numbers, near bounds of each kind.
func FuzzAcceptNumber(f *testing.F) {
	for _, n := range []string{"0", "-0", "1", "8", "8.0", "90", "90.0000000000000001", "89.99999999999999999", "-90", "1.5", "1.4999999999999999999",
		"1e1", "9007199254740993", "-9007199254740993", "123456789012345678", "123456789012345680", "123456789012345680.0000001", "-1125899906842624.5", "-1125899906842624.4999999", "0E10000000000000000000", "1e-400", "0.25", "2.5e-1"} {
		f.Add(n)
	}
	schemas := []*inputSchema{
		compileSchema(f, `{"type":"integer","minimum":1,"maximum":8}`),
		compileSchema(f, `{"type":"number","minimum":-90,"maximum":90}`),
		compileSchema(f, `{"exclusiveMinimum":0.25,"exclusiveMaximum":1.5}`),
		compileSchema(f, `{"minimum":-9007199254740992,"maximum":9007199254740992}`),
		compileSchema(f, `{"exclusiveMinimum":-1125899906842624.5,"exclusiveMaximum":123456789012345680}`),
	}
	f.Fuzz(func(t *testing.T, n string) {
		doc, ok := tree([]byte(n))
		if _, isNumber := doc.(json.Number); !ok || !isNumber || len(n) > 400 {
			return
		}
		for _, s := range schemas {
			if d := disagreement(s, doc); d != "" {
				t.Errorf("%s %s: %s", s.Location, n, d)
			}
		}
	})
}

package journey

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// FuzzDecode: any journey_context either decodes or is refused with field
// errors, never panics, and whatever passes validation marshals to shared
// journey fields only.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `{"origin_city":"Helensburgh","party_size":2}`, `{"party_size":1e3}`,
		`{"destination_city":"56.0,-4.7"}`, `{"start_date":"2026-12-24","end_date":"2026-12-01"}`, `[`, `{"x":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fields, err := Decode(raw)
		if err != nil {
			if _, ok := err.(FieldErrors); !ok {
				t.Fatalf("Decode error %T %v, want FieldErrors", err, err)
			}
			return
		}
		cc, err := ContinuationContext(fields)
		if err != nil {
			if _, ok := err.(FieldErrors); !ok {
				t.Fatalf("Validate error %T %v, want FieldErrors", err, err)
			}
			return
		}
		b, err := json.Marshal(cc)
		if err != nil {
			t.Fatal(err)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(b, &members); err != nil {
			t.Fatal(err)
		}
		for k := range members {
			if !slices.Contains(FieldNames, k) {
				t.Fatalf("continuation_context member %q", k)
			}
		}
		again, err := Decode(b)
		if err != nil || again.Validate() != nil || !reflect.DeepEqual(again, cc) {
			t.Fatalf("continuation_context %s does not decode to itself and validate again: %+v, %v", b, again, err)
		}
	})
}

package draft2020_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/draft2020"
)

// decode reads an instance as the callers do, numbers as json.Number.
func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCompileNamesABrokenDocument(t *testing.T) {
	for what, doc := range map[string]string{
		"not JSON":             `{"type":`,
		"not a schema":         `{"type":5}`,
		"an unresolvable $ref": `{"$ref":"#/$defs/missing"}`,
	} {
		_, err := draft2020.Compile("broken.schema.json", []byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), "broken.schema.json: ") {
			t.Errorf("%s: want an error headed by the document's name, got %v", what, err)
		}
	}
}

func TestCompileValidates(t *testing.T) {
	for _, tc := range []struct {
		what, schema, valid string
		invalid             []string
	}{{
		// Without $schema, prefixItems is a check only under Draft 2020-12.
		what:    "no $schema",
		schema:  `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer","maximum":9}]}`,
		valid:   `["a",9]`,
		invalid: []string{`[1,1]`, `["a",10]`, `{}`},
	}, {
		// With it, date-time is a check only with formats asserted.
		what:    "$schema 2020-12",
		schema:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["at"],"properties":{"at":{"type":"string","format":"date-time"}}}`,
		valid:   `{"at":"2026-12-01T09:00:00Z"}`,
		invalid: []string{`{"at":"tomorrow"}`, `{}`},
	}} {
		s, err := draft2020.Compile("good.schema.json", []byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if err := s.Validate(decode(t, tc.valid)); err != nil {
			t.Errorf("%s: %s: %v", tc.what, tc.valid, err)
		}
		for _, inst := range tc.invalid {
			if err := s.Validate(decode(t, inst)); err == nil {
				t.Errorf("%s: %s validated", tc.what, inst)
			}
		}
	}
}

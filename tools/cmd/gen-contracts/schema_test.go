package main

import (
	"encoding/json"
	"strings"
	"testing"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// TestCheckKeywordsRefusesWhatItCannotGenerate holds the generator to its
// promise: a keyword it does not translate stops it, wherever it sits, so a
// constraint added to a contract can never vanish from the generated code.
func TestCheckKeywordsRefusesWhatItCannotGenerate(t *testing.T) {
	for _, tt := range []struct {
		name, schema, wantErr string
	}{
		{"the subset", `{"type":"object","properties":{"a":{"type":["string","null"],"format":"date-time"},"b":{"type":"array","items":{"$ref":"#/$defs/X"}}},"$defs":{"X":{"type":"integer","minimum":1}},"additionalProperties":false}`, ""},
		{"the subset's validation keywords", `{"properties":{"a":{"type":"string","pattern":"^a"},"b":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string"}}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`, ""},
		{"top level", `{"type":"string","uniqueItems":true}`, `"uniqueItems"`},
		{"in a property", `{"properties":{"a":{"type":"string","contentEncoding":"base64"}}}`, `/properties/a: keyword "contentEncoding"`},
		{"in $defs", `{"$defs":{"X":{"anyOf":[]}}}`, `/$defs/X: keyword "anyOf"`},
		{"in oneOf", `{"oneOf":[{"required":["a"]},{"not":{}}]}`, `/oneOf/1: keyword "not"`},
		{"in items", `{"items":{"type":"number","multipleOf":0.01}}`, `/items: keyword "multipleOf"`},
		{"deep", `{"properties":{"a":{"items":{"properties":{"b":{"if":{}}}}}}}`, `/properties/a/items/properties/b: keyword "if"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkKeywords(json.RawMessage(tt.schema), "s.json")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
			}
		})
	}
}

// TestEveryContractSchemaIsInTheSubset checks the real contracts, so a
// schema edit that needs a new keyword fails here with the keyword's path
// rather than later in make generate.
func TestEveryContractSchemaIsInTheSubset(t *testing.T) {
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range m.Tools {
		for _, f := range []func() (json.RawMessage, error){tool.Input, tool.Output} {
			raw, err := f()
			if err != nil {
				t.Fatal(err)
			}
			if err := checkKeywords(raw, tool.Name); err != nil {
				t.Error(err)
			}
		}
	}
}

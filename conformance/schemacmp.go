package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// Comparing schemas by meaning. A server may serve the contract's schemas
// in its own words — no $id, other titles and descriptions, $refs inlined,
// keys and enum values in another order — and still accept and produce
// exactly the same documents. What must agree is what constrains an
// instance: types, required properties, constraints, enums, formats, and
// which extra properties are allowed.

// annotationKeywords constrain no instance (JSON Schema 2020-12, the core
// and meta-data vocabularies); $defs are reached through $ref, which is inlined.
var annotationKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true, "$defs": true, "definitions": true,
	"title": true, "description": true, "default": true, "examples": true,
	"readOnly": true, "writeOnly": true, "deprecated": true,
}

// SchemaMeaning returns raw reduced to what it asserts: local $refs inlined,
// annotations dropped, type, required and enum as sorted sets, and
// additionalProperties made explicit.
func SchemaMeaning(raw json.RawMessage) (any, error) {
	root, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	return meaning(root, root, 0)
}

func meaning(node, root any, depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("schema: $ref nesting deeper than 64 (a cycle?)")
	}
	m, ok := node.(map[string]any)
	if !ok {
		return node, nil // true, false
	}
	if ref, ok := m["$ref"].(string); ok {
		target, err := resolveLocal(root, ref)
		if err != nil {
			return nil, err
		}
		merged := maps.Clone(m)
		delete(merged, "$ref")
		tm, ok := target.(map[string]any)
		if !ok {
			return meaning(target, root, depth+1)
		}
		for k, v := range tm {
			if _, set := merged[k]; !set {
				merged[k] = v
			}
		}
		return meaning(merged, root, depth+1)
	}
	out := map[string]any{}
	for k, v := range m {
		if annotationKeywords[k] {
			continue
		}
		switch k {
		case "properties", "patternProperties":
			props, _ := v.(map[string]any)
			sub := map[string]any{}
			for name, s := range props {
				x, err := meaning(s, root, depth+1)
				if err != nil {
					return nil, err
				}
				sub[name] = x
			}
			out[k] = sub
		case "items", "additionalProperties", "not", "contains", "propertyNames":
			x, err := meaning(v, root, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = x
		case "allOf", "anyOf", "oneOf", "prefixItems":
			list, _ := v.([]any)
			var xs []any
			for _, s := range list {
				x, err := meaning(s, root, depth+1)
				if err != nil {
					return nil, err
				}
				xs = append(xs, x)
			}
			out[k] = xs
		case "type", "required", "enum":
			out[k] = sortedSet(v)
		default:
			out[k] = v
		}
	}
	if _, isObject := out["properties"]; isObject {
		if ap, ok := out["additionalProperties"]; !ok || isEmptySchema(ap) {
			out["additionalProperties"] = true
		}
	}
	return out, nil
}

func isEmptySchema(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// sortedSet returns a list value (or a single one) as a list sorted by its
// JSON encoding: the order of type, required and enum means nothing.
func sortedSet(v any) []any {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	list = slices.Clone(list)
	slices.SortFunc(list, func(a, b any) int {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return strings.Compare(string(x), string(y))
	})
	return list
}

// resolveLocal follows a same-document JSON pointer ("#/$defs/Quote").
func resolveLocal(root any, ref string) (any, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("schema: $ref %q leaves the document; a served schema must be self-contained", ref)
	}
	cur := root
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema: $ref %q: %q is not an object", ref, tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("schema: $ref %q: no %q", ref, tok)
		}
	}
	return cur, nil
}

// SchemaMeaningDiff compares two schemas by meaning and returns "" when they
// accept the same documents, or a go-cmp diff (-want +got) of their meanings.
func SchemaMeaningDiff(want, got json.RawMessage) string {
	w, err := SchemaMeaning(want)
	if err != nil {
		return "the contract's schema: " + err.Error()
	}
	g, err := SchemaMeaning(got)
	if err != nil {
		return "the served schema: " + err.Error()
	}
	return cmp.Diff(w, g)
}

// toolHintDefaults are the values MCP gives tool annotations a server leaves
// out (2025-06-18, ToolAnnotations).
var toolHintDefaults = map[string]bool{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}

// HintsDiff compares two tools' annotations by the hints they give, with
// MCP's defaults for absent ones; annotations.title is wording.
func HintsDiff(want, got json.RawMessage) string {
	read := func(raw json.RawMessage) map[string]bool {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		out := maps.Clone(toolHintDefaults)
		for k := range toolHintDefaults {
			if b, ok := m[k].(bool); ok {
				out[k] = b
			}
		}
		return out
	}
	return cmp.Diff(read(want), read(got))
}

package docspage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Field is one property of an object schema, as a row of the page's
// input and output tables.
type Field struct {
	Name, Type, Constraints, Description string
	Required                             bool
}

// Fields lists an object schema's properties in the order the schema
// writes them, with their type and constraints in words (enum first, then
// bounds, pattern, format, default and const). A schema that is
// not an object with properties has none.
func Fields(schema json.RawMessage) []Field {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	// A decoder, not a map, so the rows keep the schema's order.
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	var out []Field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		var p map[string]any
		if dec.Decode(&p) != nil {
			break
		}
		name, _ := t.(string)
		f := Field{Name: name, Required: req[name]}
		f.Description, _ = p["description"].(string)
		f.Type = typeOf(p)
		var cons []string
		if e, ok := p["enum"].([]any); ok {
			var vals []string
			for _, v := range e {
				vals = append(vals, fmt.Sprintf("%q", v))
			}
			cons = append(cons, "one of "+strings.Join(vals, ", "))
		}
		for _, k := range []string{"minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
			"minItems", "maxItems", "pattern", "format", "default", "const"} {
			if v, ok := p[k]; ok {
				cons = append(cons, fmt.Sprintf("%s %v", k, v))
			}
		}
		f.Constraints = strings.Join(cons, "; ")
		out = append(out, f)
	}
	return out
}

// typeOf words a property's type: "string", "integer | null", "Vehicle[]".
func typeOf(p map[string]any) string {
	if ref, ok := p["$ref"].(string); ok {
		return ref[strings.LastIndex(ref, "/")+1:]
	}
	if items, ok := p["items"].(map[string]any); ok {
		if t := typeOf(items); t != "" {
			return t + "[]"
		}
		return "array"
	}
	switch ty := p["type"].(type) {
	case string:
		return ty
	case []any:
		var parts []string
		for _, x := range ty {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, " | ")
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := p[k].([]any); ok {
			var parts []string
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					parts = append(parts, typeOf(m))
				}
			}
			return strings.Join(parts, " | ")
		}
	}
	return ""
}

// counts says how many of a schema's properties are required and how many
// optional, as the specification's console heads a schema: "2 required,
// 3 optional". The console script computes the same words in the browser.
func counts(schema json.RawMessage) string {
	req, opt := 0, 0
	for _, f := range Fields(schema) {
		if f.Required {
			req++
		} else {
			opt++
		}
	}
	if req+opt == 0 {
		return "no parameters"
	}
	return fmt.Sprintf("%d required, %d optional", req, opt)
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// schema is the subset of JSON Schema Draft 2020-12 the contracts use. The
// generator refuses keywords it does not understand rather than dropping them,
// so a contract change can never silently vanish from the generated code.
type schema struct {
	Schema               string             `json:"$schema"`
	ID                   string             `json:"$id"`
	Title                string             `json:"title"`
	Description          string             `json:"description"`
	Type                 typeList           `json:"type"`
	Properties           orderedProps       `json:"properties"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
	Const                *json.RawMessage   `json:"const"`
	Items                *schema            `json:"items"`
	Ref                  string             `json:"$ref"`
	Defs                 map[string]*schema `json:"$defs"`
	Format               string             `json:"format"`
	MinLength            *int               `json:"minLength"`
	MaxLength            *int               `json:"maxLength"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	Default              any                `json:"default"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Pattern              string             `json:"pattern"`
	MinItems             *int               `json:"minItems"`
	MaxItems             *int               `json:"maxItems"`
	// OneOf is either a root union of $refs (the output of a tool that
	// answers a result or a refusal: the Go type is the first branch, the
	// TypeScript type the union) or, beside properties, a validation-only
	// constraint such as "exactly one of these fields".
	OneOf []*schema `json:"oneOf"`
}

var knownKeywords = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "type": true,
	"properties": true, "required": true, "enum": true, "const": true, "items": true,
	"$ref": true, "$defs": true, "format": true, "minLength": true, "maxLength": true,
	"minimum": true, "maximum": true, "default": true, "additionalProperties": true,
	"pattern": true, "minItems": true, "maxItems": true, "oneOf": true,
}

// checkKeywords walks raw JSON and reports any keyword the generator does not handle.
func checkKeywords(raw json.RawMessage, where string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	for k, v := range obj {
		if !knownKeywords[k] {
			return fmt.Errorf("%s: keyword %q is not supported by gen-contracts", where, k)
		}
		switch k {
		case "properties", "$defs":
			var m map[string]json.RawMessage
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("%s/%s: %w", where, k, err)
			}
			for name, sub := range m {
				if err := checkKeywords(sub, where+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items":
			if err := checkKeywords(v, where+"/items"); err != nil {
				return err
			}
		case "oneOf":
			var l []json.RawMessage
			if err := json.Unmarshal(v, &l); err != nil {
				return fmt.Errorf("%s/oneOf: %w", where, err)
			}
			for i, sub := range l {
				if err := checkKeywords(sub, fmt.Sprintf("%s/oneOf/%d", where, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// typeList accepts "type": "string" and "type": ["string", "null"].
type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = typeList{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*t = l
	return nil
}

// nonNull returns the one non-null type and whether null is allowed.
func (t typeList) nonNull() (string, bool) {
	var typ string
	nullable := false
	for _, x := range t {
		if x == "null" {
			nullable = true
		} else {
			typ = x
		}
	}
	return typ, nullable
}

type prop struct {
	Name   string
	Schema *schema
}

// orderedProps keeps properties in the order the contract lists them, so the
// generated structs and declarations read in the same order as the schema.
type orderedProps []prop

func (o *orderedProps) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("properties must be an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string)
		var s schema
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("property %s: %w", name, err)
		}
		*o = append(*o, prop{Name: name, Schema: &s})
	}
	_, err := dec.Token()
	return err
}

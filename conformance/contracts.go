package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// Contracts is everything the suite reads from contracts/, loaded once before
// the specs are built so that tables can be generated from the files.
type Contracts struct {
	Manifest *contracts.Manifest
	Errors   []contracts.ErrorEntry
	Samples  []contracts.Sample
	Tools    map[string]*ToolContract
}

// ToolContract is one tool's schemas, raw and compiled.
type ToolContract struct {
	Tool         contracts.Tool
	InputRaw     json.RawMessage
	OutputRaw    json.RawMessage
	Input        *Schema // decoded input schema (the generators walk it)
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
}

// Schema is the part of a JSON Schema the argument generators understand.
// Only what the input schemas use is modelled; [LoadContracts] refuses an
// input schema that uses a keyword the generators would silently ignore.
type Schema struct {
	Type       any                `json:"type"`
	Properties map[string]*Schema `json:"properties"`
	Required   []string           `json:"required"`
	Enum       []any              `json:"enum"`
	MinLength  *int               `json:"minLength"`
	MaxLength  *int               `json:"maxLength"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
	Format     string             `json:"format"`
	Default    any                `json:"default"`
	Items      *Schema            `json:"items"`
	MinItems   *int               `json:"minItems"`
	MaxItems   *int               `json:"maxItems"`
}

// TypeName returns the schema's single type ("" when absent).
func (s *Schema) TypeName() string {
	t, _ := s.Type.(string)
	return t
}

// IsRequired says whether the object schema requires name.
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

var knownInputKeywords = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "type": true,
	"properties": true, "required": true, "enum": true, "minLength": true, "maxLength": true,
	"minimum": true, "maximum": true, "format": true, "default": true,
	"items": true, "minItems": true, "maxItems": true,
}

// LoadContracts reads and compiles the contracts.
func LoadContracts() (*Contracts, error) {
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		return nil, err
	}
	errs, err := tridentcontracts.Set.Errors()
	if err != nil {
		return nil, err
	}
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		return nil, err
	}
	c := &Contracts{Manifest: m, Errors: errs, Samples: samples, Tools: map[string]*ToolContract{}}
	for _, t := range m.Tools {
		tc := &ToolContract{Tool: t}
		if tc.InputRaw, err = t.Input(); err != nil {
			return nil, err
		}
		if tc.OutputRaw, err = t.Output(); err != nil {
			return nil, err
		}
		if err := checkKeywords(t.InputSchema, tc.InputRaw); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(tc.InputRaw, &tc.Input); err != nil {
			return nil, fmt.Errorf("%s: %w", t.InputSchema, err)
		}
		if tc.InputSchema, err = CompileSchema(t.InputSchema, tc.InputRaw); err != nil {
			return nil, err
		}
		if tc.OutputSchema, err = CompileSchema(t.OutputSchema, tc.OutputRaw); err != nil {
			return nil, err
		}
		c.Tools[t.Name] = tc
	}
	return c, nil
}

// checkKeywords refuses input-schema keywords the generators do not model, so
// that a contract change cannot make the suite quietly test less.
func checkKeywords(name string, raw json.RawMessage) error {
	var walk func(path string, v map[string]json.RawMessage) error
	walk = func(path string, v map[string]json.RawMessage) error {
		for k, sub := range v {
			if !knownInputKeywords[k] {
				return fmt.Errorf("%s%s: keyword %q is not modelled by the conformance generators; teach conformance/argsgen.go about it", name, path, k)
			}
			if k == "items" {
				var item map[string]json.RawMessage
				if err := json.Unmarshal(sub, &item); err != nil {
					return fmt.Errorf("%s%s/items: %w", name, path, err)
				}
				if err := walk(path+"/items", item); err != nil {
					return err
				}
			}
			if k == "properties" {
				var props map[string]map[string]json.RawMessage
				if err := json.Unmarshal(sub, &props); err != nil {
					return fmt.Errorf("%s%s/properties: %w", name, path, err)
				}
				for p, ps := range props {
					if err := walk(path+"/properties/"+p, ps); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return walk("", top)
}

// CompileSchema compiles one Draft 2020-12 schema with format assertions on
// (date-time, uri), since the contracts rely on them.
func CompileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	comp.AssertFormat = true
	url := "contracts:///" + name
	if err := comp.AddResource(url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := comp.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Validate checks a JSON value (as raw bytes) against s.
func Validate(s *jsonschema.Schema, raw json.RawMessage) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return s.Validate(v)
}

// ErrorEntry returns the catalogue row named code.
func (c *Contracts) ErrorEntry(code string) (contracts.ErrorEntry, bool) {
	for _, e := range c.Errors {
		if e.Name == code {
			return e, true
		}
	}
	return contracts.ErrorEntry{}, false
}

// ToolErrorSignals maps each tool-surface catalogue code to its signal.
func (c *Contracts) ToolErrorSignals() map[string]string {
	out := map[string]string{}
	for _, e := range c.Errors {
		if e.Surface == "tool" && e.Signal != "" {
			out[e.Name] = e.Signal
		}
	}
	return out
}

var capacityRE = regexp.MustCompile(`(\w+) ≤(\d+)`)

// Capacities reads the seat limits per vehicle from the CAPACITY_EXCEEDED
// row's meaning ("saloon ≤4, mpv ≤7, wav ≤4"), so that a tariff change in the
// catalogue changes the cases.
func (c *Contracts) Capacities() (map[string]int, error) {
	e, ok := c.ErrorEntry("CAPACITY_EXCEEDED")
	if !ok {
		return nil, fmt.Errorf("errors.json has no CAPACITY_EXCEEDED row")
	}
	out := map[string]int{}
	for _, m := range capacityRE.FindAllStringSubmatch(e.Meaning, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("CAPACITY_EXCEEDED meaning %q names no 'vehicle ≤N' limits", e.Meaning)
	}
	return out, nil
}

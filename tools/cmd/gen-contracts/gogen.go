package main

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// goGen accumulates Go declarations; types are emitted once, by name.
type goGen struct {
	buf    bytes.Buffer
	seen   map[string]string  // type name -> where it was defined, to catch clashes
	shapes map[string]*schema // type name -> its schema, so identical copies are one type
	defs   map[string]*schema
	where  string
}

func genGoTypes(m *contracts.Manifest, tools []toolSchemas) ([]byte, error) {
	g := &goGen{seen: map[string]string{}, shapes: map[string]*schema{}}
	var b bytes.Buffer
	b.WriteString(header("gen-contracts"))
	b.WriteString(`// Package mcptypes holds the Go types of every tool's arguments and structured
// result, generated from the JSON Schemas in contracts/trident/schemas. Optional fields
// are pointers (lists: slices, nil when absent) tagged omitzero, so that "absent" and
// "zero" (or an empty list) stay distinct on the wire.
package mcptypes

`)
	b.WriteString("// Tool names, as served by tools/list.\nconst (\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "\tTool%s = %q\n", exported(t.Name), t.Name)
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "// ToolNames lists every tool in tools/list order.\nvar ToolNames = []string{")
	for i, t := range tools {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "Tool%s", exported(t.Name))
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "// Server identity and protocol, from contracts/trident/tools.json.\nconst (\n\tServerName = %q\n\tServerVersion = %q\n\tProtocolVersion = %q\n)\n\n",
		m.Server.Name, m.Server.Version, m.Server.ProtocolVersion)

	for _, t := range tools {
		for _, s := range []struct {
			sc   *schema
			file string
		}{{t.In, t.InputSchema}, {t.Out, t.OutputSchema}} {
			g.defs = s.sc.Defs
			g.where = s.file
			if len(s.sc.OneOf) > 0 && len(s.sc.Properties) == 0 {
				if err := g.union(s.sc.Title, s.sc); err != nil {
					return nil, err
				}
				continue
			}
			if err := g.object(s.sc.Title, s.sc); err != nil {
				return nil, err
			}
		}
	}
	b.Write(g.buf.Bytes())
	return b.Bytes(), nil
}

// claim reserves a type name. A second definition under the same name is
// the same type when its schema is identical (a $def that several
// self-contained schema files each carry), and a clash otherwise.
func (g *goGen) claim(name string, s *schema) (bool, error) {
	if prev, ok := g.seen[name]; ok {
		if prev == g.where || reflect.DeepEqual(g.shapes[name], s) {
			return false, nil
		}
		return false, fmt.Errorf("type %s defined differently in %s and %s", name, prev, g.where)
	}
	g.seen[name] = g.where
	g.shapes[name] = s
	return true, nil
}

// union emits each branch of a root oneOf of $refs, and the root's title as
// an alias of the first: the result a client decodes on success. The other
// branches (a refusal's shape) are types of their own.
func (g *goGen) union(name string, s *schema) error {
	var first string
	for i, b := range s.OneOf {
		if b.Ref == "" {
			return fmt.Errorf("%s: %s: a root oneOf must list $refs only", g.where, name)
		}
		def, bname, err := g.resolve(b.Ref)
		if err != nil {
			return err
		}
		if i == 0 {
			first = bname
		}
		if err := g.object(bname, def); err != nil {
			return err
		}
	}
	fresh, err := g.claim(name, s)
	if err != nil || !fresh {
		return err
	}
	comment(&g.buf, "", orDefault(s.Description, name+" is generated from "+g.where+".")+"\n"+name+" is the first branch of the union; the others are their own types.")
	fmt.Fprintf(&g.buf, "type %s = %s\n\n", name, first)
	return nil
}

func (g *goGen) object(name string, s *schema) error {
	if typ, _ := s.Type.nonNull(); typ != "object" {
		return fmt.Errorf("%s: %s must be an object", g.where, name)
	}
	fresh, err := g.claim(name, s)
	if err != nil || !fresh {
		return err
	}
	var fields bytes.Buffer
	var pending []func() error
	for _, p := range s.Properties {
		req := slices.Contains(s.Required, p.Name)
		typ, after, err := g.fieldType(name, p.Name, p.Schema, req)
		if err != nil {
			return err
		}
		if after != nil {
			pending = append(pending, after)
		}
		comment(&fields, "\t", p.Schema.Description+constraints(p.Schema))
		tag := p.Name
		if !req {
			// omitzero, not omitempty: an empty list the server sends
			// (appliedRules when no rule applied) stays on the wire.
			tag += ",omitzero"
		}
		fmt.Fprintf(&fields, "\t%s %s `json:%q`\n", exported(p.Name), typ, tag)
	}
	comment(&g.buf, "", orDefault(s.Description, name+" is generated from "+g.where+"."))
	fmt.Fprintf(&g.buf, "type %s struct {\n%s}\n\n", name, fields.String())
	for _, f := range pending {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// fieldType returns the Go type of a property and, for named types it needs,
// a function that emits them after the current struct.
func (g *goGen) fieldType(parent, prop string, s *schema, required bool) (string, func() error, error) {
	if s.Ref != "" {
		def, name, err := g.resolve(s.Ref)
		if err != nil {
			return "", nil, err
		}
		t := name
		if !required {
			t = "*" + t
		}
		return t, func() error { return g.object(name, def) }, nil
	}
	typ, nullable := s.Type.nonNull()
	if s.Const != nil && typ == "" {
		switch string(*s.Const) {
		case "true", "false":
			typ = "boolean"
		default:
			return "", nil, fmt.Errorf("%s: %s.%s: only boolean consts are supported", g.where, parent, prop)
		}
	}
	ptr := !required || nullable
	var t string
	var after func() error
	switch typ {
	case "string":
		t = "string"
		if len(s.Enum) > 0 {
			name := parent + exported(prop)
			t, after = name, func() error { return g.enum(name, s) }
		}
	case "integer":
		t = "int64"
	case "number":
		t = "float64"
	case "boolean":
		t = "bool"
	case "array":
		if s.Items == nil {
			return "", nil, fmt.Errorf("%s: %s.%s: array without items", g.where, parent, prop)
		}
		it, itAfter, err := g.fieldType(parent, prop+"Item", s.Items, true)
		if err != nil {
			return "", nil, err
		}
		return "[]" + it, itAfter, nil
	case "object":
		if len(s.Properties) == 0 && (s.AdditionalProperties == nil || *s.AdditionalProperties) {
			// A free-form object (e.g. arguments for another connector's tool).
			t = "map[string]any"
			break
		}
		name := parent + exported(prop)
		t, after = name, func() error { return g.object(name, s) }
	default:
		return "", nil, fmt.Errorf("%s: %s.%s: unsupported type %q", g.where, parent, prop, typ)
	}
	if ptr {
		t = "*" + t
	}
	return t, after, nil
}

func (g *goGen) resolve(ref string) (*schema, string, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, "", fmt.Errorf("%s: only local #/$defs refs are supported, got %q", g.where, ref)
	}
	def := g.defs[name]
	if def == nil {
		return nil, "", fmt.Errorf("%s: unresolved ref %q", g.where, ref)
	}
	if def.Title != "" {
		name = def.Title
	}
	return def, name, nil
}

func (g *goGen) enum(name string, s *schema) error {
	fresh, err := g.claim(name, s)
	if err != nil || !fresh {
		return err
	}
	comment(&g.buf, "", orDefault(s.Description, name+" is an enumeration.")+" One of the "+name+"* constants.")
	fmt.Fprintf(&g.buf, "type %s string\n\nconst (\n", name)
	var all []string
	for _, v := range s.Enum {
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: %s: enum values must be strings", g.where, name)
		}
		c := name + exported(str)
		all = append(all, c)
		fmt.Fprintf(&g.buf, "\t%s %s = %q\n", c, name, str)
	}
	fmt.Fprintf(&g.buf, ")\n\n// %sValues lists every %s in schema order.\nvar %sValues = []%s{%s}\n\n", name, name, name, name, strings.Join(all, ", "))
	fmt.Fprintf(&g.buf, "// Valid reports whether v is one of the schema's values.\nfunc (v %s) Valid() bool {\n\tswitch v {\n\tcase %s:\n\t\treturn true\n\t}\n\treturn false\n}\n\n", name, strings.Join(all, ", "))
	return nil
}

func constraints(s *schema) string {
	var parts []string
	if s.MinLength != nil || s.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("length %s–%s", intOr(s.MinLength, "0"), intOr(s.MaxLength, "∞")))
	}
	if s.Minimum != nil || s.Maximum != nil {
		parts = append(parts, fmt.Sprintf("range %s–%s", floatOr(s.Minimum, "-∞"), floatOr(s.Maximum, "∞")))
	}
	if s.MinItems != nil || s.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("items %s–%s", intOr(s.MinItems, "0"), intOr(s.MaxItems, "∞")))
	}
	if s.Format != "" {
		parts = append(parts, "format "+s.Format)
	}
	if s.Pattern != "" {
		parts = append(parts, "pattern "+s.Pattern)
	}
	if s.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", s.Default))
	}
	if s.Const != nil {
		parts = append(parts, "always "+string(*s.Const))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func intOr(p *int, d string) string {
	if p == nil {
		return d
	}
	return strconv.Itoa(*p)
}

func floatOr(p *float64, d string) string {
	if p == nil {
		return d
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

func comment(b *bytes.Buffer, indent, text string) {
	if text == "" {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		fmt.Fprintf(b, "%s// %s\n", indent, line)
	}
}

// exported turns estimate_fare, vehicleType or 5seater into EstimateFare,
// VehicleType and 5seater-safe identifiers.
func exported(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' || r == '-' || r == ' ' || r == '.' {
			up = true
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	out := b.String()
	for _, ini := range []string{"Url", "Id"} {
		if strings.HasSuffix(out, ini) {
			out = strings.TrimSuffix(out, ini) + strings.ToUpper(ini)
		}
	}
	return out
}

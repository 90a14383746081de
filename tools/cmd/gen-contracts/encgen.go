package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"

	"github.com/tridenttaxis/trident-mcp/internal/jsontag"
)

// genEncoders writes encode.gen.go for the package whose source is types
// (types.gen.go as genGoTypes wrote it): for every struct type an
// AppendJSON method (jsonenc.Appender) that appends what a json.Encoder
// with SetEscapeHTML(false) writes for the value, newline aside.
//
// It reads the Go declarations rather than the schemas so that the
// encoders follow the types as they are (field order, tags, pointers),
// and it encodes by hand only what it knows encoding/json's rules for:
// strings and string types (jsonquote), bools, integers, floats
// (jsonenc.AppendFloat64), pointers, slices and the package's structs.
// Any other value (a map, an interface, a []byte) is left to encoding/json
// (jsonenc.AppendValue), and a type encoding/json would treat specially
// (a MarshalJSON, MarshalText or IsZero method, an embedded field, a
// ",string" option) stops the generator rather than be guessed at.
//
// Why: encoding/json walks a value by reflection, and this is a tool
// result's encoding on every call. The search_rides sample's result
// through Relay's marshal: 36.7 µs to 10.9 µs (BenchmarkMarshal,
// server/relay, six runs each on a shared 2-core machine). Trident's
// estimate_fare reply through the fast path: 2.38 µs to 2.02 µs, within
// the noise (BenchmarkFastEstimateFareEncoding, server/mcphttp).
func genEncoders(types []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types.gen.go", types, 0)
	if err != nil {
		return nil, fmt.Errorf("encgen: %w", err)
	}
	g := &encGen{decls: map[string]*ast.TypeSpec{}, methods: map[string][]string{}, canFail: map[string]bool{}, imports: map[string]bool{}}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					g.decls[ts.Name.Name] = ts
					if _, ok := ts.Type.(*ast.StructType); ok && !ts.Assign.IsValid() {
						g.structs = append(g.structs, ts.Name.Name)
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				r := d.Recv.List[0].Type
				if s, ok := r.(*ast.StarExpr); ok {
					r = s.X
				}
				if id, ok := r.(*ast.Ident); ok {
					g.methods[id.Name] = append(g.methods[id.Name], d.Name.Name)
				}
			}
		}
	}
	for _, name := range g.structs {
		if err := g.structEncoder(name); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	b.WriteString(header("gen-contracts"))
	fmt.Fprintf(&b, "package %s\n\n", f.Name.Name)
	b.WriteString("// Every struct's AppendJSON (jsonenc.Appender) appends the value as a\n// json.Encoder with SetEscapeHTML(false) writes it, without the newline;\n// see tools/cmd/gen-contracts/encgen.go for what it encodes by hand.\n\n")
	b.WriteString("import (\n")
	for _, p := range []string{"strconv", "", "github.com/tridenttaxis/trident-mcp/internal/jsonenc", "github.com/tridenttaxis/trident-mcp/internal/jsonquote"} {
		if p == "" {
			b.WriteString("\n")
		} else if g.imports[p] {
			fmt.Fprintf(&b, "\t%q\n", p)
		}
	}
	b.WriteString(")\n\n")
	b.Write(g.buf.Bytes())
	return b.Bytes(), nil
}

type encGen struct {
	decls   map[string]*ast.TypeSpec
	methods map[string][]string
	structs []string
	canFail map[string]bool // struct name -> whether its encoder can return an error
	imports map[string]bool
	buf     bytes.Buffer
}

// kind is how a type is encoded.
type kind int

const (
	kFallback kind = iota // encoding/json
	kString
	kBool
	kInt
	kUint
	kFloat64
	kFloat32
	kPointer
	kSlice
	kStruct
	kMap
	kInterface
)

// typeInfo is a resolved type: its kind, the struct's name for kStruct,
// the element for kPointer and kSlice.
type typeInfo struct {
	kind kind
	name string
	elem ast.Expr
}

// specialMethods are the methods encoding/json calls instead of walking a
// value; a type with one is not encoded here.
var specialMethods = []string{"MarshalJSON", "MarshalText", "IsZero"}

func (g *encGen) resolve(t ast.Expr) (typeInfo, error) {
	switch t := t.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return typeInfo{kind: kString}, nil
		case "bool":
			return typeInfo{kind: kBool}, nil
		case "int", "int8", "int16", "int32", "int64", "rune":
			return typeInfo{kind: kInt}, nil
		case "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte":
			return typeInfo{kind: kUint}, nil
		case "float64":
			return typeInfo{kind: kFloat64}, nil
		case "float32":
			return typeInfo{kind: kFloat32}, nil
		case "any":
			return typeInfo{kind: kInterface}, nil
		}
		ts, ok := g.decls[t.Name]
		if !ok {
			return typeInfo{}, fmt.Errorf("encgen: unknown type %s", t.Name)
		}
		for _, m := range g.methods[t.Name] {
			for _, s := range specialMethods {
				if m == s {
					return typeInfo{}, fmt.Errorf("encgen: %s has a %s method, which encoding/json calls: not supported", t.Name, m)
				}
			}
		}
		if _, ok := ts.Type.(*ast.StructType); ok && !ts.Assign.IsValid() {
			return typeInfo{kind: kStruct, name: t.Name}, nil
		}
		return g.resolve(ts.Type)
	case *ast.StarExpr:
		return typeInfo{kind: kPointer, elem: t.X}, nil
	case *ast.ArrayType:
		if t.Len != nil {
			return typeInfo{kind: kFallback}, nil
		}
		e, err := g.resolve(t.Elt)
		if err != nil {
			return typeInfo{}, err
		}
		if e.kind == kUint {
			// []byte is base64, and []uint8 of a named byte type is
			// subtle: encoding/json's own rules.
			return typeInfo{kind: kFallback}, nil
		}
		return typeInfo{kind: kSlice, elem: t.Elt}, nil
	case *ast.MapType:
		return typeInfo{kind: kMap}, nil
	case *ast.InterfaceType:
		return typeInfo{kind: kInterface}, nil
	}
	return typeInfo{kind: kFallback}, nil
}

// fails reports whether encoding a value of t can return an error.
func (g *encGen) fails(t ast.Expr) bool {
	ti, err := g.resolve(t)
	if err != nil {
		return true
	}
	switch ti.kind {
	case kFallback, kMap, kInterface, kFloat64, kFloat32:
		return true
	case kPointer, kSlice:
		return g.fails(ti.elem)
	case kStruct:
		if v, ok := g.canFail[ti.name]; ok {
			return v
		}
		g.canFail[ti.name] = false // a cycle adds nothing
		st := g.decls[ti.name].Type.(*ast.StructType)
		v := false
		for _, f := range st.Fields.List {
			v = v || g.fails(f.Type)
		}
		g.canFail[ti.name] = v
		return v
	}
	return false
}

// field is one encoded field of a struct.
type field struct {
	goName, key string
	typ         ast.Expr
	omitEmpty   bool
	omitZero    bool
}

func (g *encGen) fields(name string, st *ast.StructType) ([]field, error) {
	var out []field
	seen := map[string]bool{}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			return nil, fmt.Errorf("encgen: %s: an embedded field is not supported", name)
		}
		tag := ""
		if f.Tag != nil {
			raw, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				return nil, fmt.Errorf("encgen: %s: %w", name, err)
			}
			tag = reflect.StructTag(raw).Get("json")
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			if n.Name == "AppendJSON" {
				return nil, fmt.Errorf("encgen: %s: a field named AppendJSON clashes with the method", name)
			}
			if tag == "-" {
				continue
			}
			key, opts, _ := strings.Cut(tag, ",")
			if !jsontag.ValidName(key) {
				key = n.Name
			}
			fl := field{goName: n.Name, key: key, typ: f.Type}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "":
				case "omitempty":
					fl.omitEmpty = true
				case "omitzero":
					fl.omitZero = true
				default:
					return nil, fmt.Errorf("encgen: %s.%s: tag option %q is not supported", name, n.Name, o)
				}
			}
			if seen[key] {
				return nil, fmt.Errorf("encgen: %s: two fields named %q (encoding/json would drop both)", name, key)
			}
			seen[key] = true
			out = append(out, fl)
		}
	}
	return out, nil
}

// keyJSON is a key as encoding/json writes it without HTML escaping.
func keyJSON(k string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(k)
	return strings.TrimSuffix(b.String(), "\n") + ":"
}

func (g *encGen) structEncoder(name string) error {
	st := g.decls[name].Type.(*ast.StructType)
	fields, err := g.fields(name, st)
	if err != nil {
		return err
	}
	fails := g.fails(&ast.Ident{Name: name})
	var body bytes.Buffer
	// With the first field always written, each key is a constant with
	// its separator; otherwise every field writes a comma and the first
	// one is made the opening brace at the end.
	fixup := len(fields) > 0 && (fields[0].omitEmpty || fields[0].omitZero)
	if fixup {
		body.WriteString("start := len(dst)\n")
	}
	if len(fields) == 0 {
		body.WriteString("dst = append(dst, \"{\"...)\n")
	}
	for i, f := range fields {
		prefix := ","
		if i == 0 && !fixup {
			prefix = "{"
		}
		x := "v." + f.goName
		cond, nonNil, err := g.keepCond(x, f)
		if err != nil {
			return fmt.Errorf("encgen: %s.%s: %w", name, f.goName, err)
		}
		var code bytes.Buffer
		fmt.Fprintf(&code, "dst = append(dst, %s...)\n", strconv.Quote(prefix+keyJSON(f.key)))
		if err := g.value(&code, x, f.typ, 0, nonNil); err != nil {
			return fmt.Errorf("encgen: %s.%s: %w", name, f.goName, err)
		}
		if cond != "" {
			fmt.Fprintf(&body, "if %s {\n%s}\n", cond, code.String())
		} else {
			body.Write(code.Bytes())
		}
	}
	switch {
	case fixup:
		body.WriteString("if len(dst) == start {\ndst = append(dst, \"{}\"...)\n} else {\ndst[start] = '{'\ndst = append(dst, '}')\n}\n")
	default:
		body.WriteString("dst = append(dst, '}')\n")
	}
	fmt.Fprintf(&g.buf, "// AppendJSON appends v as a json.Encoder with SetEscapeHTML(false) writes it,\n// without the newline.\nfunc (v %s) AppendJSON(dst []byte) ([]byte, error) { return v.appendJSON(dst) }\n\n", name)
	fmt.Fprintf(&g.buf, "func (v *%s) appendJSON(dst []byte) ([]byte, error) {\n", name)
	if fails {
		g.buf.WriteString("var err error\n")
	}
	g.buf.Write(body.Bytes())
	g.buf.WriteString("return dst, nil\n}\n\n")
	return nil
}

// keepCond is the Go condition under which encoding/json writes the
// field: not omitempty's isEmptyValue nor omitzero's reflect.Value.IsZero
// (neither, when both are given), or "" for a field always written. nonNil
// is whether it implies x != nil.
func (g *encGen) keepCond(x string, f field) (cond string, nonNil bool, err error) {
	if !f.omitEmpty && !f.omitZero {
		return "", false, nil
	}
	ti, err := g.resolve(f.typ)
	if err != nil {
		return "", false, err
	}
	var conds []string
	add := func(c string) {
		for _, have := range conds {
			if have == c {
				return
			}
		}
		conds = append(conds, c)
	}
	if f.omitEmpty {
		switch ti.kind {
		case kString, kSlice, kMap:
			add("len(" + x + ") != 0")
		case kBool:
			add(x)
		case kInt, kUint, kFloat64, kFloat32:
			add(x + " != 0")
		case kPointer, kInterface:
			add(x + " != nil")
			nonNil = true
		case kStruct: // never empty
		default:
			return "", false, fmt.Errorf("omitempty on this type is not supported")
		}
	}
	if f.omitZero {
		switch ti.kind {
		case kString:
			add("len(" + x + ") != 0")
		case kBool:
			add(x)
		case kInt, kUint, kFloat64, kFloat32: // -0 is zero to reflect too
			add(x + " != 0")
		case kPointer, kInterface, kSlice, kMap:
			add(x + " != nil")
			nonNil = true
		default: // a struct: reflect's rules (== for a comparable one)
			g.imports["github.com/tridenttaxis/trident-mcp/internal/jsonenc"] = true
			add("!jsonenc.IsZero(" + x + ")")
		}
	}
	return strings.Join(conds, " && "), nonNil, nil
}

// value writes the statements that append x, an addressable expression of
// type t, to dst; depth names loop variables, and nonNil says that x, a
// pointer or slice, is known not to be nil.
func (g *encGen) value(b *bytes.Buffer, x string, t ast.Expr, depth int, nonNil bool) error {
	ti, err := g.resolve(t)
	if err != nil {
		return err
	}
	jsonenc := "github.com/tridenttaxis/trident-mcp/internal/jsonenc"
	switch ti.kind {
	case kString:
		g.imports["github.com/tridenttaxis/trident-mcp/internal/jsonquote"] = true
		fmt.Fprintf(b, "dst = jsonquote.Append(dst, %s)\n", convert("string", x, t))
	case kBool:
		fmt.Fprintf(b, "if %s {\ndst = append(dst, \"true\"...)\n} else {\ndst = append(dst, \"false\"...)\n}\n", x)
	case kInt:
		g.imports["strconv"] = true
		fmt.Fprintf(b, "dst = strconv.AppendInt(dst, %s, 10)\n", convert("int64", x, t))
	case kUint:
		g.imports["strconv"] = true
		fmt.Fprintf(b, "dst = strconv.AppendUint(dst, %s, 10)\n", convert("uint64", x, t))
	case kFloat64, kFloat32:
		g.imports[jsonenc] = true
		fn, conv := "AppendFloat64", "float64"
		if ti.kind == kFloat32 {
			fn, conv = "AppendFloat32", "float32"
		}
		fmt.Fprintf(b, "if dst, err = jsonenc.%s(dst, %s); err != nil {\nreturn dst, err\n}\n", fn, convert(conv, x, t))
	case kPointer:
		if !nonNil {
			fmt.Fprintf(b, "if %s == nil {\ndst = append(dst, \"null\"...)\n} else {\n", x)
		}
		if err := g.value(b, "(*"+x+")", ti.elem, depth, false); err != nil {
			return err
		}
		if !nonNil {
			b.WriteString("}\n")
		}
	case kSlice:
		i := fmt.Sprintf("i%d", depth)
		if !nonNil {
			fmt.Fprintf(b, "if %s == nil {\ndst = append(dst, \"null\"...)\n} else {\n", x)
		}
		fmt.Fprintf(b, "dst = append(dst, '[')\nfor %s := range %s {\nif %s > 0 {\ndst = append(dst, ',')\n}\n", i, x, i)
		if err := g.value(b, x+"["+i+"]", ti.elem, depth+1, false); err != nil {
			return err
		}
		b.WriteString("}\ndst = append(dst, ']')\n")
		if !nonNil {
			b.WriteString("}\n")
		}
	case kStruct:
		if g.fails(t) {
			fmt.Fprintf(b, "if dst, err = %s.appendJSON(dst); err != nil {\nreturn dst, err\n}\n", x)
		} else {
			fmt.Fprintf(b, "dst, _ = %s.appendJSON(dst)\n", x)
		}
	default: // maps (sorted keys), interfaces, anything else: encoding/json's own
		g.imports[jsonenc] = true
		fmt.Fprintf(b, "if dst, err = jsonenc.AppendValue(dst, %s); err != nil {\nreturn dst, err\n}\n", x)
	}
	return nil
}

// convert is x as the builtin type to, converted unless t is that type.
func convert(to, x string, t ast.Expr) string {
	if id, ok := t.(*ast.Ident); ok && id.Name == to {
		return x
	}
	return to + "(" + x + ")"
}

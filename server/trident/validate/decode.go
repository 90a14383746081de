package validate

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/tridenttaxis/trident-mcp/internal/jsontag"
)

// DecodeNormal decodes args into v, a pointer to a tool's input struct,
// when [Schema.Validate] would return them as given (the common call a
// flat object of plain strings, booleans and arrays of plain strings is:
// see alreadyNormal) and json.Unmarshal of them into v could only set
// string and bool fields and nil slices of strings, as it does here. It reports false, with v untouched, for anything else,
// which the caller then validates and unmarshals in full; so a true is
// always what Validate then json.Unmarshal would do (TestDecodeNormal and
// FuzzDecodeNormal compare the two).
//
// Why by hand: the two steps read the arguments three times (json.Valid,
// the check, json.Unmarshal's own validity scan before its decoding), and
// json.Unmarshal was 16% of BenchmarkEstimateFare; here one strict pass
// reads them, and the members it found are stored into the fields. Arrays
// of plain strings are read too because Relay's call, once per search,
// names alternativeVehicleTypes: left to the general path it was validated
// then unmarshalled in full (BenchmarkEstimateFareAlternatives: 24.7 µs,
// 95 allocations; 18.0 µs, 55 now).
func (s *Schema) DecodeNormal(args json.RawMessage, v any) bool {
	var ms [64]plainMember
	n, ok := s.plainMembers(bytes.TrimSpace(args), &ms)
	if !ok {
		return false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	p := s.planFor(rv.Type())
	if p == nil {
		return false
	}
	st := rv.Elem()
	for _, m := range ms[:n] {
		f := p.slots[m.prop]
		if f.unsupported || f.field >= 0 && f.kind != m.kind {
			return false // json.Unmarshal's own error, or its own way: the caller's
		}
		if f.field >= 0 && f.kind == plainStrings {
			fv := st.Field(f.field)
			if f.ptr && !fv.IsNil() {
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Slice && !fv.IsNil() {
				return false // json.Unmarshal reuses the slice's array: its way, not repeated here
			}
		}
	}
	for _, m := range ms[:n] {
		f := p.slots[m.prop]
		if f.field < 0 {
			continue // no field of that name: json.Unmarshal ignores the key
		}
		fv := st.Field(f.field)
		if f.ptr {
			if fv.IsNil() {
				fv.Set(reflect.New(fv.Type().Elem()))
			}
			fv = fv.Elem()
		}
		switch f.kind {
		case plainStr:
			fv.SetString(string(m.value))
		case plainBool:
			fv.SetBool(m.value[0] == 't')
		case plainStrings:
			sl := reflect.MakeSlice(fv.Type(), m.items, m.items)
			i := 0
			eachPlainString(m.value, func(raw []byte) {
				sl.Index(i).SetString(string(raw))
				i++
			})
			fv.Set(sl)
		}
	}
	return true
}

// decodePlan says where json.Unmarshal stores each root property of the
// schema in one struct type; slots is indexed as the root's props.
type decodePlan struct{ slots []slot }

type slot struct {
	field       int       // index of the struct field; -1: none, the key is ignored
	ptr         bool      // the field is a pointer to the string, bool or slice
	kind        plainKind // the value it takes: string, bool or slice of strings (kinds)
	unsupported bool      // json.Unmarshal does more than set the value: leave it to it
}

// planFor returns the plan for the pointer type t, or nil when t is not a
// pointer to a struct whose fields this package can set as json.Unmarshal
// does.
func (s *Schema) planFor(t reflect.Type) *decodePlan {
	if p, ok := s.plans.Load(t); ok {
		return p.(*decodePlan)
	}
	p := s.newPlan(t)
	s.plans.Store(t, p)
	return p
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumber      = reflect.TypeFor[json.Number]()
)

// unmarshalsItself reports whether json.Unmarshal hands a value of type t
// to a method of its own rather than storing it.
func unmarshalsItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
}

func (s *Schema) newPlan(t reflect.Type) *decodePlan {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || unmarshalsItself(t.Elem()) {
		return nil
	}
	st := t.Elem()
	type named struct {
		name   string
		index  int
		quoted bool // the ",string" option
	}
	var fields []named
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Anonymous {
			return nil // embedded fields promote theirs: json.Unmarshal's rules, not repeated here
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name != "" && !jsontag.ValidName(name) {
			return nil // a name json.Unmarshal replaces by the field's: not repeated here
		}
		if name == "" {
			name = f.Name
		}
		fields = append(fields, named{name, i, strings.Contains(","+opts+",", ",string,")})
	}
	for i, a := range fields {
		for _, b := range fields[i+1:] {
			if strings.EqualFold(a.name, b.name) {
				return nil // json.Unmarshal's precedence between them, not repeated here
			}
		}
	}
	p := &decodePlan{slots: make([]slot, len(s.root.props))}
	for i, pr := range s.root.props {
		sl := slot{field: -1}
		for _, f := range fields {
			if f.name != pr.name {
				if strings.EqualFold(f.name, pr.name) {
					sl.unsupported = true // json.Unmarshal matches it, case aside
				}
				continue
			}
			ft := st.Field(f.index).Type
			sl.field = f.index
			if ft.Kind() == reflect.Pointer {
				if unmarshalsItself(ft) {
					sl.unsupported = true
				}
				sl.ptr, ft = true, ft.Elem()
			}
			switch {
			case f.quoted || ft == jsonNumber || unmarshalsItself(ft):
				sl.unsupported = true
			case ft.Kind() == reflect.String:
				sl.kind = plainStr
			case ft.Kind() == reflect.Bool:
				sl.kind = plainBool
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String && !unmarshalsItself(ft.Elem()):
				sl.kind = plainStrings
			default:
				sl.unsupported = true
			}
		}
		p.slots[i] = sl
	}
	return p
}

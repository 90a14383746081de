package client

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/tridenttaxis/trident-mcp/internal/jsonscan"
	"github.com/tridenttaxis/trident-mcp/internal/jsontag"
)

// decodeStrict decodes the JSON value b, which the caller has checked to be
// valid JSON, into the zero value v points to as json.Unmarshal would, for
// the shapes generated outputs have: structs of strings, numbers, booleans,
// pointers and slices of those. It reports false where it is not sure to
// do as json.Unmarshal does (a type it does not know, such as a map, an
// interface or one with its own UnmarshalJSON; a member named twice or in
// another case; a value of another type, a number out of range; an escape
// [unquotePlain] leaves to encoding/json), and what it wrote into v is then
// to be zeroed by the caller, which asks json.Unmarshal.
//
// Why by hand: json.Unmarshal of structuredContent was nearly all that was
// left of the reply's decoding once the rest was read from the layout
// (18.8 µs of 21.3 for BenchmarkDecodeCallReply's reply, 42 allocations):
// it scans the span again to check it, then decodes it with a function
// call per byte of the scanner; the reply was checked once already.
func decodeStrict(b []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	d := decoderFor(rv.Type().Elem())
	return d != nil && d.decode(rv.Elem(), b)
}

// typeDecoder is how [decodeStrict] decodes into one type.
type typeDecoder struct {
	kind   reflect.Kind
	typ    reflect.Type
	elem   *typeDecoder   // of a pointer or slice
	fields []fieldDecoder // of a struct
}

type fieldDecoder struct {
	name  string
	index int
	dec   *typeDecoder
}

var typeDecoders sync.Map // reflect.Type → *typeDecoder; a nil one: not decoded here

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decoderFor returns the decoder of t, nil when t is not one this file
// decodes.
func decoderFor(t reflect.Type) *typeDecoder {
	if d, ok := typeDecoders.Load(t); ok {
		return d.(*typeDecoder)
	}
	d := buildDecoder(t, map[reflect.Type]*typeDecoder{})
	typeDecoders.Store(t, d)
	return d
}

func buildDecoder(t reflect.Type, building map[reflect.Type]*typeDecoder) *typeDecoder {
	if d, ok := building[t]; ok {
		return d // a recursive type: the decoder being built
	}
	pt := reflect.PointerTo(t)
	if t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler) {
		return nil
	}
	d := &typeDecoder{kind: t.Kind(), typ: t}
	building[t] = d
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	case reflect.Pointer:
		if d.elem = buildDecoder(t.Elem(), building); d.elem == nil {
			return nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64, as encoding/json reads a []byte
		}
		if d.elem = buildDecoder(t.Elem(), building); d.elem == nil {
			return nil
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				return nil // embedded fields promote theirs: encoding/json's rules
			}
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name != "" && !jsontag.ValidName(name) || strings.Contains(","+opts+",", ",string,") {
				return nil
			}
			if name == "" {
				name = f.Name
			}
			fd := buildDecoder(f.Type, building)
			if fd == nil {
				return nil
			}
			for _, g := range d.fields {
				if strings.EqualFold(g.name, name) {
					return nil // encoding/json's precedence between them
				}
			}
			d.fields = append(d.fields, fieldDecoder{name: name, index: i, dec: fd})
		}
		if len(d.fields) > 64 {
			return nil
		}
	default:
		return nil
	}
	return d
}

// decode decodes b (valid JSON) into v, a zero value of d's type.
func (d *typeDecoder) decode(v reflect.Value, b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == 'n' {
		return true // null: a zero value stays as it is
	}
	switch d.kind {
	case reflect.Pointer:
		p := reflect.New(d.typ.Elem())
		if !d.elem.decode(p.Elem(), b) {
			return false
		}
		v.Set(p)
		return true
	case reflect.Struct:
		var seen uint64
		return b[0] == '{' && jsonscan.EachMember(b, func(key, val []byte) bool {
			for i := range d.fields {
				f := &d.fields[i]
				if f.name != string(key) {
					continue
				}
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				return f.dec.decode(v.Field(f.index), val)
			}
			for i := range d.fields {
				if bytes.EqualFold([]byte(d.fields[i].name), key) {
					return false // encoding/json matches it, case aside
				}
			}
			return true // no field of that name: ignored
		})
	case reflect.Slice:
		if b[0] != '[' {
			return false
		}
		v.Set(reflect.MakeSlice(d.typ, 0, 0))
		n := 0
		return jsonscan.EachItem(b, func(item []byte) bool {
			if n >= v.Cap() {
				v.Grow(1)
			}
			v.SetLen(n + 1)
			n++
			return d.elem.decode(v.Index(n-1), item)
		})
	case reflect.String:
		s, ok := unquotePlain(b)
		if ok {
			v.SetString(s)
		}
		return ok
	case reflect.Bool:
		switch string(b) {
		case "true":
			v.SetBool(true)
			return true
		case "false":
			return true
		}
		return false
	}
	if c := b[0]; c != '-' && (c < '0' || c > '9') {
		return false
	}
	switch d.kind {
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(string(b), d.typ.Bits())
		if err != nil || v.OverflowFloat(f) {
			return false
		}
		v.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
	default: // the unsigned kinds
		n, err := strconv.ParseUint(string(b), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
	}
	return true
}

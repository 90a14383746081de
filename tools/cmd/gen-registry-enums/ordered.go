package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// object is a JSON object in its written key order. encoding/json's maps
// sort keys; the schemas keep their own order (schema order is the docs'
// and the generated types' order), so this small ordered tree is used
// instead of a general JSON library.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	i := slices.Index(o.keys, k)
	if i < 0 {
		return nil, false
	}
	return o.vals[i], true
}

// setAfter replaces k's value, or inserts k right after the key after (at
// the end when there is none).
func (o *object) setAfter(k string, v any, after string) {
	if i := slices.Index(o.keys, k); i >= 0 {
		o.vals[i] = v
		return
	}
	at := len(o.keys)
	if i := slices.Index(o.keys, after); i >= 0 {
		at = i + 1
	}
	o.keys = slices.Insert(o.keys, at, k)
	o.vals = slices.Insert(o.vals, at, v)
}

// decodeOrdered reads one JSON document into *object, []any, string,
// json.Number, bool and nil.
func decodeOrdered(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys, o.vals = append(o.keys, kt.(string)), append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeOrdered writes v as json.MarshalIndent(v, "", "  ") would with
// HTML escaping off, in v's key order, with a final newline.
func encodeOrdered(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeValue(&b, v, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func encodeValue(b *bytes.Buffer, v any, indent string) error {
	inner := indent + "  "
	switch t := v.(type) {
	case *object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			b.WriteString(inner)
			if err := scalar(b, k); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := encodeValue(b, t.vals[i], inner); err != nil {
				return err
			}
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, e := range t {
			b.WriteString(inner)
			if err := encodeValue(b, e, inner); err != nil {
				return err
			}
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		return scalar(b, t)
	}
	return nil
}

func scalar(b *bytes.Buffer, v any) error {
	var s bytes.Buffer
	enc := json.NewEncoder(&s)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.WriteString(strings.TrimSuffix(s.String(), "\n"))
	return nil
}

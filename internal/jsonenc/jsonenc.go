// Package jsonenc is the run-time half of the JSON encoders that
// gen-contracts writes beside the contract types (gen/*/mcptypes/encode.gen.go):
// each generated struct has an AppendJSON method ([Appender]) that appends
// the bytes a json.Encoder with SetEscapeHTML(false) writes for it, without
// the Encoder's newline. Here are the parts those methods share (numbers as
// encoding/json formats them, and encoding/json itself for a value they do
// not encode by hand) and [Append], which callers use to take the generated
// path when a value has one.
//
// Why by hand: encoding/json walks every value by reflection, and a Relay
// search_rides result (~8 KB, six ride options) cost ~35 µs of a search's
// CPU in a profile; Trident's estimate_fare output is on a request of ~38 µs
// in all. The generated encoders' numbers are in their generator's
// comment (tools/cmd/gen-contracts/encgen.go).
package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// Appender is a value that appends its own JSON: the bytes of a
// json.Encoder with SetEscapeHTML(false), without the newline. On an error
// (a NaN, a value encoding/json refuses) the bytes appended so far are
// garbage, and callers encode the value with encoding/json instead, whose
// error is the one to report.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Compact is JSON that the code labelling it has just had written by a
// json.Encoder with SetEscapeHTML(false) or by a generated AppendJSON:
// valid and compact. An encoder that meets it as a value copies it as it
// is ([Append] takes it), where a json.RawMessage of unknown making would
// be checked again: Relay's search_rides result, ~9 KB, took ~12 µs of a
// search's ~290 µs of server CPU to be found compact (loadbench profile)
// straight after it had been encoded. It is a string so that a tool
// result's text and its structuredContent can be one copy of the bytes.
// Its MarshalJSON gives the same bytes to encoding/json, which checks them
// as it checks a RawMessage; empty is null.
type Compact string

// AppendJSON appends c as it is, and empty as null.
func (c Compact) AppendJSON(dst []byte) ([]byte, error) {
	if c == "" {
		return append(dst, "null"...), nil
	}
	return append(dst, c...), nil
}

// MarshalJSON returns c's bytes, and empty as null.
func (c Compact) MarshalJSON() ([]byte, error) {
	if c == "" {
		return []byte("null"), nil
	}
	return []byte(c), nil
}

// Append appends v's generated encoding to dst and reports whether it
// could: false when v has no AppendJSON method, is a nil pointer (whose
// value-receiver method would panic; encoding/json writes null), or its
// encoder failed. On false dst is returned as it was given, and the caller
// encodes v its own way.
func Append(dst []byte, v any) ([]byte, bool) {
	a, ok := v.(Appender)
	if !ok {
		return dst, false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return dst, false
	}
	out, err := a.AppendJSON(dst)
	if err != nil {
		return dst, false
	}
	return out, true
}

// AppendFloat64 appends f as encoding/json's floatEncoder writes a float64:
// the shortest 'f' form, 'e' below 1e-6 or from 1e21 on (abs), with the
// exponent's leading zero dropped (1e-07 as 1e-7). NaN and ±Inf are an
// error, the *json.UnsupportedValueError encoding/json gives.
func AppendFloat64(dst []byte, f float64) ([]byte, error) {
	return appendFloat(dst, f, 64)
}

// AppendFloat32 is [AppendFloat64] for a float32, with encoding/json's
// float32 bounds (1e-6 and 1e21 as float32).
func AppendFloat32(dst []byte, f float32) ([]byte, error) {
	return appendFloat(dst, float64(f), 32)
}

func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, bits)}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// AppendValue appends v as a json.Encoder with SetEscapeHTML(false) writes
// it, without the newline: the generated encoders' way for a value they do
// not encode by hand (a map, an interface). Inside a struct encoding/json
// writes such a value as it writes it alone, so the bytes are the same.
func AppendValue(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil
}

// IsZero reports whether v is its type's zero value as reflect sees it:
// omitzero's test for a type the generated code has no expression for.
func IsZero(v any) bool { return reflect.ValueOf(v).IsZero() }

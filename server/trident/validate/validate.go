package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// RootField names the arguments object itself in a [FieldError], when the
// failure is not about one property (e.g. arguments that are not an object).
const RootField = "arguments"

// FieldError is one argument that failed validation. Its Error text is the
// JSON-RPC -32602 message: "Invalid params: <field>: <reason>".
type FieldError struct {
	// Field is the path of the failing value, dot-separated
	// ("pickup", "stops.0.name"), or [RootField].
	Field string
	// Reason is Zod v3's wording of the failed check, e.g. "Required" or
	// "String must contain at least 3 character(s)".
	Reason string
}

func (e *FieldError) Error() string { return "Invalid params: " + e.Field + ": " + e.Reason }

// Schema is a compiled input schema. It is immutable and safe for
// concurrent use.
type Schema struct {
	root  *node
	plans sync.Map // reflect.Type → *decodePlan, for DecodeNormal; nil: not one it decodes
}

// node is one (sub)schema with its keywords parsed. Nil pointers mean the
// keyword is absent.
type node struct {
	types      []string // JSON Schema type names; empty: any type
	minLength  *int
	maxLength  *int
	minimum    *big.Rat
	maximum    *big.Rat
	exclMin    *big.Rat
	exclMax    *big.Rat
	enum       []any
	constVal   *any
	format     string
	props      []prop // in schema order
	required   map[string]bool
	addlFalse  bool  // additionalProperties: false
	addl       *node // additionalProperties: {schema}
	items      *node
	minItems   *int
	maxItems   *int
	defaultVal *any
}

type prop struct {
	name string
	n    *node
}

// annotation keywords carry no check.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// Compile parses an input schema. It fails on a keyword it cannot check, so
// a contract that tightens validation in a way this package does not know is
// caught when the server starts, not by a client.
func Compile(schema []byte) (*Schema, error) {
	n, err := compileNode(schema, "#")
	if err != nil {
		return nil, err
	}
	return &Schema{root: n}, nil
}

func compileNode(raw json.RawMessage, at string) (*node, error) {
	var kw map[string]json.RawMessage
	if err := json.Unmarshal(raw, &kw); err != nil {
		return nil, fmt.Errorf("validate: %s: schema is not an object: %w", at, err)
	}
	n := &node{}
	for k, v := range kw {
		var err error
		switch k {
		case "type":
			n.types, err = stringOrList(v)
		case "minLength":
			n.minLength, err = nonNegInt(v)
		case "maxLength":
			n.maxLength, err = nonNegInt(v)
		case "minItems":
			n.minItems, err = nonNegInt(v)
		case "maxItems":
			n.maxItems, err = nonNegInt(v)
		case "minimum":
			n.minimum, err = ratOf(v)
		case "maximum":
			n.maximum, err = ratOf(v)
		case "exclusiveMinimum":
			n.exclMin, err = ratOf(v)
		case "exclusiveMaximum":
			n.exclMax, err = ratOf(v)
		case "enum":
			var vals []any
			if err = decodeNumbers(v, &vals); err == nil && len(vals) == 0 {
				err = fmt.Errorf("empty enum")
			}
			n.enum = vals
		case "const":
			var c any
			err = decodeNumbers(v, &c)
			n.constVal = &c
		case "default":
			var d any
			err = decodeNumbers(v, &d)
			n.defaultVal = &d
		case "format":
			err = json.Unmarshal(v, &n.format)
			if err == nil && formatReasons[n.format] == "" {
				err = fmt.Errorf("unsupported format %q", n.format)
			}
		case "required":
			var names []string
			err = json.Unmarshal(v, &names)
			n.required = make(map[string]bool, len(names))
			for _, name := range names {
				n.required[name] = true
			}
		case "properties":
			n.props, err = compileProps(v, at+"/properties")
		case "additionalProperties":
			var b bool
			if json.Unmarshal(v, &b) == nil {
				n.addlFalse = !b
			} else {
				n.addl, err = compileNode(v, at+"/additionalProperties")
			}
		case "items":
			n.items, err = compileNode(v, at+"/items")
		default:
			if !annotations[k] {
				err = fmt.Errorf("unsupported keyword")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("validate: %s/%s: %w", at, k, err)
		}
	}
	// Properties listed in required but not described still have to be present.
	for name := range n.required {
		if !slices.ContainsFunc(n.props, func(p prop) bool { return p.name == name }) {
			n.props = append(n.props, prop{name: name, n: &node{}})
		}
	}
	return n, nil
}

// compileProps keeps the properties in the order the schema writes them,
// which is the order failures are reported in (Zod walks its object shape in
// declaration order).
func compileProps(raw json.RawMessage, at string) ([]prop, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("properties is not an object")
	}
	var out []prop
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := t.(string)
		var sub json.RawMessage
		if err := dec.Decode(&sub); err != nil {
			return nil, err
		}
		n, err := compileNode(sub, at+"/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, prop{name: name, n: n})
	}
	return out, nil
}

func stringOrList(v json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	err := json.Unmarshal(v, &many)
	return many, err
}

func nonNegInt(v json.RawMessage) (*int, error) {
	var i int
	if err := json.Unmarshal(v, &i); err != nil || i < 0 {
		return nil, fmt.Errorf("not a non-negative integer")
	}
	return &i, nil
}

func ratOf(v json.RawMessage) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(string(v)))
	if !ok {
		return nil, fmt.Errorf("not a number")
	}
	return r, nil
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}

// parsePlain decodes b as decodeNumbers does (numbers as json.Number) when b
// is valid JSON whose strings hold no escape and are valid UTF-8, which is
// what tool arguments nearly always are; it reports false otherwise, and the
// caller decodes with encoding/json. Written by hand to spare the decoder,
// its buffer and its scanner on every call: with plain strings the JSON
// text maps to values without interpretation.
func parsePlain(b []byte) (any, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	v, rest, ok := plainValue(b)
	return v, ok && len(bytes.TrimSpace(rest)) == 0
}

// plainValue decodes the value at the start of b (valid JSON) and returns
// what follows it.
func plainValue(b []byte) (any, []byte, bool) {
	b = bytes.TrimLeft(b, " \t\r\n")
	switch b[0] {
	case '{':
		m := map[string]any{}
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		if b[0] == '}' {
			return m, b[1:], true
		}
		for {
			k, rest, ok := plainString(bytes.TrimLeft(b, " \t\r\n"))
			if !ok {
				return nil, nil, false
			}
			rest = bytes.TrimLeft(rest, " \t\r\n")[1:] // the colon
			var v any
			if v, b, ok = plainValue(rest); !ok {
				return nil, nil, false
			}
			m[k] = v
			b = bytes.TrimLeft(b, " \t\r\n")
			if b[0] == '}' {
				return m, b[1:], true
			}
			b = b[1:] // the comma
		}
	case '[':
		a := []any{}
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		if b[0] == ']' {
			return a, b[1:], true
		}
		for {
			v, rest, ok := plainValue(b)
			if !ok {
				return nil, nil, false
			}
			a = append(a, v)
			b = bytes.TrimLeft(rest, " \t\r\n")
			if b[0] == ']' {
				return a, b[1:], true
			}
			b = b[1:]
		}
	case '"':
		s, rest, ok := plainString(b)
		return s, rest, ok
	case 't':
		return true, b[4:], true
	case 'f':
		return false, b[5:], true
	case 'n':
		return nil, b[4:], true
	default:
		i := 0
		for i < len(b) && strings.IndexByte("+-.0123456789eE", b[i]) >= 0 {
			i++
		}
		return json.Number(b[:i]), b[i:], true
	}
}

// plainString decodes the string at the start of b, if it has no escape and
// is valid UTF-8 (encoding/json would replace invalid bytes).
func plainString(b []byte) (string, []byte, bool) {
	end := bytes.IndexByte(b[1:], '"') + 1
	if end == 0 {
		return "", nil, false
	}
	raw := b[1:end]
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		return "", nil, false
	}
	return string(raw), b[end+1:], true
}

// Validate checks args (a JSON object; empty or null counts as {}) and
// returns it re-encoded with the schema's defaults filled in and integers in
// plain form (3.0 becomes 3), ready to unmarshal into the tool's Go type.
// Arguments already in that form are returned as given (trimmed), key order
// and spacing included, so the result is not a canonical encoding to hash.
// Keys the schema does not describe are dropped, as the specification's Zod objects
// strip them, unless it says additionalProperties: false (refused) or gives
// additionalProperties a schema (checked and kept).
//
// The error, when the arguments are invalid, is a *[FieldError] for the
// first failure in schema property order.
func (s *Schema) Validate(args json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimSpace(args); s.alreadyNormal(t) {
		return t, nil
	}
	return s.validateDecoded(args)
}

// validateDecoded is [Schema.Validate] on the arguments decoded: every
// check, every error, every normalisation.
func (s *Schema) validateDecoded(args json.RawMessage) (json.RawMessage, error) {
	var v any = map[string]any{}
	if t := bytes.TrimSpace(args); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if pv, ok := parsePlain(t); ok {
			v = pv
		} else if err := decodeNumbers(t, &v); err != nil {
			return nil, &FieldError{Field: RootField, Reason: "Invalid JSON: " + err.Error()}
		}
	}
	// One backing array for every path: siblings overwrite the same slot, and
	// a path is only read (by fieldName) when a check fails.
	var path [8]string
	out, fe := s.root.check(v, path[:0], true)
	if fe != nil {
		return nil, fe
	}
	if t := bytes.TrimSpace(args); len(t) > 0 && t[0] == '{' && identical(v, out) {
		// No default filled, no key dropped, no number rewritten: the
		// arguments already are their normal form (as a Go struct decodes
		// them), and re-encoding them would only cost allocations.
		return t, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err // cannot happen: out holds only decoded JSON values
	}
	return b, nil
}

// check validates v at path and returns it normalised. present is false for
// a property that is absent.
func (n *node) check(v any, path []string, present bool) (any, *FieldError) {
	fail := func(reason string) (any, *FieldError) {
		return nil, &FieldError{Field: fieldName(path), Reason: reason}
	}
	if !present {
		return fail("Required")
	}
	got := jsonType(v)
	// Type. For an enum of strings Zod's own type error names the values.
	if len(n.types) > 0 && !typeMatches(n.types, v, got) {
		if got == "number" && slices.Contains(n.types, "integer") && !slices.Contains(n.types, "number") {
			return fail("Expected integer, received float")
		}
		if len(n.types) > 1 {
			return fail("Invalid input")
		}
		expected := n.types[0]
		if expected == "integer" {
			expected = "number"
		}
		if expected == "string" && len(n.enum) > 0 {
			expected = joinValues(n.enum)
		}
		return fail("Expected " + expected + ", received " + got)
	}
	switch x := v.(type) {
	case string:
		l := utf8.RuneCountInString(x)
		if n.minLength != nil && l < *n.minLength {
			return fail(fmt.Sprintf("String must contain at least %d character(s)", *n.minLength))
		}
		if n.maxLength != nil && l > *n.maxLength {
			return fail(fmt.Sprintf("String must contain at most %d character(s)", *n.maxLength))
		}
		if n.format != "" && !formatOK(n.format, x) {
			return fail(formatReasons[n.format])
		}
	case json.Number:
		r := readNumber(x)
		if r == nil {
			return fail("Expected number, received nan")
		}
		if n.minimum != nil && r.Cmp(n.minimum) < 0 {
			return fail("Number must be greater than or equal to " + ratString(n.minimum))
		}
		if n.exclMin != nil && r.Cmp(n.exclMin) <= 0 {
			return fail("Number must be greater than " + ratString(n.exclMin))
		}
		if n.maximum != nil && r.Cmp(n.maximum) > 0 {
			return fail("Number must be less than or equal to " + ratString(n.maximum))
		}
		if n.exclMax != nil && r.Cmp(n.exclMax) >= 0 {
			return fail("Number must be less than " + ratString(n.exclMax))
		}
		if slices.Contains(n.types, "integer") && r.IsInt() {
			v = json.Number(r.Num().String())
		}
	case []any:
		if n.minItems != nil && len(x) < *n.minItems {
			return fail(fmt.Sprintf("Array must contain at least %d element(s)", *n.minItems))
		}
		if n.maxItems != nil && len(x) > *n.maxItems {
			return fail(fmt.Sprintf("Array must contain at most %d element(s)", *n.maxItems))
		}
		if n.items != nil {
			out := make([]any, len(x))
			for i, e := range x {
				ev, fe := n.items.check(e, append(path, strconv.Itoa(i)), true)
				if fe != nil {
					return nil, fe
				}
				out[i] = ev
			}
			v = out
		}
	case map[string]any:
		out := make(map[string]any, len(n.props))
		for _, p := range n.props {
			e, ok := x[p.name]
			if !ok {
				if p.n.defaultVal != nil {
					out[p.name] = *p.n.defaultVal
					continue
				}
				if !n.required[p.name] {
					continue
				}
			}
			ev, fe := p.n.check(e, append(path, p.name), ok)
			if fe != nil {
				return nil, fe
			}
			out[p.name] = ev
		}
		var unknown []string
		for k, e := range x {
			if slices.ContainsFunc(n.props, func(p prop) bool { return p.name == k }) {
				continue
			}
			if n.addlFalse {
				unknown = append(unknown, "'"+k+"'")
				continue
			}
			if n.addl != nil {
				ev, fe := n.addl.check(e, append(path, k), true)
				if fe != nil {
					return nil, fe
				}
				out[k] = ev
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return fail("Unrecognized key(s) in object: " + strings.Join(unknown, ", "))
		}
		v = out
	}
	if len(n.enum) > 0 && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(e, v) }) {
		if s, ok := v.(string); ok {
			return fail("Invalid enum value. Expected " + joinValues(n.enum) + ", received '" + s + "'")
		}
		return fail("Expected " + joinValues(n.enum) + ", received " + got)
	}
	if n.constVal != nil && !jsonEqual(*n.constVal, v) {
		b, _ := json.Marshal(*n.constVal)
		return fail("Invalid literal value, expected " + string(b))
	}
	return v, nil
}

// maxExactLen is the longest number literal read exactly. Argument numbers
// are small (a passenger count), and a bound keeps the work per request
// independent of what a client sends.
const maxExactLen = 100

// Values that stand in for literals beyond float64, whose exact reading
// would cost time in the size of the value: big.Rat turns "1e999999" into a
// million-digit integer (tens of milliseconds of CPU for a nine-byte
// literal), and a megabyte of digits takes most of a second. JSON.parse,
// which the specification's Zod server read arguments with, makes them Infinity and
// 0; these keep the outcome an exact reading gives against any bound a
// schema can state (every bound is a float64 in practice): past every
// bound, or a non-integer closer to zero than any of them.
var (
	beyondFloat64 = new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(309), nil), big.NewInt(1))
	belowFloat64  = new(big.Rat).Inv(new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(330), nil), big.NewInt(1)))
)

// readNumber reads a number literal from the JSON decoder: exactly when it
// is of ordinary size and within float64's range, else as the float64
// JSON.parse would make of it, with the stand-ins above for what overflows
// or underflows. The result must not be modified. It is nil only for text
// that is not a number, which the decoder never yields.
func readNumber(n json.Number) *big.Rat {
	s := string(n)
	f, _ := strconv.ParseFloat(s, 64) // fast whatever the exponent or length
	neg := strings.HasPrefix(s, "-")
	mantissa, _, _ := strings.Cut(strings.ToLower(s), "e")
	switch {
	case math.IsInf(f, 0):
		if neg {
			return new(big.Rat).Neg(beyondFloat64)
		}
		return beyondFloat64
	case f == 0 && strings.ContainsAny(mantissa, "123456789"): // underflow
		if neg {
			return new(big.Rat).Neg(belowFloat64)
		}
		return belowFloat64
	case len(s) > maxExactLen:
		return new(big.Rat).SetFloat64(f)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

func fieldName(path []string) string {
	if len(path) == 0 {
		return RootField
	}
	return strings.Join(path, ".")
}

// jsonType names the JSON type of a decoded value as Zod's parsed types do.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func typeMatches(types []string, v any, got string) bool {
	for _, t := range types {
		switch {
		case t == got:
			return true
		case t == "integer" && got == "number":
			if r := readNumber(v.(json.Number)); r != nil && r.IsInt() {
				return true
			}
		}
	}
	return false
}

// joinValues formats enum values as Zod does: 'a' | 'b' | 3.
func joinValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			parts[i] = "'" + s + "'"
		} else {
			b, _ := json.Marshal(v)
			parts[i] = string(b)
		}
	}
	return strings.Join(parts, " | ")
}

// ratString prints a bound the way JavaScript prints the number: 1, 0.5, 200.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// jsonEqual reports whether two decoded values are equal as JSON Schema
// compares them (const, enum, uniqueItems): numbers by value.
func jsonEqual(a, b any) bool { return sameJSON(a, b, numbersEqual) }

// identical reports whether two decoded values are the same JSON text up to
// key order and spacing: unlike jsonEqual, 3 and 3.0 differ.
func identical(a, b any) bool { return sameJSON(a, b, nil) }

// numbersEqual compares two numbers by value (3 and 3.0 are equal).
func numbersEqual(x, y json.Number) bool {
	rx, ry := readNumber(x), readNumber(y)
	return rx != nil && ry != nil && rx.Cmp(ry) == 0
}

// sameJSON compares two decoded values member by member, key order aside;
// numbers by numbers when it is set, else as text.
func sameJSON(a, b any, numbers func(x, y json.Number) bool) bool {
	switch x := a.(type) {
	case json.Number:
		if numbers == nil {
			return a == b
		}
		y, ok := b.(json.Number)
		return ok && numbers(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, func(p, q any) bool { return sameJSON(p, q, numbers) })
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !sameJSON(xv, yv, numbers) {
				return false
			}
		}
		return true
	default: // string, bool, nil: comparable
		return a == b
	}
}

// formatReasons holds the formats this package asserts, with Zod's reason
// for a value that is not one.
var formatReasons = map[string]string{
	"date-time": "Invalid datetime",
	"date":      "Invalid date",
	"uri":       "Invalid url",
	"email":     "Invalid email",
}

// dateTimeRE is RFC 3339 section 5.6 date-time: a full date, "T", a time
// with optional fraction, and a mandatory "Z" or numeric offset. Zod's
// datetime({offset: true}) accepts the same shapes.
var dateTimeRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$`)

var emailRE = regexp.MustCompile(`^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$`)

func formatOK(format, s string) bool {
	switch format {
	case "date-time":
		return ValidDateTime(s)
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != ""
	case "email":
		return emailRE.MatchString(s)
	}
	return false
}

// ValidDateTime reports whether s is an RFC 3339 date-time with "Z" or an
// offset and every field in range (the day within its month, a leap second
// only at 23:59:60 UTC). The server parses departAt only after this says yes.
func ValidDateTime(s string) bool {
	m := dateTimeRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	num := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	year, month, day := num(1), num(2), num(3)
	hour, minute, sec := num(4), num(5), num(6)
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 60 {
		return false
	}
	if day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return false
	}
	offset := 0 // minutes east of UTC
	if m[9] != "" {
		if num(10) > 23 || num(11) > 59 {
			return false
		}
		offset = num(10)*60 + num(11)
		if m[9] == "-" {
			offset = -offset
		}
	}
	// A leap second is only ever inserted at 23:59:60 UTC.
	if sec == 60 && ((hour*60+minute-offset)%1440+1440)%1440 != 23*60+59 {
		return false
	}
	return true
}

// ParseDateTime parses a value [ValidDateTime] accepts. A leap second is
// read as the last second of its minute.
func ParseDateTime(s string) (time.Time, error) {
	if !ValidDateTime(s) {
		return time.Time{}, fmt.Errorf("validate: %q is not an RFC 3339 date-time", s)
	}
	norm := strings.ToUpper(s)
	if norm[17:19] == "60" {
		norm = norm[:17] + "59" + norm[19:]
	}
	return time.Parse(time.RFC3339Nano, norm)
}

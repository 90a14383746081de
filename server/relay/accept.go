package relay

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// An acceptor tells arguments that certainly satisfy a tool's input schema
// from the rest, over the same decoded tree (json.Number leaves) that
// jsonschema v5 validates, so that decode can skip the validator on them.
// It is hand-written because the validator is most of decode's CPU on
// every call: in BenchmarkDecode/search_rides (the sample search) ~32 of
// ~45 µs are Validate, which reads every number into a math/big.Rat
// through fmt, allocates a set of property names per object and builds
// keyword locations with fmt for errors it may never report. The numbers
// this bought are in inputSchema.validate's comment.
//
// It is built from the compiled schema itself, not from the schema's text,
// so that it holds the values the validator holds: the same
// *regexp.Regexp for pattern, the same format function (checked to be the
// one compiled in), the same enum values and bounds. It knows only the
// keywords Relay's input schemas use (see newAcceptor); a schema with any
// other keyword set gets no acceptor, and its tool validates as before.
//
// Its answer is one of three. valid must imply that v5 accepts, and
// invalid that v5 refuses (oneOf and not need both to conclude); unsure,
// whenever exactness is in doubt (a number at a bound it cannot compare
// exactly, an integer written 1.0), commits to nothing. decode skips
// Validate only on valid, so every refusal is still the validator's own.
type acceptor struct{ root *acceptNode }

type verdict uint8

const (
	unsure verdict = iota
	valid
	invalid
)

// check is the verdict on the decoded arguments doc.
func (a *acceptor) check(doc any) verdict { return a.root.check(doc) }

// JSON types as jsonschema v5 names them, as bits.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeString
	typeInteger
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "string": typeString, "integer": typeInteger,
}

// acceptNode is one compiled schema's keywords that the acceptor checks;
// -1 in a count says the keyword is absent, as in jsonschema.Schema.
type acceptNode struct {
	always *bool // a boolean schema

	types uint8 // 0: any type

	// enum and const, both as a list of allowed scalar values (const one
	// item); hasEnum says there is such a list, empty or not.
	hasEnum     bool
	enumStrings map[string]bool
	enumOther   []any // nil, true, false
	hasConst    bool
	constant    any // a string, a bool or nil

	format func(any) bool

	minProperties, maxProperties int
	required                     []string
	properties                   map[string]*acceptNode
	noAdditional                 bool        // additionalProperties: false
	additional                   *acceptNode // additionalProperties: a schema

	minItems, maxItems int
	items              *acceptNode

	minLength, maxLength int
	pattern              *regexp.Regexp

	minimum, exclusiveMinimum, maximum, exclusiveMaximum *numberBound

	ref          *acceptNode
	allOf, anyOf []*acceptNode
	oneOf        []*acceptNode
	not          *acceptNode
}

// schemaFields says, for every field of jsonschema.Schema, whether the
// acceptor checks it (checked), has no part in validation given that the
// others are as required (ignored), or must hold its zero value for the
// schema to have an acceptor: a field missing here, such as one a later
// version of the library adds, must be zero too.
var schemaFields = map[string]fieldUse{
	"Location": ignored, "Draft": ignored, "meta": ignored, "vocab": ignored,
	// Anchors only matter to $recursiveRef and $dynamicRef, which must be absent.
	"dynamicAnchors": ignored, "DynamicAnchor": ignored, "RecursiveAnchor": ignored, "dynamicRefAnchor": ignored,
	"enumError": ignored,
	"Title":     ignored, "Description": ignored, "Default": ignored, "Comment": ignored,
	"ReadOnly": ignored, "WriteOnly": ignored, "Examples": ignored, "Deprecated": ignored,
	// Defaults, read only with contains, which must be absent.
	"MinContains": ignored, "MaxContains": ignored, "ContainsEval": ignored,

	"Format": checked, "format": checked, "Always": checked, "Ref": checked,
	"Types": checked, "Constant": checked, "Enum": checked,
	"Not": checked, "AllOf": checked, "AnyOf": checked, "OneOf": checked,
	"MinProperties": checked, "MaxProperties": checked, "Required": checked,
	"Properties": checked, "AdditionalProperties": checked,
	"MinItems": checked, "MaxItems": checked, "Items2020": checked,
	"MinLength": checked, "MaxLength": checked, "Pattern": checked,
	"Minimum": checked, "ExclusiveMinimum": checked, "Maximum": checked, "ExclusiveMaximum": checked,
}

type fieldUse uint8

const (
	mustBeZero fieldUse = iota
	ignored
	checked
)

// newAcceptor compiles the acceptor of s, or says which keyword keeps s
// from having one.
func newAcceptor(s *jsonschema.Schema) (*acceptor, error) {
	b := acceptBuilder{done: map[*jsonschema.Schema]*acceptNode{}, open: map[*jsonschema.Schema]bool{}}
	root, err := b.node(s)
	if err != nil {
		return nil, err
	}
	return &acceptor{root: root}, nil
}

type acceptBuilder struct {
	done map[*jsonschema.Schema]*acceptNode
	open map[*jsonschema.Schema]bool // on the way down: a schema met again is a cycle
}

func (b *acceptBuilder) node(s *jsonschema.Schema) (*acceptNode, error) {
	if n, ok := b.done[s]; ok {
		return n, nil
	}
	if b.open[s] {
		// The validator's loop detection would have its say; the
		// acceptor does not follow recursive schemas at all.
		return nil, fmt.Errorf("%s: a recursive schema", s.Location)
	}
	b.open[s] = true
	defer delete(b.open, s)

	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if schemaFields[f.Name] == mustBeZero && !v.Field(i).IsZero() {
			return nil, fmt.Errorf("%s: %s is not supported", s.Location, f.Name)
		}
	}

	n := &acceptNode{
		always:        s.Always,
		minProperties: s.MinProperties, maxProperties: s.MaxProperties, required: s.Required,
		minItems: s.MinItems, maxItems: s.MaxItems,
		minLength: s.MinLength, maxLength: s.MaxLength, pattern: s.Pattern,
	}
	for _, t := range s.Types {
		bit, ok := typeBits[t]
		if !ok {
			return nil, fmt.Errorf("%s: type %q", s.Location, t)
		}
		n.types |= bit
	}
	if len(s.Enum) > 0 {
		n.hasEnum = true
		n.enumStrings = map[string]bool{}
		for _, e := range s.Enum {
			switch e := e.(type) {
			case string:
				n.enumStrings[e] = true
			case bool, nil:
				n.enumOther = append(n.enumOther, e)
			default:
				return nil, fmt.Errorf("%s: an enum value of type %T", s.Location, e)
			}
		}
	}
	if len(s.Constant) > 0 {
		switch c := s.Constant[0].(type) {
		case string, bool, nil:
			n.hasConst, n.constant = true, c
		default:
			return nil, fmt.Errorf("%s: a const of type %T", s.Location, c)
		}
	}
	if fv := v.FieldByName("format"); !fv.IsNil() {
		// The very function the validator calls: the library's own for
		// the format's name, as draft2020.Compile registers none.
		f := jsonschema.Formats[s.Format]
		if f == nil || reflect.ValueOf(f).Pointer() != fv.Pointer() {
			return nil, fmt.Errorf("%s: format %q is not the library's", s.Location, s.Format)
		}
		n.format = f
	}
	var err error
	for name, bound := range map[string]struct {
		r   *big.Rat
		dst **numberBound
	}{
		"minimum": {s.Minimum, &n.minimum}, "exclusiveMinimum": {s.ExclusiveMinimum, &n.exclusiveMinimum},
		"maximum": {s.Maximum, &n.maximum}, "exclusiveMaximum": {s.ExclusiveMaximum, &n.exclusiveMaximum},
	} {
		if bound.r == nil {
			continue
		}
		if *bound.dst, err = newNumberBound(bound.r); err != nil {
			return nil, fmt.Errorf("%s: %s %w", s.Location, name, err)
		}
	}
	if len(s.Properties) > 0 {
		n.properties = make(map[string]*acceptNode, len(s.Properties))
		for name, ps := range s.Properties {
			if n.properties[name], err = b.node(ps); err != nil {
				return nil, err
			}
		}
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		n.noAdditional = !a
	case *jsonschema.Schema:
		if n.additional, err = b.node(a); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: additionalProperties of type %T", s.Location, a)
	}
	one := func(s *jsonschema.Schema) (*acceptNode, error) {
		if s == nil {
			return nil, nil
		}
		return b.node(s)
	}
	many := func(ss []*jsonschema.Schema) ([]*acceptNode, error) {
		var out []*acceptNode
		for _, s := range ss {
			n, err := b.node(s)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	if n.items, err = one(s.Items2020); err != nil {
		return nil, err
	}
	if n.ref, err = one(s.Ref); err != nil {
		return nil, err
	}
	if n.not, err = one(s.Not); err != nil {
		return nil, err
	}
	if n.allOf, err = many(s.AllOf); err != nil {
		return nil, err
	}
	if n.anyOf, err = many(s.AnyOf); err != nil {
		return nil, err
	}
	if n.oneOf, err = many(s.OneOf); err != nil {
		return nil, err
	}
	b.done[s] = n
	return n, nil
}

// verdicts folds the verdicts of conditions that must all hold.
type verdicts struct{ unsure bool }

// add notes one condition's verdict and reports whether the fold is
// already invalid.
func (f *verdicts) add(v verdict) bool {
	if v == unsure {
		f.unsure = true
	}
	return v == invalid
}

func (f verdicts) result() verdict {
	if f.unsure {
		return unsure
	}
	return valid
}

func holds(ok bool) verdict {
	if ok {
		return valid
	}
	return invalid
}

func (n *acceptNode) check(v any) verdict {
	if n.always != nil {
		return holds(*n.always)
	}
	var all verdicts
	if n.types != 0 && all.add(n.checkType(v)) {
		return invalid
	}
	if n.hasEnum && all.add(n.checkEnum(v)) {
		return invalid
	}
	if n.hasConst && all.add(holds(scalarEquals(v, n.constant))) {
		return invalid
	}
	if n.format != nil && !n.format(v) {
		return invalid
	}
	switch v := v.(type) {
	case map[string]any:
		if all.add(n.checkObject(v)) {
			return invalid
		}
	case []any:
		if n.minItems != -1 && len(v) < n.minItems || n.maxItems != -1 && len(v) > n.maxItems {
			return invalid
		}
		if n.items != nil {
			for _, e := range v {
				if all.add(n.items.check(e)) {
					return invalid
				}
			}
		}
	case string:
		if n.minLength != -1 || n.maxLength != -1 {
			length := utf8.RuneCountInString(v)
			if n.minLength != -1 && length < n.minLength || n.maxLength != -1 && length > n.maxLength {
				return invalid
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(v) {
			return invalid
		}
	case json.Number:
		if all.add(n.checkNumber(string(v))) {
			return invalid
		}
	case nil, bool:
	default:
		return unsure // not what a json.Decoder with UseNumber makes
	}
	if n.ref != nil && all.add(n.ref.check(v)) {
		return invalid
	}
	if n.not != nil {
		switch n.not.check(v) {
		case valid:
			return invalid
		case unsure:
			all.unsure = true
		}
	}
	for _, s := range n.allOf {
		if all.add(s.check(v)) {
			return invalid
		}
	}
	if len(n.anyOf) > 0 {
		some := invalid
		for _, s := range n.anyOf {
			switch s.check(v) {
			case valid:
				some = valid
			case unsure:
				some = unsure
			}
			if some == valid {
				break
			}
		}
		if all.add(some) {
			return invalid
		}
	}
	if len(n.oneOf) > 0 {
		matched, unsures := 0, 0
		for _, s := range n.oneOf {
			switch s.check(v) {
			case valid:
				matched++
			case unsure:
				unsures++
			}
		}
		switch {
		case matched >= 2:
			return invalid
		case unsures > 0:
			all.unsure = true
		case matched == 0:
			return invalid
		}
	}
	return all.result()
}

func (n *acceptNode) checkType(v any) verdict {
	var t uint8
	switch v := v.(type) {
	case nil:
		t = typeNull
	case bool:
		t = typeBoolean
	case map[string]any:
		t = typeObject
	case []any:
		t = typeArray
	case string:
		t = typeString
	case json.Number:
		if n.types&typeNumber != 0 {
			return valid
		}
		if n.types&typeInteger == 0 {
			return invalid
		}
		// v5 asks math/big whether the number is an integer: 1.0 and
		// 1e2 are. Written with digits only, it certainly is; with a
		// fraction that is not all zeros and no exponent, it certainly is
		// not; otherwise the validator decides.
		switch {
		case isIntegerLiteral(string(v)):
			return valid
		case hasFraction(string(v)):
			return invalid
		}
		return unsure
	default:
		return unsure
	}
	return holds(n.types&t != 0)
}

func (n *acceptNode) checkEnum(v any) verdict {
	switch v := v.(type) {
	case string:
		return holds(n.enumStrings[v])
	case nil, bool:
		for _, e := range n.enumOther {
			if e == v {
				return valid
			}
		}
		return invalid
	case map[string]any, []any, json.Number:
		return invalid // the enum holds only strings, booleans and null
	}
	return unsure
}

// scalarEquals is v5's equals for c a string, a bool or nil.
func scalarEquals(v, c any) bool {
	switch v.(type) {
	case string, bool, nil:
		return v == c
	}
	return false
}

func (n *acceptNode) checkObject(v map[string]any) verdict {
	if n.minProperties != -1 && len(v) < n.minProperties || n.maxProperties != -1 && len(v) > n.maxProperties {
		return invalid
	}
	for _, name := range n.required {
		if _, ok := v[name]; !ok {
			return invalid
		}
	}
	var all verdicts
	if n.noAdditional || n.additional != nil {
		// Every member in one pass: a declared one against its schema,
		// another against additionalProperties.
		for name, e := range v {
			ps, declared := n.properties[name]
			switch {
			case declared:
				if all.add(ps.check(e)) {
					return invalid
				}
			case n.noAdditional:
				return invalid
			default:
				if all.add(n.additional.check(e)) {
					return invalid
				}
			}
		}
		return all.result()
	}
	for name, ps := range n.properties {
		if e, ok := v[name]; ok && all.add(ps.check(e)) {
			return invalid
		}
	}
	return all.result()
}

// isIntegerLiteral reports whether the JSON number s has neither a
// fraction nor an exponent.
func isIntegerLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
}

// A numberBound is a minimum or maximum as the acceptor compares with it.
// The validator compares exactly, in math/big; the acceptor compares an
// integer literal exactly with an integer bound, and any other number as
// strconv.ParseFloat reads it with a bound that float64 holds exactly.
// Rounding to nearest never crosses such a bound (x ≤ b implies
// round(x) ≤ b), so a float strictly on one side of it says on which side
// the number is; one equal to it says nothing (unsure).
type numberBound struct {
	f     float64
	isInt bool
	i     int64
}

func newNumberBound(r *big.Rat) (*numberBound, error) {
	f, exact := r.Float64()
	if !exact {
		return nil, fmt.Errorf("%s is not a float64", r.RatString())
	}
	b := &numberBound{f: f}
	if r.IsInt() && r.Num().IsInt64() {
		b.isInt, b.i = true, r.Num().Int64()
	}
	return b, nil
}

// hasFraction reports whether the JSON number s has no exponent and a
// fraction with a digit other than 0: a number that is not an integer.
func hasFraction(s string) bool {
	_, frac, ok := strings.Cut(s, ".")
	return ok && !strings.ContainsAny(frac, "eE") && strings.Trim(frac, "0") != ""
}

// A numberValue is a JSON number as read for comparison with bounds: an
// integer literal that int64 holds, exactly; any other number as
// strconv.ParseFloat rounds it (ok false if it cannot).
type numberValue struct {
	isInt bool
	i     int64
	f     float64
	ok    bool
}

func readNumber(s string) numberValue {
	if _, exp, ok := strings.Cut(strings.ToLower(s), "e"); ok && len(strings.TrimLeft(exp, "+-")) > 4 {
		// math/big cannot read every such number (0E10000000000000000000:
		// the validator panics on it), so the validator is left to
		// answer as it always did.
		return numberValue{}
	}
	if isIntegerLiteral(s) && len(s) <= 18 {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return numberValue{isInt: true, i: i, f: float64(i), ok: true}
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return numberValue{f: f, ok: err == nil}
}

// cmp compares the number x with the bound: -1, 0 or +1, and whether the
// answer is exact.
func (b *numberBound) cmp(x numberValue) (int, bool) {
	if x.isInt && b.isInt {
		switch {
		case x.i < b.i:
			return -1, true
		case x.i > b.i:
			return 1, true
		}
		return 0, true
	}
	// An integer literal of up to 18 digits may not be a float64 (above
	// 2^53): rounded, it is still on the side of the bound it was on, as
	// any number read by ParseFloat.
	switch {
	case !x.ok:
		return 0, false
	case x.f < b.f:
		return -1, true
	case x.f > b.f:
		return 1, true
	}
	return 0, false
}

func (n *acceptNode) checkNumber(s string) verdict {
	if n.minimum == nil && n.exclusiveMinimum == nil && n.maximum == nil && n.exclusiveMaximum == nil {
		return valid
	}
	x := readNumber(s)
	var all verdicts
	if b := n.minimum; b != nil && all.add(b.check(x, func(c int) bool { return c >= 0 })) {
		return invalid
	}
	if b := n.exclusiveMinimum; b != nil && all.add(b.check(x, func(c int) bool { return c > 0 })) {
		return invalid
	}
	if b := n.maximum; b != nil && all.add(b.check(x, func(c int) bool { return c <= 0 })) {
		return invalid
	}
	if b := n.exclusiveMaximum; b != nil && all.add(b.check(x, func(c int) bool { return c < 0 })) {
		return invalid
	}
	return all.result()
}

// check is whether x lies where ok says, given its comparison with b.
func (b *numberBound) check(x numberValue, ok func(cmp int) bool) verdict {
	c, exact := b.cmp(x)
	if !exact {
		return unsure
	}
	return holds(ok(c))
}

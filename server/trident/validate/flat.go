package validate

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// alreadyNormal reports, without decoding anything, whether args (trimmed,
// an object) pass the schema and are already their normal form, so that
// [Schema.Validate] may return them as given. It answers only for the
// common call: a flat object of the root's own properties, each at most
// once, whose values are strings without escapes, booleans or arrays of
// such strings (estimate_fare's alternativeVehicleTypes), with every
// required and every defaulted property present. Anything else, valid or
// not, it leaves to the general check (false), which words the errors: so
// it never has to, and a true from it is always what the general check
// would say (FuzzAlreadyNormal).
func (s *Schema) alreadyNormal(args []byte) bool {
	var ms [64]plainMember
	_, ok := s.plainMembers(args, &ms)
	return ok
}

// plainMember is one property of arguments [Schema.alreadyNormal] accepts:
// the root property it gives and its value, a string's contents (unquoted;
// it has no escape), the literal true or false, or an array of strings
// with no escape (its bytes from '[' to ']', and how many there are).
type plainMember struct {
	prop  int
	value []byte
	kind  plainKind
	items int // for plainStrings: the number of strings
}

// plainKind is the kind of a [plainMember]'s value.
type plainKind uint8

const (
	plainBool plainKind = iota
	plainStr
	plainStrings
)

// plainMembers is [Schema.alreadyNormal], which also lists the members, in
// the order given. It reads args as JSON itself, strictly (a byte sequence
// encoding/json's Valid refuses is refused here), rather than asking
// json.Valid first: the one pass through the arguments replaces a pass of
// the standard scanner, which called a function per byte (a third of
// encoding/json.Valid's 9% of BenchmarkEstimateFare).
func (s *Schema) plainMembers(args []byte, out *[64]plainMember) (int, bool) {
	root := s.root
	if len(args) == 0 || args[0] != '{' || len(root.props) > len(out) || root.addl != nil ||
		len(root.enum) > 0 || root.constVal != nil || !typeAllows(root.types, "object") {
		return 0, false
	}
	var seen uint64 // bit i: root.props[i] was given
	n := 0
	b := skipSpace(args[1:])
	if len(b) > 0 && b[0] == '}' {
		b = b[1:]
	} else {
		for {
			key, rest, ok := strictString(b)
			if !ok {
				return 0, false
			}
			i := slices.IndexFunc(root.props, func(p prop) bool { return p.name == string(key) })
			if i < 0 || seen&(1<<i) != 0 {
				return 0, false // a key the general check drops or refuses, or a repeated one
			}
			seen |= 1 << i
			if rest = skipSpace(rest); len(rest) == 0 || rest[0] != ':' {
				return 0, false
			}
			m := plainMember{prop: i}
			if v := skipSpace(rest[1:]); len(v) > 0 && v[0] == '[' {
				m.kind = plainStrings
				m.value, m.items, b, ok = root.props[i].n.plainStringsOK(v)
			} else {
				var str bool
				m.value, str, b, ok = root.props[i].n.plainScalarOK(v)
				if str {
					m.kind = plainStr
				}
			}
			if !ok {
				return 0, false
			}
			out[n] = m
			n++
			if b = skipSpace(b); len(b) == 0 {
				return 0, false
			}
			if b[0] == '}' {
				b = b[1:]
				break
			}
			if b[0] != ',' {
				return 0, false
			}
			b = skipSpace(b[1:])
		}
	}
	if len(skipSpace(b)) != 0 {
		return 0, false // trailing text
	}
	for i, p := range root.props {
		if seen&(1<<i) == 0 && (p.n.defaultVal != nil || root.required[p.name]) {
			return 0, false
		}
	}
	return n, true
}

// plainScalarOK checks the string or boolean at the start of b against n as
// [node.check] does, and returns it (a string's contents, or the literal)
// and what follows it; false for any other value, any failure, and JSON
// that is not valid.
func (n *node) plainScalarOK(b []byte) (value []byte, str bool, rest []byte, ok bool) {
	if n.constVal != nil || len(b) == 0 {
		return nil, false, nil, false
	}
	switch b[0] {
	case '"':
		raw, rest, ok := strictString(b)
		if !ok || !typeAllows(n.types, "string") {
			return nil, false, nil, false
		}
		l := utf8.RuneCount(raw)
		if n.minLength != nil && l < *n.minLength || n.maxLength != nil && l > *n.maxLength {
			return nil, false, nil, false
		}
		if n.format != "" && !formatOK(n.format, string(raw)) {
			return nil, false, nil, false
		}
		if len(n.enum) > 0 && !slices.ContainsFunc(n.enum, func(e any) bool { s, ok := e.(string); return ok && s == string(raw) }) {
			return nil, false, nil, false
		}
		return raw, true, rest, true
	case 't', 'f':
		if !typeAllows(n.types, "boolean") || len(n.enum) > 0 {
			return nil, false, nil, false
		}
		lit := "false"
		if b[0] == 't' {
			lit = "true"
		}
		if !bytes.HasPrefix(b, []byte(lit)) {
			return nil, false, nil, false
		}
		return b[:len(lit)], false, b[len(lit):], true
	}
	return nil, false, nil, false
}

// plainStringsOK checks the array at the start of b against n as
// [node.check] does when each item is a string with no escape, and returns
// it (from '[' to ']'), its length and what follows it; false for any other
// array, any failure, and JSON that is not valid. Such an array check
// returns unchanged: items that are strings are kept as they are, and the
// array has no enum or const to compare (those it leaves to the general
// check), so the arguments stay their normal form.
func (n *node) plainStringsOK(b []byte) (value []byte, count int, rest []byte, ok bool) {
	if n.constVal != nil || len(n.enum) > 0 || !typeAllows(n.types, "array") {
		return nil, 0, nil, false
	}
	items := n.items
	if items == nil {
		items = &node{} // no items keyword: any item passes, as it is
	}
	r := skipSpace(b[1:])
	if len(r) > 0 && r[0] == ']' {
		r = r[1:]
	} else {
		for {
			_, str, after, ok := items.plainScalarOK(r)
			if !ok || !str {
				return nil, 0, nil, false
			}
			count++
			if r = skipSpace(after); len(r) == 0 {
				return nil, 0, nil, false
			}
			if r[0] == ']' {
				r = r[1:]
				break
			}
			if r[0] != ',' {
				return nil, 0, nil, false
			}
			r = skipSpace(r[1:])
		}
	}
	if n.minItems != nil && count < *n.minItems || n.maxItems != nil && count > *n.maxItems {
		return nil, 0, nil, false
	}
	return b[:len(b)-len(r)], count, r, true
}

// eachPlainString calls f with the contents of each string of an array
// [node.plainStringsOK] accepted.
func eachPlainString(arr []byte, f func([]byte)) {
	r := skipSpace(arr[1:])
	for len(r) > 0 && r[0] == '"' {
		raw, rest, _ := strictString(r)
		f(raw)
		r = skipSpace(rest)
		if len(r) > 0 && r[0] == ',' {
			r = skipSpace(r[1:])
		}
	}
}

// typeAllows reports whether a value of JSON type got passes types.
func typeAllows(types []string, got string) bool {
	return len(types) == 0 || slices.Contains(types, got)
}

// strictString returns the contents of the JSON string at the start of b
// if it is one with no escape, no control character (which JSON refuses)
// and valid UTF-8, as [plainString] takes it, without copying them.
func strictString(b []byte) (raw, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"') + 1
	if end == 0 {
		return nil, nil, false
	}
	raw = b[1:end]
	for _, c := range raw {
		if c < 0x20 || c == '\\' {
			return nil, nil, false
		}
	}
	if !utf8.Valid(raw) {
		return nil, nil, false
	}
	return raw, b[end+1:], true
}

func skipSpace(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n") }

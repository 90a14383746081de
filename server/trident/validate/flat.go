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
// once, whose values are strings without escapes or booleans, with every
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
// it has no escape) or the literal true or false.
type plainMember struct {
	prop  int
	value []byte
	str   bool // value is a string's contents, else a boolean literal
}

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
			if m.value, m.str, b, ok = root.props[i].n.plainScalarOK(skipSpace(rest[1:])); !ok {
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

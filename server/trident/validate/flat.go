package validate

import (
	"bytes"
	"encoding/json"
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
	root := s.root
	if len(args) == 0 || args[0] != '{' || len(root.props) > 64 || root.addl != nil ||
		len(root.enum) > 0 || root.constVal != nil || !typeAllows(root.types, "object") || !json.Valid(args) {
		return false
	}
	var seen uint64 // bit i: root.props[i] was given
	b := skipSpace(args[1:])
	for b[0] != '}' {
		key, rest, ok := rawString(b)
		if !ok {
			return false
		}
		i := slices.IndexFunc(root.props, func(p prop) bool { return p.name == string(key) })
		if i < 0 || seen&(1<<i) != 0 {
			return false // a key the general check drops or refuses, or a repeated one
		}
		seen |= 1 << i
		rest = skipSpace(skipSpace(rest)[1:]) // past the colon
		if b, ok = root.props[i].n.plainScalarOK(rest); !ok {
			return false
		}
		if b = skipSpace(b); b[0] == ',' {
			b = skipSpace(b[1:])
		}
	}
	for i, p := range root.props {
		if seen&(1<<i) == 0 && (p.n.defaultVal != nil || root.required[p.name]) {
			return false
		}
	}
	return true
}

// plainScalarOK checks the string or boolean at the start of b against n as
// [node.check] does, and returns what follows it; false for any other value
// and any failure.
func (n *node) plainScalarOK(b []byte) ([]byte, bool) {
	if n.constVal != nil {
		return nil, false
	}
	switch b[0] {
	case '"':
		raw, rest, ok := rawString(b)
		if !ok || !typeAllows(n.types, "string") {
			return nil, false
		}
		l := utf8.RuneCount(raw)
		if n.minLength != nil && l < *n.minLength || n.maxLength != nil && l > *n.maxLength {
			return nil, false
		}
		if n.format != "" && !formatOK(n.format, string(raw)) {
			return nil, false
		}
		if len(n.enum) > 0 && !slices.ContainsFunc(n.enum, func(e any) bool { s, ok := e.(string); return ok && s == string(raw) }) {
			return nil, false
		}
		return rest, true
	case 't', 'f':
		if !typeAllows(n.types, "boolean") || len(n.enum) > 0 {
			return nil, false
		}
		if b[0] == 't' {
			return b[len("true"):], true
		}
		return b[len("false"):], true
	}
	return nil, false
}

// typeAllows reports whether a value of JSON type got passes types.
func typeAllows(types []string, got string) bool {
	return len(types) == 0 || slices.Contains(types, got)
}

// rawString returns the contents of the string at the start of b (valid
// JSON) if it has no escape and is valid UTF-8, as [plainString] takes it,
// without copying them.
func rawString(b []byte) (raw, rest []byte, ok bool) {
	if b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"') + 1
	raw = b[1:end]
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		return nil, nil, false
	}
	return raw, b[end+1:], true
}

func skipSpace(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n") }

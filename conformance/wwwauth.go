package conformance

import (
	"fmt"
	"strings"
)

// Challenge is one parsed WWW-Authenticate challenge (RFC 9110 §11.6.1).
type Challenge struct {
	// Scheme is as sent; compare it case-insensitively.
	Scheme string
	// Params maps lower-cased auth-param names to their unquoted values.
	Params map[string]string
}

// ParseChallenges parses a WWW-Authenticate header value into its challenges.
// It is written by hand because the standard library has no parser for it and
// the grammar is small: challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ],
// auth-param = token BWS "=" BWS ( token / quoted-string ). A token68 is kept
// under the param name "" .
func ParseChallenges(h string) ([]Challenge, error) {
	p := &authParser{s: h}
	var out []Challenge
	for {
		p.skipSpaceAndCommas()
		if p.done() {
			break
		}
		scheme := p.token()
		if scheme == "" {
			return nil, fmt.Errorf("WWW-Authenticate %q: expected an auth-scheme at offset %d", h, p.i)
		}
		ch := Challenge{Scheme: scheme, Params: map[string]string{}}
		// Params until the next "token SP" that starts a new challenge.
		for {
			save := p.i
			p.skipSpaceAndCommas()
			if p.done() {
				break
			}
			start := p.i
			name := p.token68ish()
			p.skipSpace()
			if p.peek() != '=' {
				// Either a token68 or the next challenge's scheme.
				if len(ch.Params) == 0 && name != "" && (p.done() || p.peek() == ',') {
					ch.Params[""] = name
					continue
				}
				p.i = save
				break
			}
			p.i++ // '='
			p.skipSpace()
			// "name==" is a token68 with padding.
			if p.peek() == '=' {
				for p.peek() == '=' {
					p.i++
				}
				ch.Params[""] = h[start:p.i]
				continue
			}
			var val string
			if p.peek() == '"' {
				v, err := p.quoted()
				if err != nil {
					return nil, fmt.Errorf("WWW-Authenticate %q: %w", h, err)
				}
				val = v
			} else {
				val = p.token()
			}
			key := strings.ToLower(name)
			if _, dup := ch.Params[key]; dup {
				return nil, fmt.Errorf("WWW-Authenticate %q: auth-param %q given twice", h, name)
			}
			ch.Params[key] = val
		}
		out = append(out, ch)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("WWW-Authenticate %q: no challenge", h)
	}
	return out, nil
}

type authParser struct {
	s string
	i int
}

func (p *authParser) done() bool { return p.i >= len(p.s) }
func (p *authParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}
func (p *authParser) skipSpace() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}
func (p *authParser) skipSpaceAndCommas() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *authParser) token() string {
	start := p.i
	for !p.done() && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68ish reads a token, also allowing token68's '/' (but not '=').
func (p *authParser) token68ish() string {
	start := p.i
	for !p.done() && (isTchar(p.s[p.i]) || p.s[p.i] == '/') {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *authParser) quoted() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if p.done() {
				return "", fmt.Errorf("unterminated escape in quoted-string")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated quoted-string")
}

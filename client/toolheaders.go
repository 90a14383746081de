package client

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SEP-2243 (MCP 2026-07-28, Streamable HTTP "Custom headers from tool
// parameters"): a property of a tool's inputSchema may carry
// "x-mcp-header": "<Name>", and a tools/call then mirrors that argument into
// the header Mcp-Param-<Name>, so that a gateway can route on it without
// reading the body. The rules are small and specific, so they are written
// here rather than taken from the go-sdk, whose versions are unexported.
const (
	paramHeaderPrefix = "Mcp-Param-"
	base64Prefix      = "=?base64?"
	base64Suffix      = "?="
	// maxSafeInteger bounds the integers a header may carry: those a
	// JavaScript number holds exactly.
	maxSafeInteger = 1<<53 - 1
)

// paramHeader binds one (possibly nested) inputSchema property to its
// header.
type paramHeader struct {
	path   []string
	header string
}

// schemaProperty is what x-mcp-header processing reads of a property.
type schemaProperty struct {
	Type       json.RawMessage           `json:"type"`
	XMCPHeader json.RawMessage           `json:"x-mcp-header"`
	Properties map[string]schemaProperty `json:"properties"`
}

// paramHeadersOf returns the x-mcp-header bindings of a tool's inputSchema,
// or why the tool must be rejected: the header is empty or not an HTTP
// token (RFC 9110 §5.1), is used twice (case-insensitively), or marks a
// property that is not a string, integer or boolean. A client "MUST
// exclude" such a tool from the result of tools/list.
func paramHeadersOf(inputSchema json.RawMessage) ([]paramHeader, error) {
	var root schemaProperty
	if len(inputSchema) == 0 || json.Unmarshal(inputSchema, &root) != nil {
		return nil, nil // not an object schema: nothing to mirror
	}
	var out []paramHeader
	seen := map[string]string{}
	var walk func(props map[string]schemaProperty, prefix []string) error
	walk = func(props map[string]schemaProperty, prefix []string) error {
		for name, prop := range props {
			path := append(append([]string(nil), prefix...), name)
			where := strings.Join(path, ".")
			if prop.XMCPHeader != nil {
				var header string
				if json.Unmarshal(prop.XMCPHeader, &header) != nil || header == "" {
					return fmt.Errorf("property %q: x-mcp-header must be a non-empty string", where)
				}
				if !isToken(header) {
					return fmt.Errorf("property %q: x-mcp-header %q is not an HTTP header name", where, header)
				}
				var typ string
				if json.Unmarshal(prop.Type, &typ) != nil || typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("property %q: x-mcp-header may mark only a string, integer or boolean, not %s", where, prop.Type)
				}
				if other, dup := seen[strings.ToLower(header)]; dup {
					return fmt.Errorf("property %q: x-mcp-header %q is also %q's", where, header, other)
				}
				seen[strings.ToLower(header)] = where
				out = append(out, paramHeader{path: path, header: header})
			}
			if err := walk(prop.Properties, path); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root.Properties, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// isToken reports whether s is an HTTP token: 1*tchar (RFC 9110 §5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// headerValue renders an argument for its Mcp-Param header: a string as
// is, or base64 in the =?base64?...?= wrapper when it is not safe in a
// header (non-ASCII, control characters, leading or trailing whitespace, or
// text that looks wrapped already); an integer in decimal; a boolean as
// true or false. ok is false for a null, absent or other value, which is
// not mirrored.
func headerValue(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		if needsBase64(v) {
			return base64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + base64Suffix, true
		}
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > maxSafeInteger {
			return "", false
		}
		return strconv.FormatInt(int64(v), 10), true
	}
	return "", false
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if first, last := s[0], s[len(s)-1]; first == ' ' || first == '\t' || last == ' ' || last == '\t' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix)
}

// toolCatalog is what the last tools/list of a stateless server said: each
// tool's x-mcp-header bindings, which calls need for their headers for as
// long as the client lives, and the list itself, reused while the
// answer's ttlMs keeps it fresh.
type toolCatalog struct {
	mu       sync.Mutex
	bindings map[string][]paramHeader
	list     *cachedTools
}

// cachedTools is a tools/list answer with its caching fields, and the
// credentials ([Client.authContext]) it was fetched with.
type cachedTools struct {
	tools  []Tool
	at     time.Time
	ttl    time.Duration
	public bool
	auth   string
}

// learn records the bindings of every tool of a listing.
func (t *toolCatalog) learn(tools []Tool, bindings map[string][]paramHeader) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bindings == nil {
		t.bindings = map[string][]paramHeader{}
	}
	for _, tl := range tools {
		t.bindings[tl.Name] = bindings[tl.Name]
	}
}

// paramHeaders are the Mcp-Param-* headers of a call of tool with args.
func (t *toolCatalog) paramHeaders(tool string, args json.RawMessage) map[string]string {
	t.mu.Lock()
	bs := t.bindings[tool]
	t.mu.Unlock()
	if len(bs) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, b := range bs {
		if v, ok := headerValue(lookup(args, b.path)); ok {
			out[paramHeaderPrefix+b.header] = v
		}
	}
	return out
}

// lookup returns the value at path in a JSON object, nil when absent.
func lookup(obj json.RawMessage, path []string) json.RawMessage {
	cur := obj
	for _, key := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return nil
		}
		var ok bool
		if cur, ok = m[key]; !ok {
			return nil
		}
	}
	return cur
}

// cached returns the kept listing when it is fresh at now and may serve the
// credentials auth.
func (t *toolCatalog) cached(now time.Time, auth string) ([]Tool, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.list
	if l == nil || !fresh(l.at, l.ttl, now) || !l.public && l.auth != auth {
		return nil, false
	}
	return l.tools, true
}

func (t *toolCatalog) keep(l *cachedTools) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.list = l
}

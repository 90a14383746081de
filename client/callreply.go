package client

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/tridenttaxis/trident-mcp/internal/jsonscan"
)

// callReply is an application/json reply to a tools/call as
// [decodeCallReply] reads it: a [frame] whose result is read in the same
// pass.
type callReply struct {
	ID     json.RawMessage  `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result *callReplyResult `json:"result,omitempty"`
	Error  *RPCError        `json:"error,omitempty"`
}

// callReplyResult is a [Result] whose structuredContent goes where
// StructuredContent points: into the caller's out, or past a [skipped];
// the bytes of structuredContent and of each content block are taken from
// the reply itself ([callReplyLayout]).
type callReplyResult struct {
	Content           []contentBlock  `json:"content"`
	StructuredContent any             `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// contentBlock is a [Content] decoded in the reply's pass: its fields as
// [Content.UnmarshalJSON] decodes them, without its second json.Unmarshal
// and copy of each block (a one-block content array: 14 allocations then,
// 10 now).
type contentBlock Content

// skipped is a JSON value decoded into nothing.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// decodeCallReply decodes an application/json reply and its result (into
// into, a zero result) in one pass, for the common case alone: the reply
// answers id with a result and no error. Anything else, a reply that does
// not decode included, it reports as !ok with into zero again (its out
// too), and the reply is read the general way, which gives the errors it
// always gave.
//
// One pass rather than the frame's, then the result's, then [Client.Call]'s
// of structuredContent into out: each json.RawMessage on the way is
// scanned to be skipped, copied, then validated and scanned again by the
// next json.Unmarshal, and structuredContent is nearly all of the reply.
// When out is a pointer to a zero value, structuredContent is decoded
// straight into it (an interface holding a pointer is decoded through, as
// json.Unmarshal(structuredContent, out) would), and into.decoded says so;
// the bytes Result.StructuredContent keeps are found by [callReplyLayout]
// in the reply, which into's Result then shares. encoding/json's scanner
// went over the 1.1 KB reply of BenchmarkEstimateFareInProcess 2.6 times,
// once now, besides the layout reader's cheaper walk
// (BenchmarkDecodeCallReply: about 28% less time, 65 allocations then, 53
// now).
//
// Which replies take the general way is the layout's to say, so that this
// one never differs from it: a result whose members are named twice or in
// another case or with escapes. An isError result, whose out a Call leaves
// alone, keeps its structuredContent's bytes only.
func decodeCallReply(raw []byte, id json.RawMessage, into *callResult) (*frame, bool) {
	l, ok := callReplyLayout(raw)
	if !ok {
		return nil, false
	}
	if f, ok := fastCallReply(raw, id, l, into); ok {
		return f, true
	}
	return unmarshalCallReply(raw, id, l, into)
}

// unmarshalCallReply is [decodeCallReply] by one json.Unmarshal of the
// whole reply, for the replies [fastCallReply] is not sure of (and the
// reference it is tested against).
func unmarshalCallReply(raw []byte, id json.RawMessage, l replyLayout, into *callResult) (*frame, bool) {
	res := callReplyResult{StructuredContent: &skipped{}}
	direct := l.structured != nil && string(l.structured) != "null" && (l.isError == nil || string(l.isError) == "false") && zeroPointee(into.out)
	if direct {
		res.StructuredContent = into.out
	}
	r := callReply{Result: &res}
	ok := json.Unmarshal(raw, &r) == nil && r.Error == nil && r.Result == &res && sameID(r.ID, id)
	var content []Content
	if ok {
		content, ok = contentOf(res.Content, l.content)
	}
	if !ok {
		if direct {
			reflect.ValueOf(into.out).Elem().SetZero()
		}
		return nil, false
	}
	into.res = Result{Content: content, StructuredContent: shared(l.structured), IsError: res.IsError, Meta: res.Meta}
	into.decoded = direct
	return &frame{ID: r.ID, Method: r.Method, Params: r.Params}, true
}

// contentOf is the Result's Content of the blocks decoded from the content
// array at span, each with its bytes as Raw.
func contentOf(blocks []contentBlock, span []byte) ([]Content, bool) {
	if blocks == nil {
		return nil, true
	}
	out := make([]Content, len(blocks))
	n := 0
	ok := jsonscan.EachItem(span, func(item []byte) bool {
		if n == len(blocks) {
			return false
		}
		b := &blocks[n]
		out[n] = Content{Type: b.Type, Text: b.Text, Raw: shared(item)}
		n++
		return true
	})
	return out, ok && n == len(blocks)
}

// shared is b, a part of the reply that a Result keeps, with no room to
// grow: an append to one part must not write over the next.
func shared(b []byte) []byte { return b[:len(b):len(b)] }

// zeroPointee reports whether out is a non-nil pointer to a zero value:
// then decoding into it and, on failure, zeroing it again leaves it as
// json.Unmarshal(structuredContent, out) would find it.
func zeroPointee(out any) bool {
	v := reflect.ValueOf(out)
	return v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().IsZero()
}

// replyLayout is where a reply's result keeps the members that
// [decodeCallReply] takes from the reply's bytes: each value's bytes as
// encoding/json would take them, nil when absent.
type replyLayout struct {
	content, structured, isError []byte

	// What [fastCallReply] reads besides, found in the same walk: the
	// values of the envelope's id, method and error and of the result's
	// _meta, and odd when one of those (or params) is named twice or in
	// another case, or params is given at all, which the fast path leaves
	// to encoding/json.
	id, method, rpcError, meta []byte
	odd                        bool
}

// callReplyLayout finds the layout of a reply's result, with ok false where
// encoding/json would read the members otherwise or where the result is not
// an object: a member "result", "content", "structuredContent" or "isError"
// named twice (JSON leaves that undefined; encoding/json merges or keeps
// the last), in another case (encoding/json matches names
// case-insensitively) or with an escape in the name of a member it
// inspects. It reads raw as valid JSON and does not check that it is: it
// never reads out of bounds, and what it says of invalid JSON is used only
// once json.Unmarshal has accepted raw.
func callReplyLayout(raw []byte) (l replyLayout, ok bool) {
	var result []byte
	var params []byte
	ok = jsonscan.EachMember(raw, func(key, val []byte) bool {
		if !member(key, val, "id", &l.id) || !member(key, val, "method", &l.method) ||
			!member(key, val, "params", &params) || !member(key, val, "error", &l.rpcError) {
			l.odd = true
		}
		return member(key, val, "result", &result)
	})
	if !ok || result == nil {
		return l, false
	}
	ok = jsonscan.EachMember(result, func(key, val []byte) bool {
		if !member(key, val, "_meta", &l.meta) {
			l.odd = true
		}
		return member(key, val, "content", &l.content) && member(key, val, "structuredContent", &l.structured) && member(key, val, "isError", &l.isError)
	})
	l.odd = l.odd || params != nil
	return l, ok
}

// member keeps val in *into when key is name, and reports false when key
// is name a second time or name in another case.
func member(key, val []byte, name string, into *[]byte) bool {
	switch {
	case string(key) == name:
		if *into != nil {
			return false
		}
		*into = val
	case bytes.EqualFold(key, []byte(name)):
		return false
	}
	return true
}

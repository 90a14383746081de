package fastcall

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/internal/jsonenc"
	"github.com/tridenttaxis/trident-mcp/internal/jsonquote"
)

// appendResult appends res as its SDK encoding (the go-sdk's MarshalJSON,
// with HTML escaping, re-compacted by the JSON-RPC layer's encoder) reads
// once HTML unescaping (Options.HTMLUnescaped, which Serve then applies
// to the reply) has run over both, and reports whether it could. It takes the common shapes: text
// content without _meta or annotations, any structuredContent, isError.
// Anything else (other content, _meta, input requests, a value that fails
// to encode, an invalid json.RawMessage) it leaves to the SDK's encoding,
// so that the bytes or the error are the SDK's own; buf is then as it was.
//
// Why by hand: a search_rides reply is ~19 KB, half of it the result's JSON
// as text and half the same JSON as a RawMessage. The SDK's way escapes
// the text, compacts the RawMessage, then compacts and validates the whole
// output again in json.Encoder, and the unescaper copies all of it
// because the text holds escaped quotes: ~13% of the CPU of
// BenchmarkSearchRidesParallel. Here each part is encoded once, and the
// unescaper finds no HTML escape to rewrite in the text: 244 µs to 27 µs
// a reply in BenchmarkFastResultEncoding (server/mcphttp).
//
// The text is quoted (jsonquote.Append) and enc writes to buf without
// HTML escaping, so the output differs from the SDK's in &<> (written as
// themselves, which the unescaping makes of the SDK's \u0026, \u003c and
// \u003e) and in U+2028 and U+2029, which a json.Marshaler's output keeps
// as they are without HTML escaping; escapeSeparators makes up the second.
func appendResult(buf *bytes.Buffer, enc *json.Encoder, res *mcp.CallToolResult) bool {
	if len(res.Meta) > 0 || res.Content == nil || res.InputRequests != nil || res.RequestState != "" {
		return false
	}
	start := buf.Len()
	buf.WriteString(`{"content":[`)
	for i, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || len(t.Meta) > 0 || t.Annotations != nil {
			buf.Truncate(start)
			return false
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"type":"text","text":`)
		// As the SDK's json.Marshal writes it but for &<>, which the
		// unescaping writes so anyway; no other escape in it is one the
		// unescaper rewrites (a backslash is always doubled). Quoted with
		// jsonquote rather than enc: the same bytes, 20.2 µs to 8.0 µs on
		// the search_rides sample's text (BenchmarkQuoteSearchText).
		// The Grow leaves room for an escape in eight bytes, so that
		// Append need not allocate a slice of its own.
		buf.Grow(len(t.Text) + len(t.Text)/8 + 16)
		buf.Write(jsonquote.Append(buf.AvailableBuffer(), t.Text))
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
	if sc := res.StructuredContent; sc != nil {
		buf.WriteString(`,"structuredContent":`)
		from := buf.Len()
		var err error
		switch v := sc.(type) {
		case json.RawMessage: // RawMessage.MarshalJSON, compacted by the SDK's Marshal
			switch {
			case v == nil:
				buf.WriteString("null")
			case isCompactJSON(v):
				buf.Write(v)
			default:
				err = json.Compact(buf, v)
			}
		default:
			// A contract type encodes itself, as enc would (generated
			// AppendJSON: the estimate_fare reply in 2.02 µs rather than
			// 2.38, within the noise of a shared machine,
			// BenchmarkFastEstimateFareEncoding in server/mcphttp);
			// anything else, or a value its encoder refuses, goes to enc.
			if b, ok := jsonenc.Append(buf.AvailableBuffer(), v); ok {
				buf.Write(b)
			} else if err = enc.Encode(v); err == nil {
				buf.Truncate(buf.Len() - 1)
			}
		}
		if err != nil {
			buf.Truncate(start)
			return false
		}
		escapeSeparators(buf, from)
	}
	if res.IsError {
		buf.WriteString(`,"isError":true`)
	}
	buf.WriteByte('}')
	return true
}

// escapeSeparators rewrites U+2028 and U+2029 in buf[from:], valid
// compact JSON, as \u2028 and \u2029, as encoding/json's HTML-escaping
// compaction of a json.Marshaler's output does. Most values have no byte
// 0xE2, which one IndexByte tells cheaply.
func escapeSeparators(buf *bytes.Buffer, from int) {
	if bytes.IndexByte(buf.Bytes()[from:], 0xE2) < 0 {
		return
	}
	src := bytes.Clone(buf.Bytes()[from:])
	buf.Truncate(from)
	for i := 0; i < len(src); i++ {
		if c := src[i]; c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
			buf.WriteString(`\u202`)
			buf.WriteByte("0123456789abcdef"[src[i+2]&0xF])
			i += 2
		} else {
			buf.WriteByte(c)
		}
	}
}

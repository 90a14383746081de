package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/jsonenc"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// marshal is JSON without HTML escaping: links keep their "&" readable in
// the text block. A contract type encodes itself (its generated
// AppendJSON, the same bytes): the search_rides sample's result in 10.9 µs
// rather than 36.7 (BenchmarkMarshal); anything else, or a value its
// encoder refuses, goes through encoding/json, whose bytes and errors
// these are.
func marshal(v any) (string, error) {
	if _, ok := v.(jsonenc.Appender); ok {
		p := scratch.Get().(*[]byte)
		b, ok := jsonenc.Append((*p)[:0], v)
		var out string
		if ok {
			out = string(b)
			*p = b[:0]
		}
		if cap(*p) <= maxScratch {
			scratch.Put(p)
		}
		if ok {
			return out, nil
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("relay: encoding the result: %w", err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// scratch holds marshal's encoding buffers, so that a result is written
// into room it fits and then copied once: appended from nothing, the
// search_rides sample's (~8 KB) grew through 15 arrays, 34 KB, which cost
// as much as encoding it. A buffer grown past maxScratch is not kept.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

const maxScratch = 1 << 20

// result is a tool's answer: structuredContent, and its JSON as text.
func result(out any, isError bool) (*mcp.CallToolResult, error) {
	s, err := marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: s}},
		StructuredContent: jsonenc.Compact(s), // marshal's output, the text's bytes: written as it is
		IsError:           isError,
	}, nil
}

// refusal is a refused call: a Refusal result with isError true.
type refusal struct {
	out   mcptypes.Refusal
	cause error // logged, never sent
}

// refuse answers r as the front door's tool error: a result with isError
// true, the Refusal as structuredContent and its JSON as text, counted
// under the catalogue code of its status (RELAY_INVALID_OPTION, ...).
func (s *endpoint) refuse(_ context.Context, _ string, r *refusal) (*mcp.CallToolResult, error) {
	s.obs.refused(r)
	b, err := json.Marshal(r.out)
	if err != nil {
		return nil, fmt.Errorf("relay: encoding a refusal: %w", err)
	}
	return nil, &mcphttp.ToolError{Code: "RELAY_" + strings.ToUpper(string(r.out.Status)), Text: string(b), Structured: json.RawMessage(b), Cause: r.cause}
}

// Error makes a refusal an error, so that a helper can return either a
// refusal or an internal failure and [endpoint.fail] tells them apart.
func (r *refusal) Error() string { return string(r.out.Status) + ": " + r.out.Message }

// fail answers err: a refusal as the tool's refusal, anything else as an
// internal error (-32603, logged by the front door).
func (s *endpoint) fail(ctx context.Context, tool string, err error) (*mcp.CallToolResult, error) {
	var r *refusal
	if errors.As(err, &r) {
		return s.refuse(ctx, tool, r)
	}
	return nil, err
}

func message(code errcodes.Code, kv ...string) string {
	msg := errcodes.MustLookup(code).Message
	for i := 0; i+1 < len(kv); i += 2 {
		msg = strings.ReplaceAll(msg, "{"+kv[i]+"}", kv[i+1])
	}
	return msg
}

func invalidArguments(fields ...mcptypes.FieldProblem) *refusal {
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		if f.Field == "" {
			names = append(names, "arguments: "+f.Reason)
		} else {
			names = append(names, f.Field+": "+f.Reason)
		}
	}
	return &refusal{out: mcptypes.Refusal{
		Status:  mcptypes.RefusalStatusInvalidArguments,
		Message: message(errcodes.RelayInvalidArguments, "fields", strings.Join(names, "; ")),
		Fields:  fields,
	}}
}

func invalidOption(cause error) *refusal {
	return &refusal{out: mcptypes.Refusal{Status: mcptypes.RefusalStatusInvalidOption, Message: message(errcodes.RelayInvalidOption)}, cause: cause}
}

func invalidContext(cause error) *refusal {
	return &refusal{out: mcptypes.Refusal{Status: mcptypes.RefusalStatusInvalidContext, Message: message(errcodes.RelayInvalidContext)}, cause: cause}
}

// actor names the caller options and contexts are bound to: the token's
// subject and client in OAuth mode, "anonymous" in public mode (where
// ownership rests on the signed context alone).
func actor(ctx context.Context, req *mcp.CallToolRequest) string {
	var c auth.Caller
	var ok bool
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		c, ok = auth.CallerFromTokenInfo(req.Extra.TokenInfo)
	}
	if !ok {
		c, ok = auth.CallerFrom(ctx)
	}
	if !ok || !c.IsAuthenticated() {
		return "anonymous"
	}
	return "oauth:" + c.UserID() + "|" + c.ClientID()
}

// randomID returns prefix_ and 16 bytes in hex: the Unix time in
// milliseconds in the first six, as UUIDv7 orders them, and ten random
// (80 bits no one can guess). Ids that grow with time land at the end of
// the store's indexes, so one commit of a batch of searches dirties a few
// shared pages rather than a random page per index and row: with ids in
// order, 10,000 search writes on SQLite took a third less time each than
// with random UUIDs (BenchmarkStore/sqlite/SearchWriteParallel, 16
// callers: 184-193 µs against 261-319 µs).
func randomID(prefix string) string {
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	if _, err := rand.Read(b[6:]); err != nil {
		panic("relay: crypto/rand: " + err.Error())
	}
	return prefix + "_" + hex.EncodeToString(b[:])
}

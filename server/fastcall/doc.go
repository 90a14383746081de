// Package fastcall answers the calls that dominate MCP traffic, a stateless
// tools/call whose reply is application/json, without an SDK session, and
// leaves everything else to the go-sdk.
//
// The go-sdk's stateless Streamable HTTP handler builds a session, a
// JSON-RPC connection and a stream for every request, and decodes the body
// several times through a streaming decoder with a fresh 32 KiB buffer each
// time; for a call that costs microseconds of tool work that is most of the
// server's CPU and nearly all of its allocation. A [Handler] answers the
// simple case itself: a body that is one tools/call of a known tool, with
// plain name and arguments and an id the SDK echoes unchanged, is read once
// (the arguments are a slice of the body), dispatched through the same
// receiving middleware to the same tool handler, and its reply encoded once.
// The front door hands every request it does not take (initialize, other
// methods, notifications, progress tokens, _meta, sessions, batches, ids
// the SDK rewrites such as 1.5 or 1e2) to the SDK untouched.
//
// Where a reply is to read with HTML escapes undone, as the front door
// writes every reply ([Options].HTMLUnescaped), a text result is encoded
// by hand, each part
// once, rather than by the SDK's MarshalJSON and a second compaction of
// the whole reply.
//
// The answers are the SDK's byte for byte: the front door's differential
// tests (server/mcphttp, against its test endpoint) send every
// error-catalogue case, each kind of tool answer, random calls and a fuzz
// corpus through both and compare status, headers and body, and each
// endpoint's tests send its own samples and refusals through both.
//
//	fast := fastcall.New(fastcall.Options{Tools: handlers, Middleware: []mcp.Middleware{mw}})
//	if call, ok := fast.Parse(r, body); ok {
//		fast.Serve(w, r, call)
//		return
//	}
//	sdkHandler.ServeHTTP(w, r) // with the body put back
package fastcall

// Package sse decodes a text/event-stream body into events, following the
// WHATWG HTML "Server-sent events" parsing rules
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
//
// MCP Streamable HTTP answers a POST with either one JSON-RPC message or an
// event stream of them; the client in the parent package reads the stream
// with a [Decoder]:
//
//	d := sse.NewDecoder(resp.Body, 0)
//	for {
//		ev, err := d.Next()
//		if err != nil {
//			break // io.EOF: the stream ended cleanly
//		}
//		handle(ev.Data)
//	}
//
// Why a parser of our own: the maintained Go SSE libraries either drop the
// "retry" field from what a reader sees, or come with a reconnecting client
// we do not want (MCP resumes with Last-Event-ID on its own terms). The rules
// are short; this package implements all of them (LF, CR and CRLF line ends,
// a CR and its LF split across reads, a leading BOM, comments, several data
// lines joined with "\n", id without NUL, numeric retry, the incomplete last
// event discarded) and caps the size of one event so that a hostile server
// cannot make the client buffer without bound. FuzzDecoder checks it against
// a literal transcription of the spec.
package sse

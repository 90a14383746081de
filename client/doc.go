// Package client is the Go client of the project's MCP endpoints, generic
// over the tools: client developers import it (or an endpoint's typed client
// over it, such as client/trident) instead of writing JSON-RPC, Server-Sent
// Events and OAuth plumbing by hand. It does in Go what the Trident
// specification's JavaScript does (callStartBooking, consumeSseStream,
// callMcp), and more.
//
//	c, err := trident.New("https://tridenttaxis.online/mcp") // client/trident, over client.New
//	fare, err := c.EstimateFare(ctx, mcptypes.EstimateFareInput{
//		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
//	})
//
// Which MCP revision: the client speaks 2026-07-28 and every older
// revision ([SupportedProtocolVersions]), choosing by what the server
// offers. Before its first call it sends server/discover in 2026-07-28
// ([Client.Discover] returns the answer); a server that lists that
// revision is called statelessly in it, one that refuses it with -32022
// and a list is met in the newest revision both speak, and one that does
// not know server/discover is met in the handshake revisions, 2025-11-25
// in initialize. [WithProtocolVersion] names another revision to offer
// first; [Client.ProtocolVersion] says which one is in use.
//
// What every call does:
//   - sends Content-Type, Accept: application/json, text/event-stream and
//     MCP-Protocol-Version; in the handshake revisions calls statelessly,
//     and initializes only when the server asks for a session
//     ([Handshake]);
//   - in 2026-07-28, carries its revision, clientInfo and
//     clientCapabilities in params._meta and mirrors its method and name
//     into Mcp-Method and Mcp-Name, and a tools/call the arguments its tool
//     marks with x-mcp-header into Mcp-Param-* headers (base64 for values
//     unsafe in a header; [Client.ListTools] learns the marks and leaves out
//     tools whose marks are invalid); answers a result that asks for input
//     (resultType "input_required": elicitation/create with
//     [WithElicitation]) and sends the request again with a new id, the
//     answers and the server's requestState; reuses tools/list and
//     server/discover answers while their ttlMs says they are fresh, a
//     "private" one only with the same token;
//   - reads an application/json reply or an event stream (package
//     [github.com/tridenttaxis/trident-mcp/client/sse]), delivering
//     notifications/progress to [WithProgress] and picking the final frame by
//     its id;
//   - retries 408, 425, 429, 500, 502, 503, 504, network errors and a stream
//     cut before its final frame, with full-jitter exponential backoff (a
//     wait drawn from [0, 1 s], then [0, 2 s]; the ceiling keeps doubling
//     when [RetryPolicy.MaxAttempts] allows more), Retry-After honoured as
//     seconds or an HTTP date, at most 3 attempts, stopping at once when the
//     context ends; never retries tool errors, JSON-RPC errors, 401 or other
//     4xx;
//   - resumes an event stream cut before its final frame when the stream
//     carried event ids: after the stream's retry time, a GET with
//     Last-Event-ID (MCP 2025-11-25 resumability, SEP-1699); a server that
//     cannot resume leaves the cut to the retry policy;
//   - in the handshake revisions, answers requests the server sends inside
//     a reply stream, or on the session's GET stream while a call runs:
//     ping, elicitation/create when [WithElicitation] is set (declared in
//     initialize), -32601 otherwise, so that a call never stalls on an
//     unanswered request (2026-07-28 has no such requests and no GET stream;
//     its input requests come in results, as above);
//   - in OAuth mode ([WithTokenSource], usually a client/oauth.Source) sends
//     the bearer token, and on a 401 refreshes once and retries once, never
//     resending the refused token. An [Authorizer] (client/oauth.Authorizer)
//     is handed each 401 and each 403 insufficient_scope as a [Challenge]
//     instead, and may run the whole authorization flow; a request is
//     retried after at most two challenges.
//
// Errors are [*TransportError], [*RPCError] and [*ToolError], for
// errors.As; each carries its catalogue name from contracts/errors.json
// ([CodeOf]).
//
// The typed methods of each endpoint (Trident's EstimateFare,
// GetServiceInfo, StartBooking) live in client/<endpoint>/tools.gen.go,
// generated from contracts/<endpoint>/ by tools/cmd/gen-client; never edit
// those files by hand.
package client

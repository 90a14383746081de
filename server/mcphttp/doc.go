// Package mcphttp is the front door of every MCP endpoint: MCP Streamable
// HTTP on the go-sdk's stateless handler, behind the checks that answer each
// failure in the error catalogue's exact shape before the SDK sees the
// request. It knows nothing of the tools it serves.
//
// It serves the revision the specification documents, 2025-06-18, the
// older ones, 2025-11-25, and the stateless 2026-07-28 (SEP-2575:
// server/discover, no handshake, the protocol version and client info in
// each request's params._meta), each as that revision specifies
// ([ProtocolVersions]; contracts/README.md, "Protocol revisions"). Where a
// revision changed a documented behaviour the endpoint decides by policy:
// arguments that fail a tool's input schema ([ArgumentError]) are -32602 up
// to 2025-06-18 and an isError result from 2025-11-25, unless the
// endpoint's [ArgumentErrorPolicy] always wants the result.
//
// In order: Origin/Host guard (403, DNS-rebinding protection, CORS), the
// endpoint's OAuth verifier when there is one (401), method (405), Accept
// (406), Content-Type (415), MCP-Protocol-Version (400), body size (413)
// and pace (408), JSON (-32700), JSON-RPC envelope (-32600), method name
// (-32601), tools/call name (-32602 when absent, -32601 when the endpoint
// has no such tool), in OAuth mode the tool's scope ([Endpoint.ToolScopes]:
// 403 insufficient_scope), the endpoint's rate limit (429 with
// Retry-After). A
// call whose params._meta.progressToken is set is answered as
// text/event-stream (notifications/progress, then the result); every other
// reply is application/json. A panic is -32603 and the process keeps
// serving. Every tools/call is counted under the endpoint's path, its tool
// and its outcome: "ok", the code of a [*ToolError] the handler returned,
// or the catalogue code of its JSON-RPC error.
//
// Stateless by design: the specification's clients call tools/call with no
// initialize and no session, and clients that initialize first (the
// TypeScript SDK, the MCP Inspector) get the same answers without a session
// id, unless the endpoint keeps sessions ([SessionsForHandshake], below).
// [ServeStdio] serves the same tools over stdio, for clients that launch
// a local server.
//
// Beside its tools an endpoint may serve [Prompt]s, [Resource]s and
// [ResourceTemplate]s, completions ([CompletionHandler]), list changes and
// resource updates to the clients that subscribe ([Changes]:
// subscriptions/listen at 2026-07-28, resources/subscribe in a session),
// multi round-trip results (SEP-2322: a handler answers with input requests,
// and the front door seals the requestState it returns with an HMAC and
// refuses a tampered one) and tasks (SEP-2663, the io.modelcontextprotocol/tasks
// extension: [Tool.Task], [RunAsTask]). Prompts, resources, completions and
// multi round-trip calls are stateless and work across replicas (that share
// [Config.RequestStateKeys]). What an endpoint opts into lives in one
// process: a session ([SessionsForHandshake]: a 2025-11-25 client's
// server-to-client requests, which is what a handler's input requests
// become for it, its log level and subscriptions), a task, and the
// listeners [Changes] notifies. features.go wires each into the go-sdk
// server.
//
// The front door's tests run against a small endpoint of their own
// ([github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest]),
// so each behaviour above is tested once, whatever endpoints a server
// mounts, the fast path's parity with the go-sdk included.
//
// An endpoint package builds an [Endpoint]; the host
// ([github.com/tridenttaxis/trident-mcp/server]) mounts it with [New]:
//
//	ep := &mcphttp.Endpoint{
//		Path:           "/mcp/rides",
//		Implementation: &mcp.Implementation{Name: "relay-rides", Version: "0.1.0"},
//		Tools: []mcphttp.Tool{{
//			Def: searchRidesTool, // schemas as written in contracts/relay/
//			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//				if !covered {
//					return nil, &mcphttp.ToolError{Code: "NOT_ELIGIBLE", Text: "...", Structured: out}
//				}
//				return &mcp.CallToolResult{StructuredContent: out, Content: ...}, nil
//			},
//		}},
//		RateLimit: &limits.Policy{Tools: map[string]limits.Rule{"search_rides": {PerMinute: 30}}},
//		Routes: func(m mcphttp.Mount, mux *http.ServeMux) error {
//			mux.Handle("POST /v1/session/connectors", connectors)
//			return nil
//		},
//	}
//	srv, err := server.New(hostOpts, tridentEndpoint, ep)
package mcphttp

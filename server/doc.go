// Package server is the Trident Taxis MCP server: MCP Streamable HTTP at
// POST /mcp (protocol 2025-06-18) serving estimate_fare, get_service_info
// and start_booking, and the HTTP surface around it (/.mcp/list-tools,
// /mcp-schemas/..., /samples/..., /mcp-docs, /healthz, /readyz, /metrics,
// /.well-known/oauth-protected-resource).
//
// It is built on the go-sdk's mcp.Server and its stateless streamable
// handler, behind a front door that answers every failure the published
// docs list in their exact shape (406 for a bad Accept, -32700, -32600,
// -32601 "Method not found: no tool named '<name>'", -32602 "Invalid params:
// <field>: <reason>" in Zod's words, 403 for a foreign Origin, 413, 429)
// before the SDK sees the request. Tool schemas, the error catalogue and
// the tariff all come from contracts/, so tools/list serves the contract's
// schemas unchanged and a contract change changes validation.
//
// Stateless by design: the seed's curl examples call tools/call with no
// initialize and no session, and clients that initialize first (the
// TypeScript SDK, the MCP Inspector) get the same answers without a session
// id. A call that carries params._meta.progressToken is answered as
// text/event-stream with notifications/progress frames before the result;
// every other reply is application/json.
//
// Use:
//
//	srv, err := server.New(nil) // public mode, embedded geocoder and router
//	if err != nil { ... }
//	defer srv.Close()
//	http.ListenAndServe(":8080", srv.Handler())
//
// or srv.Serve(ctx, listener) for the timeouts and the graceful shutdown of
// the binary (server/cmd/trident-mcp).
package server

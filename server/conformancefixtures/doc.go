// Package conformancefixtures is an MCP endpoint of test fixtures, at
// /mcp/conformance: the tools, prompts, resources, resource templates,
// completions and tasks the official MCP conformance suite
// (@modelcontextprotocol/conformance, the 0.2 line) expects a server under
// test to expose (test_simple_text, test_image_content, prompts named
// test_*, resources under test://, greet and slow_compute for the tasks
// extension, ...), so that the suite can score the front door
// ([github.com/tridenttaxis/trident-mcp/server/mcphttp]) on every feature
// it has, at 2025-11-25 and at 2026-07-28.
//
// It is built like every other endpoint and mounted by the same host
// through the same front door, but only when asked: trident-mcp mounts it
// with -conformance-fixtures (CONFORMANCE_FIXTURES=true), which is off by
// default and never set in production, since its tools are fakes. What the
// fixtures need from the front door (prompts, resources, completion,
// subscriptions, sessions for 2025-11-25's server-to-client requests,
// multi round-trip results with integrity-protected requestState, tasks) is
// the front door's, so /mcp and /mcp/rides have it too; the fixtures only
// answer.
//
//	ep, err := conformancefixtures.New(nil)
//	if err != nil { ... }
//	srv, err := server.New(hostOpts, tridentEP, relayEP, ep)
//
// Each fixture answers exactly what the suite's scenario for it describes;
// the descriptions are in the suite's own scenario sources
// (node_modules/mcp-conformance-0-2, `conformance list --server`).
package conformancefixtures

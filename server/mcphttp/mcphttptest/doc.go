// Package mcphttptest is the test kit of the front door
// ([github.com/tridenttaxis/trident-mcp/server/mcphttp]) and of the host
// that mounts endpoints behind it: a small endpoint of its own ([New])
// whose tools answer in every way a tool can (a result, a refusal, an
// argument error, a failure, a panic, progress, a call that waits until
// released), the front door's configuration as the host fills it
// ([Config]), and what a test needs to call an MCP endpoint over HTTP and
// read the reply ([Post], [Frames], [CheckRPC]) or to compare the fast path
// with the go-sdk ([Paths]).
//
// As go-sdk's transport tests use tiny in-file servers, the front door is
// tested against this endpoint, so each of its behaviours is tested once,
// whatever endpoints the server mounts; each endpoint's own tests test that
// endpoint.
//
//	ep := mcphttptest.New("/mcp/kit")
//	cfg, reg := mcphttptest.Config(t)
//	ts := mcphttptest.Serve(t, ep.Endpoint, cfg)
//	r := mcphttptest.Post(t, ts.URL, mcphttptest.Headers(), mcphttptest.CallBody("1", mcphttptest.ToolEcho, `{"text":"hi"}`))
package mcphttptest

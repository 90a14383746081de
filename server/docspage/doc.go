// Package docspage serves /mcp-docs: the human documentation of every MCP
// endpoint a host mounts, with a live Try-it console per endpoint.
//
// The page knows nothing of taxis or rides. Each endpoint's package
// describes itself as an [Endpoint] (tools with their schemas exactly as
// tools/list serves them, samples, the error catalogue, OAuth mode), most
// of it read from its contract folder by [FromContracts], through
// mcphttp.Endpoint.Docs; the host hands the list to [New]:
//
//	tools, errs, err := docspage.FromContracts(tridentcontracts.Set, "/mcp-schemas/", "/samples/")
//	trident := docspage.Endpoint{ID: "trident", Title: "Trident Taxis", Path: "/mcp", Tools: tools, Errors: errs, ...}
//	h, err := docspage.New(docspage.Page{
//		Title: "Trident Taxis MCP tools", Path: "/mcp-docs",
//		PublicBaseURL: "https://tridenttaxis.online",
//		Endpoints: []docspage.Endpoint{trident, relay},
//	})
//	if err != nil { ... }
//	h.Register(mux) // GET /mcp-docs and GET /mcp-docs/assets/...
//
// Everything the page loads is embedded in the binary: its stylesheet, its
// script and the JSON Schema validator the console checks arguments with
// (@cfworker/json-schema, vendored under assets/json-schema). The page's
// Content-Security-Policy allows nothing else, so a forgotten CDN link
// fails loudly in a browser. The console calls the endpoint on the page's
// own origin with fetch and reads a streamed reply frame by frame.
//
// The browser test in e2e/browser drives the page in headless Chromium.
package docspage

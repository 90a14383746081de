// Package trident is the Trident Taxis MCP endpoint at /mcp: the tools
// estimate_fare, get_service_info and start_booking over the fare tariff,
// geocoder and router, and the plain HTTP surface around them
// (/.mcp/list-tools, /mcp-schemas/..., /samples/..., /mcp-docs). Its tool
// schemas, samples and tariff come from its contracts, so tools/list serves
// the contract's schemas unchanged and a contract change changes
// validation.
//
// [New] returns a [mcphttp.Endpoint] for the host to mount; the front door
// (406, -32700, origin, OAuth, SSE, limits, metrics) is the host's, shared
// with every other endpoint:
//
//	ep, err := trident.New(nil) // public defaults, embedded geocoder and router
//	if err != nil { ... }
//	srv, err := server.New(nil, ep)
//	if err != nil { ... }
//	defer srv.Close()
//	http.ListenAndServe(":8080", srv.Handler())
//
// Each handler checks its arguments against the contract's input schema
// (-32602 "Invalid params: <field>: <reason>") and start_booking the party
// size (CAPACITY_EXCEEDED) before any geocoding, so a bad call costs no
// upstream quota.
package trident

// Package server is the host of the MCP endpoints: it mounts each endpoint
// behind the one front door ([mcphttp]) and owns what is server-wide —
// /healthz, /readyz (ready when every endpoint and every verifier is),
// /metrics (one registry; each per-call series has an endpoint label), the
// access log (one line per request, never a header or a body), and the
// shutdown of [Server.Serve] that drops no call: a drain during which
// /readyz is 503 and every reply closes its connection (ShutdownDelay),
// then a listener that closes without resetting its queue, then the wait
// for calls in flight (ShutdownTimeout).
//
// In OAuth mode (Options.Auth) every endpoint gets a verifier of its own,
// bound to its own resource URL (RFC 8707), and its own protected-resource
// metadata document at /.well-known/oauth-protected-resource<path>
// (RFC 9728 section 3.1), which its 401 challenge names. The one endpoint
// with RootMetadata (Trident's /mcp, as its specification shows) is also
// described at the root, /.well-known/oauth-protected-resource, and its
// challenge names that.
//
// An endpoint is a package that returns a [mcphttp.Endpoint]: its path,
// its tools, its rate-limit policy and its plain HTTP routes. The binary
// (server/cmd/trident-mcp) mounts them:
//
//	tri, err := trident.New(&trident.Options{BookingBaseURL: "https://tridenttaxis.online"})
//	if err != nil { ... }
//	rides, err := relay.New(&relay.Options{...}) // a second endpoint: one more line
//	if err != nil { ... }
//	srv, err := server.New(&server.Options{PublicBaseURL: "https://tridenttaxis.online"}, tri, rides)
//	if err != nil { ... }
//	defer srv.Close()
//	err = srv.Serve(ctx, listener) // or http.ListenAndServe(addr, srv.Handler())
package server

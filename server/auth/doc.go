// Package auth is the OAuth 2.1 resource server in front of the MCP endpoints.
//
// When the operator sets MCP_REQUIRE_OAUTH=true, no anonymous caller may reach
// a tool. This package holds everything that decision needs, and nothing else:
//
//   - [Verifier] checks a bearer JWT the way the Trident Taxis docs promise:
//     ES256/RS256 only, signature against the issuer's JWKS (found through
//     discovery, cached, re-fetched once on an unknown kid, rate-limited),
//     iss exact, aud containing "authenticated" and the resource URL
//     (RFC 8707), exp/nbf/iat with a small skew, sub and client_id present.
//   - [Verifier.Middleware] takes the token from the Authorization header only
//     and answers every failure with the same 401 ([WriteUnauthorized]): one
//     shape, so a client learns nothing from it except "run the OAuth flow
//     again", while the reason is logged for the operator.
//   - [Caller], [CallerFrom] and [CallerFromTokenInfo] hand the verified caller
//     (user id, email, client id, claims, raw token) to tool handlers.
//   - [ProtectedResourceMetadataHandler] serves RFC 9728 metadata in both
//     modes, so one probe tells a client whether it needs a token at all.
//
// One verifier per endpoint, each bound to its own resource (the host in
// package server does this for every endpoint it mounts):
//
//	v, err := auth.NewVerifier(auth.Config{
//		Issuer:              issuerURL, // the binary's OAUTH_ISSUER
//		ResourceURL:         publicBaseURL + "/mcp/rides",
//		ResourceMetadataURL: publicBaseURL + auth.MetadataPathFor("/mcp/rides"),
//	})
//	if err != nil { ... }      // configuration errors only; an unreachable issuer is not one
//	defer v.Close()
//	mux.Handle("/mcp/rides", v.Middleware(ridesHandler))
//	mux.Handle(auth.MetadataPathFor("/mcp/rides"), auth.ProtectedResourceMetadataHandler(v.MetadataConfig()))
//	// /readyz: v.ReadyErr() == nil once signing keys are loaded.
//
// In public mode (the default) the middleware is not mounted at all: no
// verification runs, [CallerFrom] reports no caller unless the server attaches
// [Anonymous], and the metadata handler says authorization_required: false.
//
// Why a hand-written middleware rather than the go-sdk's RequireBearerToken:
// the SDK answers failures with a text/plain body and its own
// WWW-Authenticate wording, while the published contract fixes a JSON-RPC
// body with code -32001 and a specific challenge; its header parsing
// (strings.Fields) also accepts tabs and repeated spaces that the contract
// refuses. The SDK middleware is still used, behind ours, to install the
// SDK's [github.com/modelcontextprotocol/go-sdk/auth.TokenInfo] so that mcp.RequestExtra.TokenInfo and the SDK's
// session-hijack check see the verified user.
package auth

// Package e2e holds the end-to-end tests of OAuth mode: the real dev issuer
// (internal/devissuer) and the real MCP server (server, with server/auth in
// front of /mcp) started in-process on loopback listeners and driven over
// real HTTP, the way the published docs' "OAuth 2.1 end-to-end flow" tells
// a client to drive them.
//
// Unit tests of server/auth, internal/devissuer and client/oauth each fake
// the other side; only here do the three meet, so only here can a
// disagreement between them show up: a claim the issuer writes and the
// verifier reads differently, a metadata URL one serves and the other does
// not look for, a refresh rotation the client mishandles. The package has
// no non-test code besides this comment.
//
// What runs (go test ./e2e/):
//
//   - TestOAuthFlow: discovery from a 401, DCR, authorize with PKCE through
//     the HTML sign-in and consent pages and through dev auto-approve, code
//     exchange, a tool call, refresh rotation, refresh-token reuse revoking
//     the family, re-consent.
//   - TestRejections: every refusal class of the resource server, with
//     tokens from the dev issuer's key and from keys the server has never
//     seen, each answered with the contract's exact 401.
//   - TestKeyRotation, TestIssuerUnreachableAtStart: key rotation while
//     running; /readyz while the issuer is down at start-up.
//   - TestGoClient: the project's Go client (client, client/oauth).
//   - TestTypeScriptSDK: the official TypeScript SDK's client (e2e/ts),
//     run with the Node 22 of node_modules; skipped when node_modules has
//     not been installed (make npm).
//   - TestModeProbe: the one probe that tells the two modes apart.
//   - TestCallerReachesServer: the verified user, not the connection, is
//     who the server's per-end-user limiter counts.
package e2e

// Package oauth gives the MCP client its OAuth 2.1 side, as the specification's
// "OAuth 2.1 end-to-end flow" describes it for a Supabase-style issuer:
//
//   - [Source] is a client.TokenSource: it hands out the stored access token,
//     refreshes it shortly before expiry, and after a 401 refreshes exactly
//     once however many calls met that 401 at the same time (single flight).
//     Refresh tokens rotate on every use and reusing an old one revokes the
//     whole family, so the new pair is saved to the [Store] before any caller
//     sees the new access token, and a revoked family surfaces as
//     [ErrReconsentRequired] rather than a retry loop.
//   - [FileStore] saves atomically (temporary file, fsync, rename, mode
//     0600): a crash mid-save leaves the previous tokens readable.
//   - [Discover] follows the 401's WWW-Authenticate resource_metadata URL to
//     the RFC 9728 resource metadata (else the well-known locations,
//     path-inserted first), refuses metadata naming another resource
//     ([ErrResourceMismatch]), finds the issuer's RFC 8414 or OpenID
//     metadata, and falls back to the MCP 2025-03-26 rules for a server
//     without resource metadata.
//   - [Login] runs the authorization-code flow with PKCE S256 and the RFC
//     8707 resource parameter through a loopback redirect, for programs with
//     a user at hand. The client is a client ID metadata document where the
//     issuer supports one and one is configured, else a pre-registered
//     client, else dynamically registered (RFC 7591); it authenticates at
//     the token endpoint as registered: none, client_secret_basic or
//     client_secret_post. Scopes follow the MCP scope selection strategy:
//     the challenge's, else the resource's scopes_supported, else none, plus
//     offline_access when the issuer lists it.
//   - [Authorizer] is a client.Authorizer built on both: the client hands it
//     every 401 and 403 insufficient_scope, and it refreshes, authorizes, or
//     steps up to the union of granted and challenged scopes, never asking
//     again for scopes already refused ([ErrScopeRefused]) and at most
//     [DefaultMaxAuthorizations] times.
//
// Discovery, registration and WWW-Authenticate parsing are the go-sdk's
// oauthex package; PKCE, the code exchange and the refresh grant are
// golang.org/x/oauth2. This package adds what they leave to the caller:
// persistence, rotation safety, single flight and the loopback listener.
//
//	store := oauth.NewFileStore(path)
//	src := oauth.NewSource(store)
//	c, err := client.New(endpoint, client.WithTokenSource(src))
//
// or, to authorize on the first 401:
//
//	az, err := oauth.NewAuthorizer(oauth.LoginConfig{Endpoint: endpoint, OpenURL: openBrowser, Store: store})
//	c, err := client.New(endpoint, client.WithTokenSource(az))
package oauth

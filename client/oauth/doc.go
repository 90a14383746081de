// Package oauth gives the MCP client its OAuth 2.1 side, as the seed's
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
//     the RFC 9728 resource metadata and then the issuer's RFC 8414 metadata.
//   - [Login] runs dynamic client registration (RFC 7591) and the
//     authorization-code flow with PKCE S256 and the RFC 8707 resource
//     parameter through a loopback redirect, for programs with a user at hand.
//
// Discovery, registration and WWW-Authenticate parsing are the go-sdk's
// oauthex package; PKCE, the code exchange and the refresh grant are
// golang.org/x/oauth2. This package adds what they leave to the caller:
// persistence, rotation safety, single flight and the loopback listener.
//
//	store := oauth.NewFileStore(path)
//	src, err := oauth.NewSource(store)
//	c, err := client.New(endpoint, client.WithTokenSource(src))
package oauth

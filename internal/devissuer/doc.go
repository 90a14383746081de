// Package devissuer is a development OAuth 2.1 authorization server that
// behaves like Supabase Auth's OAuth server, so that the MCP server's OAuth
// mode, the conformance suite and the Go client's refresh logic can run on
// a machine with no Supabase project and no network.
//
// It is built on github.com/ory/fosite (authorization code with PKCE,
// refresh-token rotation and reuse detection, revocation) over an in-memory
// store, optionally backed by SQLite for clients and signing keys. What
// fosite does not offer is written here, small: RFC 8414 metadata, RFC 7591
// dynamic client registration, the RFC 8707 resource binding, Supabase's
// access-token claims (ES256 JWTs signed with go-jose), key rotation, and
// plain HTML sign-in and consent pages over configured dev users.
//
// # Layout (Supabase's)
//
// The issuer is BaseURL+"/auth/v1". Under it:
//
//	GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
//	GET  /.well-known/openid-configuration         the same document
//	GET  /.well-known/jwks.json                    ES256 public keys (current and recently rotated)
//	GET  /oauth/authorize                          code flow; PKCE S256 and resource required
//	POST /oauth/token                              authorization_code, refresh_token, client_credentials (Options.ServiceClients)
//	POST /oauth/revoke                             RFC 7009; a refresh token revokes its family
//	POST /oauth/clients/register, /oauth/register  RFC 7591 DCR
//	POST /admin/rotate-key                         DEV ONLY, with Options.DevAdmin
//
// and at the root: /.well-known/oauth-authorization-server/auth/v1 (RFC 8414
// §3.1 form), the sign-in page /auth and the consent page
// /.lovable/oauth/consent (the specification's paths; /auth/v1/signin and
// /auth/v1/oauth/consent are aliases).
//
// # Tokens
//
// Access tokens are ES256 JWTs with kid in the header and Supabase's claims
// (iss, sub, aud, exp, iat, email, phone, role, aal, amr, session_id,
// is_anonymous, app_metadata, user_metadata) plus client_id; aud is
// ["authenticated", resource]. They live AccessTokenTTL (one hour).
// Refresh tokens rotate on every use; presenting a rotated one again revokes
// every refresh token of that consent (the newest too), so the user must
// authorize again. Authorization codes are single-use and live 60 s;
// reusing one also revokes what it produced.
//
// # Clients
//
// A client registers by RFC 7591 DCR and gets a UUID client_id, or names
// itself by the https URL of its client ID metadata document
// (draft-ietf-oauth-client-id-metadata-document), which MCP 2026-07-28
// prefers to DCR: the issuer fetches the document (at most 5 KiB, within
// 5 s, no redirects, public addresses only), checks that its client_id is
// its URL and that it claims no secret, and treats it as a public client
// with the document's redirect URIs, keeping it a minute.
//
// # Redirect URIs
//
// Registered redirect URIs must be https, a private-use scheme, or http on
// a loopback host, and are matched exactly, except that for http loopback
// URIs (127.0.0.1, [::1] and localhost) the port may differ, as RFC 8252
// §7.3 lets native clients pick an ephemeral port. The token request must
// repeat the authorize request's redirect_uri exactly.
//
// # Persistence
//
// With Options.DBPath, clients, signing keys and the HMAC secret live in
// SQLite (modernc.org/sqlite, pure Go) and survive a restart; codes,
// refresh tokens and browser sessions are in memory only, so a restart
// forces clients to authorize again (their client_id stays valid).
//
// # Dev-only shortcuts
//
// DEV ONLY — never expose an issuer started with these:
// Options.AutoApproveUser approves every authorize request as that user;
// Options.DevAutoApprove honours ?dev_auto_approve=<email> or the header
// X-Dev-Auto-Approve: <email> on /oauth/authorize, so tests get
// redirect_uri?code=..&state=.. without a browser; Options.DevAdmin enables
// the unauthenticated key-rotation endpoint; Options.DevClientMetadataLoopback
// accepts client ID metadata documents served over http from loopback, as a
// test serves them. The dev-issuer command
// (tools/dev-issuer) refuses to start with any of them on an address other
// than loopback.
//
// # Example
//
//	iss, err := devissuer.New(devissuer.Options{
//		BaseURL:        "http://127.0.0.1:9999",
//		Resources:      []string{"http://localhost:8080/mcp"},
//		DevAutoApprove: true,
//	})
//	if err != nil { ... }
//	defer iss.Close()
//	http.ListenAndServe("127.0.0.1:9999", iss.Handler())
//
// Tests that need a token without the flow call [Issuer.MintAccessToken];
// the devissuertest package starts an issuer on an httptest server.
package devissuer

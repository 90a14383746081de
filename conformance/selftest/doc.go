// Package selftest proves that the conformance suite catches faults. It
// builds the suite into one binary and the real server
// (server/cmd/trident-mcp; a build failure is a test failure), starts the
// server twice — in public mode, and in OAuth mode against an in-process dev
// issuer (internal/devissuer/devissuertest, the code behind tools/dev-issuer)
// — and runs the suite:
//
//   - against each server itself and through an identity proxy: all must
//     pass, which shows the proxy is transparent; in OAuth mode the suite
//     obtains its own token through the issuer's flow;
//   - through each broken variant of internal/brokenserver (the server plus
//     one deliberate defect): each must fail, and fail in a spec that names
//     the defect's area, so a variant cannot "pass" by breaking everything.
//     The OAuth variants (a 401 without resource_metadata or without -32001,
//     signatures, exp or query tokens unchecked) run against the server in
//     OAuth mode, with a token from the issuer's flow and an expired one the
//     issuer signed.
package selftest

// Package selftest proves that the conformance suite catches faults. It
// builds the suite into one binary, starts the real server (or, until
// server/cmd/trident-mcp builds, the test double in internal/brokenserver/fake),
// and runs the suite:
//
//   - against the server itself and through an identity proxy: both must pass,
//     which shows the proxy is transparent;
//   - through each broken variant of internal/brokenserver (the server plus
//     one deliberate defect): each must fail, and fail in a spec that names
//     the defect's area, so a variant cannot "pass" by breaking everything.
//
// OAuth variants run against a server in OAuth mode whose tokens the test
// mints itself.
package selftest

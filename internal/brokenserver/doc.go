// Package brokenserver puts exactly one deliberate defect in front of a
// working MCP server: a reverse proxy that rewrites a status, a JSON field,
// the order of SSE frames, a header, or the request itself. Each [Variant] is
// therefore "the real server plus one fault", and the conformance self-test
// (conformance/selftest) asserts that the suite fails on every variant and
// passes through the identity proxy, which shows the failures come from the
// fault and not from the proxy.
package brokenserver

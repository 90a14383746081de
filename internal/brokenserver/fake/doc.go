// Package fake is a small, contract-faithful stand-in for the Trident MCP
// server, used to develop and self-test the conformance suite when the real
// server (server/cmd/trident-mcp) is not built. It replays the contract
// samples exactly, validates arguments with Zod v3 wordings, checks capacity
// before geocoding, streams progress over SSE and, optionally, verifies
// ES256 bearer tokens. Its geocoder knows a handful of places and its tariff
// is a toy fitted to the two priced samples: it is a test double, not a
// second implementation, and nothing outside tests may use it.
package fake

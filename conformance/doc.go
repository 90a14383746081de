// Package conformance is a black-box test suite for any server that implements
// the Trident Taxis MCP contracts in contracts/. It talks to the server only over
// HTTP, so QA can point it at ours or at anyone's implementation and trust the
// verdict.
//
// The specs are generated from the contracts rather than written out by hand:
// every sample pair under contracts/trident/samples is replayed and compared field by
// field, every row of contracts/errors.json is triggered, every constraint of
// every input schema is broken once, tools/list is compared with tools.json and
// the schema files, and every successful result is validated against its output
// schema. A seeded property-based area sends generated valid and invalid
// argument sets. A fare oracle (oracle.go), the suite's own reading of the
// contract's tariff, judges every quote the suite sees: fare, band, airport
// fee and applied rules for the server's own distance.
//
// The non-test files of this package are the suite's plumbing (configuration,
// a raw JSON-RPC-over-HTTP client, a strict SSE parser, an RFC 7235 challenge
// parser, argument generators, OAuth token helpers); the specs live in the
// *_test.go files. Run it with
//
//	go test ./conformance -count=1 -args --endpoint=http://127.0.0.1:8080/mcp
//
// or build one binary with `ginkgo build ./conformance` and run
// `./conformance.test --endpoint=...` anywhere. README.md lists every option
// and label.
//
// The suite never imports server/: it may only know what the contracts say.
package conformance

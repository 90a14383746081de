// Package contracts holds the project's single source of truth, embedded so that
// every binary carries it and needs no files beside it: the OpenAPI document of
// the HTTP surface and the shared rows of the error catalogue at the top, and
// one folder per MCP endpoint ([Trident] is trident/) with its tool manifest,
// the JSON Schemas (Draft 2020-12) of each tool's input and structured output,
// its sample request/response pairs, its own error rows and its data (the fare
// tariff).
//
// Generated code under gen/ is derived from these files by `make generate`;
// the server reads them at start-up so that tools/list serves the schemas byte
// for byte as they are written here.
//
// An endpoint's folder is read through [Open] (or [Trident]):
//
//	m, err := contracts.Trident.Manifest()         // tools.json
//	in, err := m.Tools[0].Input()                   // schemas/<tool>.input.json
//	cat, err := contracts.Trident.Errors()          // shared rows, then trident/errors.json
//	b, err := contracts.Trident.ReadFile("samples/index.json")
//
// A new endpoint's folder is added to the go:embed line below.
package contracts

import "embed"

// FS holds every contract file, with paths relative to this directory (for
// example "errors.json" or "trident/schemas/estimate_fare.input.json").
//
//go:embed errors.json errors.schema.json openapi.yaml trident relay
var FS embed.FS

// Package contracts holds the project's single source of truth, embedded so that
// every binary carries it and needs no files beside it: the OpenAPI document of
// the HTTP surface and the shared rows of the error catalogue at the top, and
// one folder per MCP endpoint (trident/, relay/) with its tool manifest, the
// JSON Schemas (Draft 2020-12) of each tool's input and structured output, its
// sample request/response pairs, its own error rows and its data (the fare
// tariff). Each endpoint's folder is a Go package of its own that embeds only
// its files, so the shared layer, which imports this package, carries no
// endpoint's contracts; package endpoints opens a folder by name.
//
// Generated code under gen/ is derived from these files by `make generate`;
// the server reads them at start-up so that tools/list serves the schemas byte
// for byte as they are written here.
//
// An endpoint's folder is read through its [Set]:
//
//	set := tridentcontracts.Set                   // package contracts/trident
//	m, err := set.Manifest()                      // tools.json
//	in, err := m.Tools[0].Input()                 // schemas/<tool>.input.json
//	cat, err := set.Errors()                      // shared rows, then trident/errors.json
//	b, err := set.ReadFile("samples/index.json")
//
// A new endpoint's folder gets an embed.go of its own, like trident/'s, and
// a line in package endpoints.
package contracts

import "embed"

// FS holds the shared contract files, with paths relative to this directory
// ("errors.json", "errors.schema.json", "openapi.yaml").
//
//go:embed errors.json errors.schema.json openapi.yaml
var FS embed.FS

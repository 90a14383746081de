// Package contracts holds the project's single source of truth, embedded so that
// every binary carries it and needs no files beside it: the JSON Schemas (Draft
// 2020-12) of each tool's input and structured output, the tool manifest, the
// OpenAPI document of the HTTP surface, the sample request/response pairs, the
// error catalogue and the fare tariff.
//
// Generated code under gen/ is derived from these files by `make generate`;
// the server reads them at start-up so that tools/list serves the schemas byte
// for byte as they are written here.
package contracts

import "embed"

// FS holds every contract file, with paths relative to this directory
// (for example "schemas/estimate_fare.input.json" or "samples/index.json").
//
//go:embed tools.json errors.json errors.schema.json schemas samples tariff openapi.yaml relay
var FS embed.FS

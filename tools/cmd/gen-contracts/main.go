// Command gen-contracts derives code from contracts/. For one endpoint's
// contract folder (-endpoint trident -out gen/trident): Go types for every
// tool's input and output (mcptypes/), TypeScript declarations
// (ts/mcp-tools.d.ts) and the schema bundle index (schemabundle/). For the
// whole error catalogue (-errcodes -endpoints trident,relay -out
// gen/errcodes): the shared rows and every endpoint's own as Go constants,
// one code type for the whole server.
//
// It is a small hand-written generator rather than a general JSON Schema tool
// because the contracts use a narrow subset of Draft 2020-12 and the output must
// be exact (named enum types, nullable-but-required fields, schema order); it
// fails on any keyword it does not understand instead of dropping it.
//
// Usage:
//
//	go run ./tools/cmd/gen-contracts -errcodes -endpoints trident -out gen/errcodes
//	go run ./tools/cmd/gen-contracts -endpoint trident -out gen/trident
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/contracts/endpoints"
)

func main() {
	out := flag.String("out", "", "directory to write generated files into (gen/<endpoint>, or gen/errcodes with -errcodes)")
	endpoint := flag.String("endpoint", "", "the endpoint's contract folder below contracts/, e.g. trident")
	errcodes := flag.Bool("errcodes", false, "write the error catalogue of -endpoints instead of one endpoint's files")
	names := flag.String("endpoints", "", "with -errcodes: the comma-separated contract folders whose tool rows join the shared ones")
	flag.Parse()
	var err error
	switch {
	case *out == "":
		err = fmt.Errorf("-out is required")
	case *errcodes:
		err = runErrcodes(strings.Split(*names, ","), *out)
	case *endpoint != "":
		var set *contracts.Set
		if set, err = endpoints.Open(*endpoint); err == nil {
			err = run(set, *out)
		}
	default:
		err = fmt.Errorf("give -endpoint NAME or -errcodes -endpoints NAMES")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-contracts:", err)
		os.Exit(1)
	}
}

// runErrcodes writes errcodes.gen.go: the shared rows, then each folder's.
func runErrcodes(folders []string, out string) error {
	var sets []*contracts.Set
	for _, f := range folders {
		if f = strings.TrimSpace(f); f != "" {
			set, err := endpoints.Open(f)
			if err != nil {
				return err
			}
			sets = append(sets, set)
		}
	}
	errs, err := contracts.Catalogue(sets...)
	if err != nil {
		return err
	}
	return write(out, map[string][]byte{"errcodes.gen.go": genErrcodes(errs)})
}

// toolSchemas is one tool with its parsed schemas.
type toolSchemas struct {
	contracts.Tool
	In, Out       *schema
	InRaw, OutRaw json.RawMessage
}

func run(set *contracts.Set, out string) error {
	m, err := set.Manifest()
	if err != nil {
		return err
	}
	var tools []toolSchemas
	for _, t := range m.Tools {
		ts := toolSchemas{Tool: t}
		if ts.InRaw, err = t.Input(); err != nil {
			return err
		}
		if ts.OutRaw, err = t.Output(); err != nil {
			return err
		}
		for _, x := range []struct {
			raw  json.RawMessage
			dst  **schema
			name string
		}{{ts.InRaw, &ts.In, t.InputSchema}, {ts.OutRaw, &ts.Out, t.OutputSchema}} {
			if err := checkKeywords(x.raw, x.name); err != nil {
				return err
			}
			var s schema
			if err := json.Unmarshal(x.raw, &s); err != nil {
				return fmt.Errorf("%s: %w", x.name, err)
			}
			if s.Title == "" {
				return fmt.Errorf("%s: the root schema needs a title (it names the Go type)", x.name)
			}
			*x.dst = &s
		}
		tools = append(tools, ts)
	}
	errs, err := set.Errors()
	if err != nil {
		return err
	}

	goTypes, err := genGoTypes(m, tools)
	if err != nil {
		return err
	}
	encoders, err := genEncoders(goTypes)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"mcptypes/types.gen.go":  goTypes,
		"mcptypes/encode.gen.go": encoders,
		"ts/mcp-tools.d.ts":      genDTS(m, tools, errs),
	}
	idx, err := genBundleIndex(m, tools)
	if err != nil {
		return err
	}
	files["schemabundle/index.json"] = idx
	files["schemabundle/bundle.gen.go"] = genBundleGo(set.Dir(), tools)
	files["ts/embed.gen.go"] = []byte(header("gen-contracts") + `// Package ts embeds the TypeScript declarations of the tools so the server can
// serve them at /mcp-schemas/mcp-tools.d.ts.
package ts

import _ "embed"

// MCPToolsDTS is mcp-tools.d.ts.
//
//go:embed mcp-tools.d.ts
var MCPToolsDTS []byte
`)
	return write(out, files)
}

// write writes files (names relative to out), gofmt-ing the Go ones.
func write(out string, files map[string][]byte) error {
	for name, b := range files {
		if filepath.Ext(name) == ".go" {
			f, err := format.Source(b)
			if err != nil {
				return fmt.Errorf("%s: gofmt: %w\n%s", name, err, b)
			}
			b = f
		}
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func header(gen string) string {
	return "// Code generated by " + gen + " from contracts/. DO NOT EDIT.\n\n"
}

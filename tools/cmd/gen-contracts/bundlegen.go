package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// genBundleIndex writes the manifest of every tool schema with $ref pointers
// relative to /mcp-schemas/, as the specification's "Bundle index" describes.
func genBundleIndex(m *contracts.Manifest, tools []toolSchemas) ([]byte, error) {
	type entry struct {
		Name        string            `json:"name"`
		Title       string            `json:"title"`
		Description string            `json:"description"`
		Input       map[string]string `json:"input"`
		Output      map[string]string `json:"output"`
	}
	idx := struct {
		Description     string  `json:"description"`
		Server          string  `json:"server"`
		Version         string  `json:"version"`
		ProtocolVersion string  `json:"protocolVersion"`
		Dialect         string  `json:"dialect"`
		Types           string  `json:"types"`
		Tools           []entry `json:"tools"`
	}{
		Description:     "JSON Schema (Draft 2020-12) files for every tool's input and structured output. Paths are relative to this index.",
		Server:          m.Server.Name,
		Version:         m.Server.Version,
		ProtocolVersion: m.Server.ProtocolVersion,
		Dialect:         "https://json-schema.org/draft/2020-12/schema",
		Types:           "mcp-tools.d.ts",
	}
	for _, t := range tools {
		idx.Tools = append(idx.Tools, entry{
			Name: t.Name, Title: t.Title, Description: t.Description,
			Input:  map[string]string{"$ref": path.Base(t.InputSchema)},
			Output: map[string]string{"$ref": path.Base(t.OutputSchema)},
		})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(idx); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func genBundleGo(dir string, tools []toolSchemas) []byte {
	var b bytes.Buffer
	b.WriteString(header("gen-contracts"))
	fmt.Fprintf(&b, `// Package schemabundle embeds the schema bundle index of the endpoint whose
// contracts are in contracts/%[1]s. The schema files it points at are
// served from there, byte for byte.
package schemabundle

import _ "embed"

// Index is index.json.
//
//go:embed index.json
var Index []byte

// Files maps each file name the index points at to its path in the
// endpoint's contract folder (contracts/%[1]s).
var Files = map[string]string{
`, dir)
	for _, t := range tools {
		fmt.Fprintf(&b, "\t%q: %q,\n", path.Base(t.InputSchema), t.InputSchema)
		fmt.Fprintf(&b, "\t%q: %q,\n", path.Base(t.OutputSchema), t.OutputSchema)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

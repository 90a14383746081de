package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tridenttaxis/trident-mcp/client"
)

// printTools writes the tools/list answer: one line per tool; with verbose,
// each tool's description, hints and input and output schemas as the
// server serves them; with asJSON, the tools/list result itself, for jq
// and scripts.
func printTools(w io.Writer, tools []client.Tool, verbose, asJSON bool) {
	if asJSON {
		printJSON(w, map[string]any{"tools": tools})
		return
	}
	for i, t := range tools {
		if !verbose {
			fmt.Fprintf(w, "%-18s %s\n", t.Name, firstNonEmpty(t.Title, t.Description))
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := t.Name
		if t.Title != "" {
			head += " — " + t.Title
		}
		if hints := hintWords(t.Annotations); hints != "" {
			head += " (" + hints + ")"
		}
		fmt.Fprintln(w, head)
		if t.Description != "" {
			fmt.Fprintln(w, indent(t.Description, "  "))
		}
		for _, s := range []struct {
			what   string
			schema json.RawMessage
		}{{"input schema", t.InputSchema}, {"output schema", t.OutputSchema}} {
			if len(s.schema) == 0 {
				fmt.Fprintf(w, "  %s: none\n", s.what)
				continue
			}
			var buf bytes.Buffer
			if json.Indent(&buf, s.schema, "", "  ") != nil {
				buf.Reset()
				buf.Write(s.schema)
			}
			fmt.Fprintf(w, "  %s:\n%s\n", s.what, indent(buf.String(), "    "))
		}
	}
}

// hintWords says in words the annotations a person choosing a tool cares
// about: whether it only reads, and whether it may destroy.
func hintWords(raw json.RawMessage) string {
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	var words []string
	if a.ReadOnly != nil && *a.ReadOnly {
		words = append(words, "read-only")
	} else if a.Destructive != nil && !*a.Destructive {
		words = append(words, "not destructive")
	}
	if a.Idempotent != nil && *a.Idempotent {
		words = append(words, "idempotent")
	}
	return strings.Join(words, ", ")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

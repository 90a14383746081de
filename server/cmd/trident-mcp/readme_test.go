package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's configuration tables from the table of settings (make generate)")

// readmePath is the repository's README, from this package's directory.
var readmePath = filepath.Join("..", "..", "..", "README.md")

// TestREADMESettings holds the README's configuration tables to the table
// of settings: each group's rows between its markers
// (<!-- settings:relay --> ... <!-- /settings:relay -->) are what
// writeSettingsMarkdown writes. With -update (make generate) it rewrites
// them; make check-generated then fails on a README left stale.
func TestREADMESettings(t *testing.T) {
	old, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(old)
	for _, g := range groups {
		begin, end := "<!-- settings:"+string(g.id)+" -->\n", "<!-- /settings:"+string(g.id)+" -->"
		i, j := strings.Index(text, begin), strings.Index(text, end)
		if i < 0 || j < i {
			t.Fatalf("README.md lacks the markers %q and %q around the %s settings", strings.TrimSpace(begin), end, g.id)
		}
		var table bytes.Buffer
		writeSettingsMarkdown(&table, g.id)
		text = text[:i+len(begin)] + table.String() + text[j:]
	}
	if *update {
		if text != string(old) {
			if err := os.WriteFile(readmePath, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if text != string(old) {
		t.Error("README.md's configuration tables differ from the table of settings (server/cmd/trident-mcp/settings.go): run make generate")
	}
}

// TestEverySettingOnce: each setting is in the table once, with a group
// -h and the README show and a line of help.
func TestEverySettingOnce(t *testing.T) {
	seen := map[string]bool{}
	known := map[group]bool{}
	for _, g := range groups {
		known[g.id] = true
	}
	for _, d := range settings {
		if seen[d.env] {
			t.Errorf("%s is in the table twice", d.env)
		}
		seen[d.env] = true
		if !known[d.group] || d.help == "" || strings.Contains(d.help, "\n") || d.kind == "" {
			t.Errorf("%s: group %q, kind %q, help %q: want a known group, a kind and one line of help", d.env, d.group, d.kind, d.help)
		}
		if d.def != "" {
			if err := d.kind.check(d.def); err != nil {
				t.Errorf("%s: default %q is no %s: %v", d.env, d.def, d.kind, err)
			}
		}
	}
}

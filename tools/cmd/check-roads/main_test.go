package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShippedFilePasses(t *testing.T) {
	var out strings.Builder
	if err := run(&out, filepath.Join("..", "..", "..", defaultFile), true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{": ok", "ferries", "gateways: [", "Western Ferries", "NOT routed (foot passengers only)", "A82"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBrokenFileFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "roads.json")
	broken := `{"nodes": [{"id": "a", "name": "A", "kind": "town", "lat": 56.0, "lon": -4.7},
		{"id": "b", "name": "B", "kind": "town", "lat": 56.0, "lon": -4.6}],
		"roads": [{"road": "A1", "from": "a", "to": "b", "miles": 2, "mph": 30}], "ferries": []}`
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(&strings.Builder{}, file, false)
	if err == nil || !strings.Contains(err.Error(), "shorter than the straight line") {
		t.Errorf("err = %v", err)
	}
}

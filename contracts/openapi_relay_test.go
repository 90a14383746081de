package contracts_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
)

// relayPaths are Relay's routes the OpenAPI document must describe: its MCP
// endpoint, its path-suffixed metadata and its documents.
var relayPaths = map[string]string{
	"/mcp/rides": "post", "/.well-known/oauth-protected-resource/mcp/rides": "get", "/mcp-docs/rides": "get",
	"/mcp-schemas/rides/index.json": "get", "/mcp-schemas/rides/{schemaFile}": "get", "/mcp-schemas/rides/mcp-tools.d.ts": "get",
	"/samples/rides/index.json": "get", "/samples/rides/{sampleFile}": "get", "/samples/rides/errors/{sampleFile}": "get",
}

// Relay's HTTP surface is in the contract, with the same 401/406 answers as
// /mcp, and none of its operations is generated into Trident's strict
// server (cfg.yaml includes operations by id).
func TestOpenAPIRelaySurface(t *testing.T) {
	doc := oaLoad(t)
	paths := doc["paths"].(map[string]any)
	cfg, err := os.ReadFile(filepath.Join("..", "gen", "trident", "api", "cfg.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for p, method := range relayPaths {
		op, ok := oaAt(t, paths, p, method).(map[string]any)
		if !ok {
			t.Errorf("openapi.yaml lacks %s %s", strings.ToUpper(method), p)
			continue
		}
		id, _ := op["operationId"].(string)
		if id == "" || regexp.MustCompile(`(?m)^\s*-\s*`+regexp.QuoteMeta(id)+`\s*$`).Match(cfg) {
			t.Errorf("%s: operationId %q is missing or generated into gen/trident/api", p, id)
		}
	}
	rides := oaAt(t, paths, "/mcp/rides", "post", "responses").(map[string]any)
	for _, code := range []string{"200", "401", "406", "413"} {
		if rides[code] == nil {
			t.Errorf("POST /mcp/rides lacks its %s answer", code)
		}
	}
}

// Relay's documents validate against the components the contract names for
// them, as Trident's do.
func TestOpenAPIRelayDocuments(t *testing.T) {
	o := newOACompiler(t)
	check := func(t *testing.T, component string, b []byte) {
		t.Helper()
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := o.schema("/components/schemas/" + component).Validate(v); err != nil {
			t.Errorf("fails %s: %v", component, err)
		}
	}
	read := func(t *testing.T, name string) []byte {
		t.Helper()
		b, err := relaycontracts.Set.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Run("samples/index.json", func(t *testing.T) { check(t, "RidesSampleIndex", read(t, "samples/index.json")) })
	t.Run("sample files", func(t *testing.T) {
		err := fs.WalkDir(relaycontracts.Set.FS(), "samples", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || p == "samples/index.json" {
				return err
			}
			check(t, "SampleFile", read(t, p))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("schema files", func(t *testing.T) {
		entries, err := fs.ReadDir(relaycontracts.Set.FS(), "schemas")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			check(t, "JsonSchemaDocument", read(t, "schemas/"+e.Name()))
		}
	})
	t.Run("gen/relay/schemabundle/index.json", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join("..", "gen", "relay", "schemabundle", "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		check(t, "SchemaIndex", b)
	})
}

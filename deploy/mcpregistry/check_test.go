package mcpregistry_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/deploy"
	"github.com/tridenttaxis/trident-mcp/deploy/mcpregistry"
)

func TestServerJSONPassesTheRegistryRules(t *testing.T) {
	if err := mcpregistry.Check(deploy.ServerJSON); err != nil {
		t.Fatal(err)
	}
}

// TestServerJSONDescribesThisServer holds the entry to the repository: the
// version the server reports in initialize, remotes at the two MCP
// endpoints on the host the name's namespace is the reverse of, and the
// image tagged with that version.
func TestServerJSONDescribesThisServer(t *testing.T) {
	s, err := mcpregistry.Parse(deploy.ServerJSON)
	if err != nil {
		t.Fatal(err)
	}
	var tools struct {
		Server struct{ Version string } `json:"server"`
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "contracts", "trident", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	if s.Version != tools.Server.Version {
		t.Errorf("server.json version %q, contracts/trident/tools.json server.version %q", s.Version, tools.Server.Version)
	}
	namespace, _, _ := strings.Cut(s.Name, "/")
	labels := strings.Split(namespace, ".")
	slices.Reverse(labels)
	host := strings.Join(labels, ".")
	var paths []string
	for _, r := range s.Remotes {
		u, err := url.Parse(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		if u.Host != host || r.Type != "streamable-http" {
			t.Errorf("remote %s %s: want streamable-http on %s (the namespace %s reversed)", r.Type, r.URL, host, namespace)
		}
		paths = append(paths, u.Path)
	}
	if want := []string{"/mcp", "/mcp/rides"}; !slices.Equal(paths, want) {
		t.Errorf("remote paths %v, want %v", paths, want)
	}
	if img := s.OCIImage(); !strings.HasSuffix(img, ":"+s.Version) {
		t.Errorf("OCI package %q is not tagged with version %s", img, s.Version)
	}
}

// TestCheckRefuses changes one field of the shipped entry at a time and
// expects the rule that field breaks to be named.
func TestCheckRefuses(t *testing.T) {
	long := strings.Repeat("x", 101)
	cases := []struct {
		name, path string
		value      any
		want       string
	}{
		{"two slashes", "name", "online.tridenttaxis/trident/mcp", "name"},
		{"no namespace", "name", "trident-mcp", "name"},
		{"namespace ends with a dot", "name", "online.tridenttaxis./trident-mcp", "letter or digit"},
		{"name too long", "name", "a.b/" + strings.Repeat("n", 200), "maxLength"},
		{"description too long", "description", long, "description"},
		{"empty description", "description", "", "description"},
		{"title too long", "title", long, "title"},
		{"version latest", "version", "latest", "reserved"},
		{"version range", "version", "^0.1.0", "range"},
		{"version wildcard", "version", "0.x", "range"},
		{"no version", "version", nil, "version"},
		{"repository elsewhere", "repository.url", "https://example.com/trident-mcp", "repository"},
		{"repository without source", "repository.source", nil, "source"},
		{"websocket remote", "remotes.0.type", "websocket", "remotes/0/type"},
		{"plain http remote", "remotes.0.url", "http://tridenttaxis.online/mcp", "https"},
		{"localhost remote", "remotes.1.url", "https://localhost/mcp/rides", "localhost"},
		{"remote without url", "remotes.1.url", nil, "url"},
		{"package without transport", "packages.0.transport", nil, "transport"},
		{"http package without url", "packages.0.transport.url", nil, "url"},
		{"package version latest", "packages.0.version", "latest", "latest"},
		{"image from another registry", "packages.0.identifier", "registry.example.com/tridenttaxis/trident-mcp:0.1.0", "not one the MCP Registry accepts"},
		{"image without registry", "packages.0.identifier", "tridenttaxis/trident-mcp:0.1.0", "registry named"},
		{"image without tag", "packages.0.identifier", "ghcr.io/tridenttaxis/trident-mcp", "tag"},
		{"image digest malformed", "packages.0.identifier", "ghcr.io/tridenttaxis/trident-mcp@sha256:abc", "digest"},
		{"image tagged latest", "packages.0.identifier", "ghcr.io/tridenttaxis/trident-mcp:latest", "tag"},
		{"named argument without name", "packages.0.runtimeArguments.0.name", nil, "name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := edit(t, c.path, c.value)
			err := mcpregistry.Check(doc)
			if err == nil {
				t.Fatalf("accepted %s = %v", c.path, c.value)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error does not mention %q:\n%v", c.want, err)
			}
		})
	}
}

// edit returns the shipped entry with the value at a dotted path replaced,
// or removed for nil.
func edit(t *testing.T, path string, value any) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(deploy.ServerJSON, &doc); err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(path, ".")
	node := doc
	for _, k := range keys[:len(keys)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[k]
		case []any:
			node = n[index(t, k)]
		}
	}
	last := keys[len(keys)-1]
	switch n := node.(type) {
	case map[string]any:
		if value == nil {
			delete(n, last)
		} else {
			n[last] = value
		}
	case []any:
		n[index(t, last)] = value
	default:
		t.Fatalf("%s: not an object or array", path)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func index(t *testing.T, k string) int {
	t.Helper()
	var i int
	if err := json.Unmarshal([]byte(k), &i); err != nil {
		t.Fatalf("index %q: %v", k, err)
	}
	return i
}

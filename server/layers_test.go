package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tridenttaxis/trident-mcp/"

// sharedPackages are the layer every endpoint stands on: the host, the
// front door and what it is made of, and their test kits. None may know an
// endpoint.
var sharedPackages = []string{
	"server", "server/mcphttp", "server/auth", "server/fastcall", "server/limits",
	"server/metrics", "server/telemetry", "server/docspage", "server/draft2020", "server/geodesy",
	"server/mcphttp/mcphttptest", "server/servertest",
}

// endpointCode are the import-path prefixes that belong to one endpoint:
// its packages, its contract folder and the code generated from it, and
// its typed client.
var endpointCode = []string{
	"server/trident", "server/relay", "contracts/trident", "contracts/relay", "contracts/endpoints",
	"gen/trident", "gen/relay", "client", "server/conformancefixtures",
}

// TestSharedLayerKnowsNoEndpoint holds the layering with the build's own
// view of it (go list -deps, test files excluded): a shared package that
// imports an endpoint's code, directly or through another package, fails
// with the chain's end named. The one error catalogue (gen/errcodes) is
// shared by design.
func TestSharedLayerKnowsNoEndpoint(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	for _, pkg := range sharedPackages {
		out, err := exec.Command("go", "list", "-deps", module+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(dep, module)
			if !ok {
				continue
			}
			for _, bad := range endpointCode {
				if rel == bad || strings.HasPrefix(rel, bad+"/") {
					t.Errorf("%s depends on %s, which belongs to an endpoint", pkg, rel)
				}
			}
		}
	}
}

// environmentReaders are the calls that read the process environment.
var environmentReaders = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
	"syscall": {"Getenv", "Environ"},
}

// TestOnlyTheCommandReadsTheEnvironment: every setting is read once, by
// the binary's table of settings (server/cmd/trident-mcp); the packages it
// configures take typed options. A package under server/ that calls
// os.Getenv (or its kin), or takes the environment as a function (a
// parameter or a declaration named getenv, lookupEnv, ...FromEnv), fails
// here. Test files may read it (a test's own switches).
func TestOnlyTheCommandReadsTheEnvironment(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "cmd" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := n.X.(*ast.Ident); ok && slices.Contains(environmentReaders[pkg.Name], n.Sel.Name) {
					t.Errorf("server/%s reads the environment (%s.%s): read the setting in server/cmd/trident-mcp and pass it as an option", path, pkg.Name, n.Sel.Name)
				}
			case *ast.Ident:
				if name := strings.ToLower(n.Name); name == "getenv" || name == "lookupenv" || strings.HasSuffix(name, "fromenv") {
					t.Errorf("server/%s takes the environment through %s: read the setting in server/cmd/trident-mcp and pass it as an option", path, n.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

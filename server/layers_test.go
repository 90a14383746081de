package server_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tridenttaxis/trident-mcp/"

// sharedPackages are the layer every endpoint stands on: the host, the
// front door and what it is made of, and their test kits. None may know an
// endpoint.
var sharedPackages = []string{
	"server", "server/mcphttp", "server/auth", "server/fastcall", "server/limits",
	"server/metrics", "server/docspage", "server/draft2020",
	"server/mcphttp/mcphttptest", "server/servertest",
}

// endpointCode are the import-path prefixes that belong to one endpoint:
// its packages, its contract folder and the code generated from it, and
// its typed client.
var endpointCode = []string{
	"server/trident", "server/relay", "contracts/trident", "contracts/relay", "contracts/endpoints",
	"gen/trident", "gen/relay", "client",
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

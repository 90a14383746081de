// Package browser drives /mcp-docs in a real browser: headless Chromium
// (Debian's chromium package) under playwright-core from npm, against the
// real server binary in public mode and in OAuth mode beside the dev
// issuer. docs.mjs is the browser side; this file starts what it talks to.
//
// It runs under `make test-browser` (part of `make test`), which sets
// TRIDENT_BROWSER_TEST=1; a plain `go test ./...` skips it, because it
// needs the browser and the pinned Node tooling.
package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// example is one sample pair the browser replays through the console.
type example struct {
	Name     string          `json:"name"`
	Tool     string          `json:"tool"`
	Response json.RawMessage `json:"response"`
}

func TestDocsPageInBrowser(t *testing.T) {
	if os.Getenv("TRIDENT_BROWSER_TEST") != "1" {
		t.Skip("the browser test runs under `make test-browser` (TRIDENT_BROWSER_TEST=1)")
	}
	root := testserver.ModuleRoot(t)
	node := filepath.Join(root, "node_modules", ".bin", "node")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	for _, f := range []string{node, chromium, filepath.Join(root, "node_modules", "playwright-core", "package.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the browser test needs %s (make npm; apt-get install chromium): %v", f, err)
		}
	}

	bin := testserver.Build(t)
	public := testserver.Start(t, bin, testserver.FreeAddr(t))
	iss := devissuertest.New(t, devissuer.Options{})
	oauthAddr := testserver.FreeAddr(t)
	oauth := testserver.Start(t, bin, oauthAddr, "MCP_REQUIRE_OAUTH=true", "OAUTH_ISSUER="+iss.IssuerURL())
	token := iss.Token(t, iss.Config(t), oauth+"/mcp", devissuer.DefaultUser.Email)

	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	var examples []example
	for _, s := range samples {
		var req struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(s.Request, &req) != nil || req.Method != "tools/call" || s.Mode != "" || s.HTTP.Status != 200 ||
			!strings.HasPrefix(s.Name, req.Params.Name+".") {
			continue // the console replays the pairs each tool offers, in public mode
		}
		examples = append(examples, example{Name: s.Name, Tool: req.Params.Name, Response: s.Response})
	}
	if len(examples) < 3 {
		t.Fatalf("only %d replayable samples", len(examples))
	}
	work := t.TempDir()
	shots := os.Getenv("DOCS_SCREENSHOT_DIR") // keep the screenshots to look at
	if shots == "" {
		shots = work
	}
	exFile := filepath.Join(work, "examples.json")
	b, _ := json.Marshal(examples)
	if err := os.WriteFile(exFile, b, 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", filepath.Join(root, "e2e", "browser", "docs.test.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"DOCS_PUBLIC_URL="+public, "DOCS_OAUTH_URL="+oauth, "DOCS_TOKEN="+token.AccessToken,
		"DOCS_EXAMPLES="+exFile, "DOCS_SCREENSHOT_DIR="+shots, "DOCS_USER_DATA_DIR="+filepath.Join(work, "profile"),
		"CHROMIUM="+chromium)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("docs.test.mjs:\n%s", out.Bytes())
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
	for _, name := range []string{"public-1280.png", "oauth-1280.png"} {
		if st, err := os.Stat(filepath.Join(shots, name)); err != nil || st.Size() == 0 {
			t.Errorf("screenshot %s missing: %v", name, err)
		}
	}
}

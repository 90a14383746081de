// Package gobuild builds the server binary that the image ships, from the
// repository root above this module, the same way for the image command and
// the tests.
package gobuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ServerPackage is the server's main package, relative to the repository root.
const ServerPackage = "./server/cmd/trident-mcp"

// RepoRoot is the directory above the deploy module: the go command run in
// any directory of this module names deploy/go.mod as GOMOD.
func RepoRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if filepath.Base(filepath.Dir(mod)) != "deploy" {
		return "", fmt.Errorf("go env GOMOD is %q: run inside the deploy module", mod)
	}
	return filepath.Dir(filepath.Dir(mod)), nil
}

// Server builds the server for linux/goarch into out: statically linked
// (CGO_ENABLED=0; its SQLite driver, modernc.org/sqlite, is pure Go), with
// paths trimmed and symbols stripped, so that the same source gives the same
// bytes and the image stays small.
func Server(ctx context.Context, root, goarch, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ServerPackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s (GOARCH=%s): %w\n%s", ServerPackage, goarch, err, b)
	}
	return nil
}

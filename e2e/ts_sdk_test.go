package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestTypeScriptSDK runs e2e/ts/oauth-flow.mjs: the official TypeScript
// SDK's client (@modelcontextprotocol/sdk, pinned in package.json) with
// its own OAuth machinery, against the dev issuer and the server. It must
// authorize once (PKCE S256 and the resource parameter in the request),
// get the seed's estimate_fare result, and recover from a 401 by refreshing.
//
// It needs the Node 22 that `make npm` installs into node_modules; without
// node_modules it is skipped, and `make test` always installs it first.
func TestTypeScriptSDK(t *testing.T) {
	node, root := testserver.Node(t, "@modelcontextprotocol/sdk"), testserver.ModuleRoot(t)

	p := newPair(t, pairConfig{})
	s := sample(t, "estimate_fare.success")
	var req struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	var resp struct {
		Result any `json:"result"`
	}
	if err := json.Unmarshal(s.Request, &req); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(s.Response, &resp); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", "ts", "oauth-flow.mjs"),
		p.Server.Endpoint, devissuer.DefaultUser.Email)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "E2E_ARGUMENTS="+string(req.Params.Arguments))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oauth-flow.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.Bytes(), stdout.Bytes())
	}

	var out struct {
		Result          any            `json:"result"`
		Refreshed       bool           `json:"refreshed"`
		Authorizations  int            `json:"authorizations"`
		AuthorizeParams map[string]any `json:"authorizeParams"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("oauth-flow.mjs printed no JSON: %v\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	if d := cmp.Diff(resp.Result, out.Result); d != "" {
		t.Errorf("estimate_fare through the TypeScript SDK differs from the seed sample (-want +got):\n%s", d)
	}
	wantParams := map[string]any{
		"code_challenge_method": "S256", "resource": p.Server.Endpoint,
		"has_code_challenge": true, "has_state": true,
	}
	if d := cmp.Diff(wantParams, out.AuthorizeParams); d != "" {
		t.Errorf("the SDK's authorization request (-want +got):\n%s", d)
	}
	if out.Authorizations != 1 {
		t.Errorf("the SDK authorized %d times, want 1", out.Authorizations)
	}
	if !out.Refreshed {
		t.Errorf("after a 401 on a spoiled access token the SDK did not refresh (rotating the refresh token) and retry")
	}
}

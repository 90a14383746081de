package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestTypeScriptSDK: the official TypeScript SDK client lists and calls
// every Relay tool on the real binary, refusals included, validating each
// structuredContent against the tool's output schema as it does. It needs
// the Node tooling `make npm` installs; without it the test is skipped.
func TestTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	node := testserver.Node(t, "@modelcontextprotocol/sdk")
	base := testserver.Start(t, testserver.Build(t), testserver.FreeAddr(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "ts-sdk.mjs"))
	cmd := exec.CommandContext(ctx, node, script, base+"/mcp/rides")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts-sdk.mjs: %v\n%s\n%s", err, stderr.Bytes(), stdout.Bytes())
	}
	var got struct {
		Tools      []string       `json:"tools"`
		Statuses   map[string]any `json:"statuses"`
		Executive  []any          `json:"executive"`
		HandoffURL string         `json:"handoffURL"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	want := map[string]any{
		"ny": "handoff_available", "search": "ok", "compare": "ok", "resolve": "ok", "handoff": "ok",
		"journey": "installation_unknown", "tampered": []any{true, "invalid_option"}, "badArgs": []any{true, "invalid_arguments"},
	}
	if d := cmp.Diff(want, got.Statuses); d != "" {
		t.Errorf("statuses through the TypeScript SDK (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"compare_rides", "continue_journey", "get_ride_booking_handoff", "resolve_ride", "search_rides"}, got.Tools); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]any{"executive", 6240.0, "fixed"}, got.Executive); d != "" {
		t.Errorf("executive option (-want +got):\n%s", d)
	}
	if !strings.Contains(got.HandoffURL, "/book?") {
		t.Errorf("handoff URL %q is not Trident's booking link", got.HandoffURL)
	}
}

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestStdioWithTypeScriptSDK runs e2e/ts/stdio-client.mjs: the official
// TypeScript SDK's stdio client launches the built `trident-mcp -stdio`,
// as desktop clients launch a local server, lists the tools and calls
// estimate_fare. The result must be the specification's sample; invalid
// arguments are answered as the negotiated revision has them (the SDK
// offers 2025-11-25: an isError result); closing stdin stops the server
// cleanly; and its stderr holds log records only, never a protocol message.
//
// Like TestTypeScriptSDK it needs the Node 22 of `make npm`, and is
// skipped without node_modules.
func TestStdioWithTypeScriptSDK(t *testing.T) {
	node, root := testserver.Node(t, "@modelcontextprotocol/sdk"), testserver.ModuleRoot(t)
	bin := testserver.Build(t)
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
	manifest, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var toolNames []string
	for _, tool := range manifest.Tools {
		toolNames = append(toolNames, tool.Name)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", "ts", "stdio-client.mjs"), bin)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "E2E_ARGUMENTS="+string(req.Params.Arguments), "FARE_CLOCK="+fareTime.Format(time.RFC3339))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stdio-client.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.Bytes(), stdout.Bytes())
	}
	var out struct {
		ProtocolVersion string         `json:"protocolVersion"`
		ServerName      string         `json:"serverName"`
		Tools           []string       `json:"tools"`
		Result          any            `json:"result"`
		Invalid         map[string]any `json:"invalid"`
		ExitCode        *int           `json:"exitCode"`
		Stderr          string         `json:"stderr"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("stdio-client.mjs printed no JSON: %v\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	if out.ProtocolVersion != "2025-11-25" || out.ServerName != manifest.Server.Name {
		t.Errorf("negotiated %q with %q, want 2025-11-25 with %q", out.ProtocolVersion, out.ServerName, manifest.Server.Name)
	}
	if d := cmp.Diff(toolNames, out.Tools); d != "" {
		t.Errorf("tools/list over stdio (-want +got):\n%s", d)
	}
	if d := cmp.Diff(resp.Result, out.Result); d != "" {
		t.Errorf("estimate_fare over stdio differs from the specification's sample (-want +got):\n%s", d)
	}
	wantInvalid := map[string]any{"result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "Invalid params: pickup: Required"}}, "isError": true,
	}}
	if d := cmp.Diff(wantInvalid, out.Invalid); d != "" {
		t.Errorf("invalid arguments at 2025-11-25 over stdio (-want +got):\n%s", d)
	}
	if out.ExitCode == nil || *out.ExitCode != 0 {
		t.Errorf("the server's exit code once its stdin closed: %v, want 0\nits stderr:\n%s", out.ExitCode, out.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(out.Stderr), "\n")
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["msg"] == nil || rec["jsonrpc"] != nil {
			t.Errorf("stderr line is not a log record: %q", l)
		}
	}
	if !strings.Contains(out.Stderr, "serving on stdio") {
		t.Errorf("the server logged nothing on stderr:\n%s", out.Stderr)
	}
}

// TestStdioStdoutIsOnlyJSONRPC drives `trident-mcp -stdio` by hand, one
// message a line, and holds every line it writes on stdout to be a
// JSON-RPC 2.0 message (a client's reader would choke on anything else),
// with the answers it documents: the handshake, the tools, a call with its
// progress notifications, and the 2025-06-18 answer to invalid arguments.
func TestStdioStdoutIsOnlyJSONRPC(t *testing.T) {
	cmd, stdin, stdout, stderr := startStdio(t, "-stdio")
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"dropoff":"Glasgow Airport"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive"},"_meta":{"progressToken":"p"}}}`,
	} {
		if _, err := io.WriteString(stdin, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type message struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	answers := map[string]message{}
	progress := 0
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for len(answers) < 4 && sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not a JSON-RPC message: %q", sc.Text())
		}
		switch {
		case m.Method == "notifications/progress":
			progress++
		case m.ID != nil:
			answers[string(m.ID)] = m
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("trident-mcp -stdio after stdin closed: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	if rest, _ := io.ReadAll(stdout); len(bytes.TrimSpace(rest)) > 0 {
		t.Errorf("stdout after the last answer: %q", rest)
	}
	if m := answers["1"]; !strings.Contains(string(m.Result), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize: %+v", m)
	}
	if m := answers["2"]; !strings.Contains(string(m.Result), `"estimate_fare"`) {
		t.Errorf("tools/list: %+v", m)
	}
	if m := answers["3"]; m.Error == nil || m.Error.Code != -32602 || m.Error.Message != "Invalid params: pickup: Required" {
		t.Errorf("invalid arguments at 2025-06-18: %+v, want -32602", m)
	}
	if m := answers["4"]; !strings.Contains(string(m.Result), "£62.40 · 22 miles · 33 min · day tariff") || progress != 4 {
		t.Errorf("estimate_fare: %s after %d progress notifications, want the sample after 4", m.Result, progress)
	}
}

// TestStdioServesRelay drives `trident-mcp -stdio=/mcp/rides`: Relay's tools
// over stdio, its search priced by this process's own Trident (served for
// Relay alone on a loopback port), so a local client gets signed Trident
// options without any HTTP server of its own.
func TestStdioServesRelay(t *testing.T) {
	cmd, stdin, stdout, stderr := startStdio(t, "-stdio=/mcp/rides")
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_rides","arguments":{"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306},"party_size":2}}}`,
	} {
		if _, err := io.WriteString(stdin, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	var search struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent struct {
				Status  string `json:"status"`
				Options []struct {
					Provider string `json:"provider"`
					Product  struct {
						ID string `json:"id"`
					} `json:"product"`
					Price struct {
						AmountMinor int64  `json:"amount_minor"`
						Currency    string `json:"currency"`
					} `json:"price"`
				} `json:"options"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &search); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		if search.ID == 2 {
			break
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("trident-mcp -stdio=/mcp/rides after stdin closed: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	out := search.Result.StructuredContent
	var executive int64
	for _, o := range out.Options {
		if o.Provider == "trident" && o.Product.ID == "executive" && o.Price.Currency == "GBP" {
			executive = o.Price.AmountMinor
		}
	}
	if out.Status != "ok" || executive != 6240 {
		t.Errorf("search_rides over stdio: status %q, Trident's executive at %d; want ok and 6240 (the specification's £62.40)\nstderr:\n%s", out.Status, executive, stderr.Bytes())
	}
	if !strings.Contains(stderr.String(), `"endpoint":"/mcp/rides"`) {
		t.Errorf("the server did not log serving /mcp/rides:\n%s", stderr.Bytes())
	}
}

// startStdio starts the built trident-mcp with args, in a directory of the
// test's own (Relay's default store, relay.db, goes there) and the
// samples' fare clock, bounded by a minute: its stdin and stdout for the
// client, and its stderr as it writes it.
func startStdio(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, testserver.Build(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "FARE_CLOCK="+fareTime.Format(time.RFC3339))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, stdout, stderr
}

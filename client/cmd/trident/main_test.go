package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
	"github.com/tridenttaxis/trident-mcp/internal/faultserver"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

func runCLI(t *testing.T, stderr interface{ Write([]byte) (int, error) }, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	if stderr == nil {
		stderr = &bytes.Buffer{}
	}
	code := run(args, strings.NewReader(""), &out, stderr)
	return code, out.String()
}

func TestToolsAndCall(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, false)
	tokens := filepath.Join(t.TempDir(), "tokens.json")

	code, out := runCLI(t, nil, "tools", "-tokens", tokens, env.Endpoint)
	if code != 0 || !strings.Contains(out, "estimate_fare") || !strings.Contains(out, "start_booking") {
		t.Errorf("tools: exit %d, output %q", code, out)
	}

	var stderr bytes.Buffer
	code, out = runCLI(t, &stderr, "call", "-tokens", tokens, "-arg", "pickup=Helensburgh Central Station",
		"-json", `{"dropoff":"Glasgow Airport","vehicleType":"mpv"}`, "-arg", "passengers=6", "start_booking", env.Endpoint)
	if code != 0 {
		t.Fatalf("call: exit %d, stderr %s", code, stderr.String())
	}
	var got struct {
		Confirmed bool `json:"confirmed"`
		Prefilled struct {
			Pickup string `json:"pickup"`
		} `json:"prefilled"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Prefilled.Pickup != "Helensburgh Central Station" {
		t.Errorf("call output %q (%v), want the structured result", out, err)
	}
	if !strings.Contains(stderr.String(), "step 1 of 2") {
		t.Errorf("stderr %q shows no progress", stderr.String())
	}
	var sent struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	reqs := env.Server.Requests()
	json.Unmarshal(reqs[len(reqs)-1].Body, &sent)
	if sent.Params.Arguments["passengers"] != float64(6) || sent.Params.Arguments["vehicleType"] != "mpv" {
		t.Errorf("arguments sent = %v, want passengers as a number and -json merged", sent.Params.Arguments)
	}
}

func TestExitCodes(t *testing.T) {
	pub := faultserver.Start(t, faultserver.Options{}, false)
	sec := faultserver.Start(t, faultserver.Options{}, true)
	tokens := filepath.Join(t.TempDir(), "none.json")
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"tool refusal", []string{"call", "-tokens", tokens, "-json", `{"pickup":"xxx","dropoff":"Glasgow Airport"}`, "estimate_fare", pub.Endpoint}, 3},
		{"unknown tool", []string{"call", "-tokens", tokens, "get_service_infoo", pub.Endpoint}, 1},
		{"login needed", []string{"tools", "-tokens", tokens, sec.Endpoint}, 4},
		{"no URL", []string{"tools"}, 2},
		{"not a URL", []string{"tools", "localhost:8080/mcp"}, 2},
		{"bad -arg", []string{"call", "-arg", "novalue", "estimate_fare", pub.Endpoint}, 2},
		{"unknown command", []string{"book", pub.Endpoint}, 2},
		{"unknown flag", []string{"tools", "-verbose", pub.Endpoint}, 2},
		{"help", []string{"-h"}, 0},
		{"help for a command", []string{"call", "-h"}, 0},
		{"conformance help", []string{"conformance", "-h"}, 0},
		{"no arguments", nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, _ := runCLI(t, nil, tt.args...); code != tt.want {
				t.Errorf("exit %d, want %d", code, tt.want)
			}
		})
	}
}

func TestHelpExplainsTheCommands(t *testing.T) {
	code, out := runCLI(t, nil, "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"trident tools", "trident call", "trident login", "trident conformance", "examples:", "exit status:", "-arg key=value"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

// Errors say what to do next.
func TestErrorsSayWhatToDo(t *testing.T) {
	pub := faultserver.Start(t, faultserver.Options{}, false)
	tokens := filepath.Join(t.TempDir(), "none.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown tool", []string{"call", "-tokens", tokens, "estimate_fair", pub.Endpoint}, "trident tools " + pub.Endpoint},
		{"wrong path", []string{"tools", "-tokens", tokens, pub.HTTP.URL + "/api"}, "check the path"},
		{"refusal", []string{"call", "-tokens", tokens, "-json", `{"pickup":"xxx","dropoff":"Glasgow Airport"}`, "estimate_fare", pub.Endpoint}, "change the input"},
		{"arguments", []string{"call", "estimate_fare", pub.Endpoint, "extra"}, "usage: trident call [flags] TOOL URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			runCLI(t, &stderr, tt.args...)
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.want)
			}
		})
	}
}

// Flags may follow TOOL and URL.
func TestFlagsAfterArguments(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, false)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	var stderr bytes.Buffer
	code, out := runCLI(t, &stderr, "call", "estimate_fare", "-arg", "pickup=Helensburgh Central Station",
		env.Endpoint, "-arg", "dropoff=Glasgow Airport", "-tokens", tokens, "-progress=false")
	if code != 0 || !strings.Contains(out, `"fareGBP": 62.4`) {
		t.Fatalf("exit %d, output %q, stderr %s", code, out, stderr.String())
	}
	var sent struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	json.Unmarshal(env.Server.RequestsOf(client.MethodToolsCall)[0].Body, &sent)
	if sent.Params.Arguments["dropoff"] != "Glasgow Airport" {
		t.Errorf("arguments sent = %v", sent.Params.Arguments)
	}
}

// Tokens saved by a login at one server are never sent to another.
func TestTokensStayWithTheirResource(t *testing.T) {
	home := faultserver.Start(t, faultserver.Options{}, true)
	other := faultserver.Start(t, faultserver.Options{}, false)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	bw := &browserWriter{t: t}
	if code, _ := runCLI(t, bw, "login", "-no-browser", "-tokens", tokens, home.Endpoint); code != 0 {
		t.Fatalf("login: exit %d, stderr %s", code, bw.buf.String())
	}
	var stderr bytes.Buffer
	if code, _ := runCLI(t, &stderr, "tools", "-tokens", tokens, other.Endpoint); code != 0 {
		t.Fatalf("tools at the other server: exit %d, stderr %s", code, stderr.String())
	}
	for _, r := range other.Server.Requests() {
		if r.Token != "" || r.Header.Get("Authorization") != "" {
			t.Errorf("the other server received credentials: %q", r.Header.Get("Authorization"))
		}
	}
	if !strings.Contains(stderr.String(), "the saved tokens are for "+home.Endpoint) {
		t.Errorf("stderr %q does not say why the tokens were not sent", stderr.String())
	}
	if code, _ := runCLI(t, nil, "tools", "-tokens", tokens, home.Endpoint); code != 0 {
		t.Errorf("tools at the home server: exit %d", code)
	}
}

// browserWriter plays the user: when login prints the authorization URL,
// it visits it, which redirects to the CLI's loopback callback.
type browserWriter struct {
	t    *testing.T
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
}

var urlRE = regexp.MustCompile(`https?://\S+/oauth/authorize\S*`)

func (b *browserWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if u := urlRE.FindString(b.buf.String()); u != "" {
		b.once.Do(func() {
			go func() {
				resp, err := http.Get(u)
				if err != nil {
					b.t.Errorf("visiting %s: %v", u, err)
					return
				}
				resp.Body.Close()
			}()
		})
	}
	return len(p), nil
}

func TestLoginThenAuthenticatedCall(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, true)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	bw := &browserWriter{t: t}
	if code, _ := runCLI(t, bw, "login", "-no-browser", "-tokens", tokens, env.Endpoint); code != 0 {
		t.Fatalf("login: exit %d, stderr %s", code, bw.buf.String())
	}
	code, out := runCLI(t, nil, "call", "-tokens", tokens, "-progress=false", "get_service_info", env.Endpoint)
	if code != 0 || !strings.Contains(out, `"brand": "Trident Taxis"`) {
		t.Errorf("call after login: exit %d, output %q", code, out)
	}
	if reqs := env.Server.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Token == "" {
		t.Error("the call carried no bearer token")
	}
}

func TestConformanceEntryPoint(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{RequireSession: true}, true)
	vars := map[string]string{
		"MCP_CONFORMANCE_SCENARIO": "trident/custom",
		"MCP_CONFORMANCE_CONTEXT":  `{"name":"trident/custom","toolCalls":[{"name":"get_service_info","arguments":{}}]}`,
	}
	var out, errb bytes.Buffer
	code := runConformance([]string{"-client-metadata-url=", env.Endpoint}, func(k string) string { return vars[k] }, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "tools/call get_service_info") {
		t.Errorf("output %q shows no call", out.String())
	}
	reqs := env.Server.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Token == "" {
		t.Error("the last call carried no bearer token: the 401 did not lead to an authorization")
	}
}

func TestConformanceUsage(t *testing.T) {
	none := func(string) string { return "" }
	tests := []struct {
		name string
		args []string
		env  func(string) string
		want int
	}{
		{"no URL", nil, func(string) string { return "initialize" }, 2},
		{"no scenario", []string{"http://127.0.0.1:1/mcp"}, none, 2},
		{"bad context", []string{"http://127.0.0.1:1/mcp"}, func(k string) string {
			return map[string]string{"MCP_CONFORMANCE_SCENARIO": "x", "MCP_CONFORMANCE_CONTEXT": "{"}[k]
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := runConformance(tt.args, tt.env, &out, &errb); code != tt.want {
				t.Errorf("exit %d, want %d (stderr %s)", code, tt.want, errb.String())
			}
		})
	}
}

// Failures the CLI cannot provoke without waiting out the backoff are
// checked on report itself.
func TestReportHints(t *testing.T) {
	refused := &client.TransportError{Method: "tools/list", Err: syscall.ECONNREFUSED}
	slow := &client.TransportError{Method: "tools/list", Err: context.DeadlineExceeded}
	tests := []struct {
		name string
		err  error
		code int
		want string
	}{
		{"connection refused", refused, 1, "is the server running"},
		{"deadline after a refused connection", fmt.Errorf("client: tools/list: %w (last failure: %w)", context.DeadlineExceeded, refused), 1, "is the server running"},
		{"deadline during a request", fmt.Errorf("client: tools/list: %w (last failure: %w)", context.DeadlineExceeded, slow), 1, "longer -timeout"},
		{"revoked family", fmt.Errorf("x: %w", oauth.ErrReconsentRequired), 4, "trident login http://h/mcp"},
		{"invalid params", &client.RPCError{Code: -32602, Message: "Invalid params: pickup: too short"}, 1, "Fix the argument"},
		{"routing down", &client.ToolError{Tool: "estimate_fare", Text: "down", Code: "ROUTING_UNAVAILABLE", Retryable: true}, 3, "may work in a minute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if code := report(&b, tt.err, "http://h/mcp", time.Minute); code != tt.code || !strings.Contains(b.String(), tt.want) {
				t.Errorf("report = %d, %q; want %d and %q", code, b.String(), tt.code, tt.want)
			}
		})
	}
}

// TestToolsShowSchemas: tools -v prints each tool's schemas as the server
// serves them, tools -json the tools/list result; both flags may follow the
// URL, and call keeps -json for its arguments.
func TestToolsShowSchemas(t *testing.T) {
	ep, err := trident.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(&server.Options{Logger: slog.New(slog.DiscardHandler)}, ep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	endpoint := ts.URL + "/mcp"
	tokens := filepath.Join(t.TempDir(), "tokens.json")

	var stderr bytes.Buffer
	code, out := runCLI(t, &stderr, "tools", endpoint, "-v", "-tokens", tokens)
	if code != 0 {
		t.Fatalf("tools URL -v: exit %d, stderr %s", code, stderr.String())
	}
	for _, want := range []string{
		"estimate_fare — ", "(read-only, idempotent)", "get_service_info", "start_booking — ",
		"  input schema:\n    {\n", "  output schema:\n", `"appliedRules"`, `"prefilled"`, `"minLength": 3`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tools -v lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "input schema:"); n != 3 {
		t.Errorf("%d input schemas, want one per tool", n)
	}

	code, out = runCLI(t, &stderr, "tools", endpoint, "-json", "-tokens", tokens)
	var listed struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Tools) != 3 {
		t.Fatalf("tools URL -json: exit %d, output %q", code, out)
	}
	for _, tl := range listed.Tools {
		if len(tl.InputSchema) == 0 || len(tl.OutputSchema) == 0 {
			t.Errorf("%s: schemas missing from -json", tl.Name)
		}
	}

	// Without -v, one line per tool.
	if code, out = runCLI(t, nil, "tools", "-tokens", tokens, endpoint); code != 0 || strings.Count(out, "\n") != 3 || strings.Contains(out, "schema") {
		t.Errorf("tools: exit %d, output %q", code, out)
	}
	// -v belongs to tools.
	if code, _ = runCLI(t, nil, "call", "-v", "get_service_info", endpoint); code != 2 {
		t.Errorf("call -v: exit %d, want 2", code)
	}
}

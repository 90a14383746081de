package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds server/cmd/trident-mcp once for the package's tests.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "trident-mcp-cli")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
		binPath = testserver.Go(t, filepath.Join(dir, "trident-mcp"), "build", "./server/cmd/trident-mcp")
	})
	if binPath == "" {
		t.Fatal("the binary did not build")
	}
	return binPath
}

// runBinary runs the binary with args and an environment holding none of
// its settings, and returns its exit code, stdout and stderr.
func runBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

func TestHelpExitsZeroAndSaysEverything(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		t.Run(arg, func(t *testing.T) {
			code, out, errOut := runBinary(t, []string{"ADDR=127.0.0.1:9000"}, arg)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errOut)
			}
			want := []string{
				"Trident Taxis MCP tools", "MCP Streamable HTTP", "Usage:\n  trident-mcp [flags]",
				// real types and defaults
				"-mcp-require-oauth bool\n", "(default false)",
				"-geo-timeout duration\n", "(default 5s)", "-geo-breaker-open duration\n", "(default 30s)",
				"-max-body-bytes int\n", "(default 1048576)", "-fare-clock time\n",
				`-addr string` + "\n", `(default ":8080")`, "($ADDR)",
				// a set variable is shown with its value
				`now "127.0.0.1:9000", from $ADDR`,
				"-version\n", "Examples:\n",
			}
			for _, tool := range mcptypes.ToolNames {
				want = append(want, tool)
			}
			for _, e := range endpoints {
				want = append(want, e[0])
			}
			for _, v := range settings {
				want = append(want, "-"+flagName(v.env)+" ", "$"+v.env)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("-h lacks %q", w)
				}
			}
			if n := strings.Count(out, "\n  trident-mcp -") + strings.Count(out, "\n    trident-mcp -"); n != 2 {
				t.Errorf("want two examples, found %d:\n%s", n, out)
			}
		})
	}
}

// helpText is -h's text, as run prints it.
func helpText(t *testing.T) string {
	t.Helper()
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, env(nil), &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	return stdout.String()
}

// TestHelpListsEveryFlag: every flag the binary defines, setting or not,
// is in -h.
func TestHelpListsEveryFlag(t *testing.T) {
	_, err := parseConfig([]string{"-h"}, env(nil))
	var h helpRequest
	if !errors.As(err, &h) {
		t.Fatalf("parseConfig(-h) = %v, want a help request", err)
	}
	text := helpText(t)
	n := 0
	h.fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(text, "\n  -"+f.Name+" ") && !strings.Contains(text, "\n  -"+f.Name+"\n") {
			t.Errorf("-h does not list -%s", f.Name)
		}
	})
	if n <= len(settings) {
		t.Errorf("%d flags, want one per setting and -version", n)
	}
}

// TestUsageExamplesParse: each example of -h is a command line the binary
// accepts, with its environment.
func TestUsageExamplesParse(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(helpText(t))
	_, examples, _ := strings.Cut(buf.String(), "Examples:\n")
	n := 0
	for _, para := range strings.Split(examples, "\n\n") {
		var cmd string
		for _, line := range strings.Split(para, "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				cmd += strings.TrimSuffix(line, `\`) + " "
			}
		}
		if cmd == "" {
			continue
		}
		words := strings.Fields(strings.ReplaceAll(cmd, "<project-ref>", "ref")) // the examples quote nothing
		vars := map[string]string{}
		for len(words) > 0 && strings.Contains(words[0], "=") {
			k, v, _ := strings.Cut(words[0], "=")
			vars[k], words = v, words[1:]
		}
		if len(words) == 0 || words[0] != "trident-mcp" {
			t.Fatalf("example %q does not run trident-mcp", cmd)
		}
		if _, err := parseConfig(words[1:], env(vars)); err != nil {
			t.Errorf("example %q: %v", cmd, err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d examples, want 2", n)
	}
}

// TestUsageEndpointsAreServed holds -h's list of endpoints to the server:
// each answers its method with something other than 404 or 405.
func TestUsageEndpointsAreServed(t *testing.T) {
	ep, err := trident.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rides, err := relay.New(&relay.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(&server.Options{Logger: slog.New(slog.DiscardHandler)}, ep, rides)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, e := range endpoints {
		method, path, _ := strings.Cut(e[0], " ")
		path = strings.TrimSpace(path)
		req := httptest.NewRequest(method, path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code == http.StatusNotFound || rec.Code == http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d", method, path, rec.Code)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, errOut := runBinary(t, nil, "-version")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := append([]string{"trident-mcp " + mcptypes.ServerVersion, mcptypes.ServerName}, mcphttp.ProtocolVersions()...)
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("-version lacks %q:\n%s", w, out)
		}
	}
	// -version needs no valid configuration to answer.
	if code, _, _ := runBinary(t, []string{"MCP_REQUIRE_OAUTH=true"}, "-version"); code != 0 {
		t.Errorf("-version with an incomplete OAuth configuration: exit %d", code)
	}
}

// TestCommandLineMistakesExitTwo: a positional argument (which would make
// the flag package ignore every flag after it), an unknown flag and a value
// of the wrong type each stop the binary with exit 2, a message naming the
// mistake and a pointer to -h; a bad environment variable exits 1 naming
// the variable.
func TestCommandLineMistakesExitTwo(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"positional argument", nil, []string{"serve", "-addr", "127.0.0.1:1"}, 2, `unexpected argument "serve"`},
		{"positional argument after flags", nil, []string{"-addr", "127.0.0.1:1", "extra"}, 2, `unexpected argument "extra"`},
		{"bool flag given a separate value", nil, []string{"-mcp-require-oauth", "false"}, 2, `unexpected argument "false"`},
		{"unknown flag", nil, []string{"-port", "9000"}, 2, "flag provided but not defined: -port"},
		{"duration without a unit", nil, []string{"-geo-timeout", "5"}, 2, `invalid value "5" for flag -geo-timeout: want a duration`},
		{"bool flag with a bad value", nil, []string{"-mcp-require-oauth=maybe"}, 2, `invalid boolean value "maybe" for -mcp-require-oauth: want true or false`},
		{"int flag with a bad value", nil, []string{"-max-body-bytes", "1MB"}, 2, `invalid value "1MB" for flag -max-body-bytes: want a whole number`},
		{"bad environment variable", []string{"GEO_BREAKER_OPEN=soon"}, nil, 1, `GEO_BREAKER_OPEN="soon": want a duration`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runBinary(t, tc.env, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q lacks %q", errOut, tc.want)
			}
			if hint := strings.Contains(errOut, "trident-mcp -h"); hint != (tc.code == 2) {
				t.Errorf("stderr %q: pointer to -h = %t, want %t", errOut, hint, tc.code == 2)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

func TestListenBaseURL(t *testing.T) {
	tcp := func(s string) net.Addr {
		a, err := net.ResolveTCPAddr("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct{ addr, bound, want string }{
		{"127.0.0.1:9000", "127.0.0.1:9000", "http://127.0.0.1:9000"},
		{":9000", "[::]:9000", "http://localhost:9000"},
		{"0.0.0.0:9000", "0.0.0.0:9000", "http://localhost:9000"},
		{"[::]:9000", "[::]:9000", "http://localhost:9000"},
		{"[::1]:9000", "[::1]:9000", "http://[::1]:9000"},
		{"localhost:9000", "127.0.0.1:9000", "http://localhost:9000"},
		{"127.0.0.1:0", "127.0.0.1:41234", "http://127.0.0.1:41234"}, // the port the listener got
		{":0", "[::]:41234", "http://localhost:41234"},
	} {
		if got := listenBaseURL(tc.addr, tcp(tc.bound)); got != tc.want {
			t.Errorf("listenBaseURL(%q, %s) = %q, want %q", tc.addr, tc.bound, got, tc.want)
		}
	}
}

// TestPublicBaseURLDefaultsToTheListeningAddress: started with only ADDR,
// the binary advertises where it listens in its resource metadata and its
// documentation, not localhost:8080.
func TestPublicBaseURLDefaultsToTheListeningAddress(t *testing.T) {
	addr := testserver.FreeAddr(t)
	base := testserver.Start(t, binary(t), addr, "PUBLIC_BASE_URL=")
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta struct {
		Resource string `json:"resource"`
		Docs     string `json:"resource_documentation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		t.Fatal(err)
	}
	if meta.Resource != "http://"+addr+"/mcp" || meta.Docs != "http://"+addr+"/mcp-docs" {
		t.Errorf("metadata names %q and %q, want the listening address %s", meta.Resource, meta.Docs, addr)
	}
}

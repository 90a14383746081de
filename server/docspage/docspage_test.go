package docspage_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
)

const base = "https://taxis.example"

var schemaIn = json.RawMessage(`{"type":"object","properties":{
	"pickup":{"type":"string","minLength":3,"maxLength":200,"description":"Pickup."},
	"vehicleType":{"type":"string","enum":["saloon","mpv"]},
	"dropoff":{"type":"string","minLength":3}},"required":["pickup","dropoff"]}`)

func endpoint(id, path string) docspage.Endpoint {
	return docspage.Endpoint{
		ID: id, Title: "Endpoint " + id, Path: path, ServerName: id + "-mcp", ServerVersion: "1.2.3", ProtocolVersion: "2025-06-18",
		MetadataPath: "/.well-known/oauth-protected-resource" + strings.TrimPrefix(path, "/mcp"),
		Tools: []docspage.Tool{{
			Name: id + "_tool", Title: "A tool", Description: "Does a thing.", ReadOnly: true,
			Input: schemaIn, Output: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
			InputURL: "/schemas/" + id + ".input.json",
			Samples: []docspage.Sample{{
				Name: id + "_tool.success", Description: "It works.", URL: "/samples/" + id + ".json", Status: 200,
				Request:  json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + id + `_tool","arguments":{"pickup":"Here's","dropoff":"There"}}}`),
				Response: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"ok":true}}}`),
			}},
		}},
		Errors: []docspage.Error{{Code: "NOT_ACCEPTABLE", Surface: "http", JSONRPCCode: -32000, HTTPStatus: 406, Meaning: "Accept lacks a type.", Remedy: "Send both."}},
	}
}

func serve(t *testing.T, p docspage.Page) *httptest.Server {
	t.Helper()
	h, err := docspage.New(p)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.Register(mux)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func get(t *testing.T, url, host string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func page(endpoints ...docspage.Endpoint) docspage.Page {
	return docspage.Page{Title: "Docs", Path: "/mcp-docs", PublicBaseURL: base + "/", Endpoints: endpoints}
}

// Every mounted endpoint gets its section, its navigation and its console,
// so an endpoint mounted later (Relay's /mcp/rides) appears with no change
// to the page.
func TestEveryEndpointHasItsSectionAndConsole(t *testing.T) {
	ts := serve(t, page(endpoint("trident", "/mcp"), endpoint("relay", "/mcp/rides")))
	resp, body := get(t, ts.URL+"/mcp-docs", "taxis.example")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`<section class="endpoint" id="trident"`, `<section class="endpoint" id="relay"`,
		`data-console="trident"`, `data-console="relay"`,
		`href="#relay-try"`, `href="#trident-tool-trident_tool"`, `id="relay-tool-relay_tool"`,
		`<pre data-copy="endpoint-url" class="endpoint-url">https://taxis.example/mcp/rides</pre>`,
		"Input · 2 required, 1 optional", "NOT_ACCEPTABLE", "HTTP 406", `href="/samples/relay.json"`,
		`curl -sS https://taxis.example/.well-known/oauth-protected-resource/rides`,
		// A quote in the arguments survives the shell snippet.
		`Here&#39;\&#39;&#39;s`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="docs-data">(.*?)</script>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no console data")
	}
	var data struct {
		Endpoints map[string]struct {
			Path  string `json:"path"`
			OAuth bool   `json:"oauth"`
			Tools []struct {
				Name     string          `json:"name"`
				Input    json.RawMessage `json:"inputSchema"`
				Examples []struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"examples"`
			} `json:"tools"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatalf("console data: %v\n%s", err, m[1])
	}
	relay := data.Endpoints["relay"]
	if relay.Path != "/mcp/rides" || len(relay.Tools) != 1 || relay.Tools[0].Name != "relay_tool" {
		t.Fatalf("relay console data: %+v", relay)
	}
	var got, want any
	json.Unmarshal(relay.Tools[0].Input, &got)
	json.Unmarshal(schemaIn, &want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the console validates against a different schema (-want +got):\n%s", d)
	}
	if ex := relay.Tools[0].Examples; len(ex) != 1 || string(ex[0].Arguments) != `{"pickup":"Here's","dropoff":"There"}` {
		t.Errorf("examples: %+v", ex)
	}
}

// The page's URLs follow a loopback request's own origin (what a browser on
// the machine reached), and never a foreign Host header.
func TestEndpointURLFollowsLoopbackOriginOnly(t *testing.T) {
	ts := serve(t, page(endpoint("trident", "/mcp")))
	for _, c := range []struct{ host, want string }{
		{"127.0.0.1:41234", "http://127.0.0.1:41234/mcp"},
		{"localhost:9000", "http://localhost:9000/mcp"},
		{"[::1]:9000", "http://[::1]:9000/mcp"},
		{"localhost", "http://localhost/mcp"},
		{"taxis.example", base + "/mcp"},
		{"evil.example", base + "/mcp"},
		{"127.0.0.1:99999", base + "/mcp"},
		{"127.0.0.1:80\"><script>", base + "/mcp"},
	} {
		_, body := get(t, ts.URL+"/mcp-docs", c.host)
		if !strings.Contains(body, `class="endpoint-url">`+c.want+`</pre>`) {
			t.Errorf("Host %q: endpoint URL is not %s", c.host, c.want)
		}
		if strings.Contains(body, "evil.example") || strings.Contains(body, "<script>") {
			t.Errorf("Host %q is reflected", c.host)
		}
	}
}

// The page loads only what the binary embeds, under a policy that forbids
// anything else.
func TestAssetsAreEmbeddedAndPolicyForbidsOthers(t *testing.T) {
	ts := serve(t, page(endpoint("trident", "/mcp")))
	resp, body := get(t, ts.URL+"/mcp-docs", "")
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %s", csp, want)
		}
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"#][^"]*)"`).FindAllStringSubmatch(body, -1)
	for _, r := range refs {
		// The test's request is on loopback, so the page's own URLs are ts.URL's.
		if u := html.UnescapeString(r[1]); !strings.HasPrefix(u, "/") && !strings.HasPrefix(u, ts.URL+"/") && u != "data:," {
			t.Errorf("the page refers to %s, outside this host", u)
		}
	}
	for path, wantType := range map[string]string{
		"/mcp-docs/assets/docs.js":                 "text/javascript",
		"/mcp-docs/assets/docs.css":                "text/css",
		"/mcp-docs/assets/json-schema/index.js":    "text/javascript",
		"/mcp-docs/assets/json-schema/validate.js": "text/javascript",
	} {
		resp, body := get(t, ts.URL+path, "")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), wantType) || body == "" {
			t.Errorf("%s: status %d, type %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if resp, _ := get(t, ts.URL+"/mcp-docs/assets/nope.js", ""); resp.StatusCode != 404 {
		t.Errorf("a missing asset answers %d", resp.StatusCode)
	}
}

func TestNewRefusesAnIncompletePage(t *testing.T) {
	bad := endpoint("trident", "/mcp")
	bad.Tools[0].Input = json.RawMessage(`{`)
	for name, p := range map[string]docspage.Page{
		"no endpoints":   page(),
		"no title":       {Path: "/mcp-docs", PublicBaseURL: base, Endpoints: []docspage.Endpoint{endpoint("a", "/mcp")}},
		"bad id":         page(endpoint("a b", "/mcp")),
		"duplicate id":   page(endpoint("a", "/mcp"), endpoint("a", "/mcp/rides")),
		"invalid schema": page(bad),
	} {
		if _, err := docspage.New(p); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

func TestFieldsKeepSchemaOrderAndWordConstraints(t *testing.T) {
	got := docspage.Fields(schemaIn)
	want := []docspage.Field{
		{Name: "pickup", Type: "string", Constraints: "minLength 3; maxLength 200", Description: "Pickup.", Required: true},
		{Name: "vehicleType", Type: "string", Constraints: `one of "saloon", "mpv"`},
		{Name: "dropoff", Type: "string", Constraints: "minLength 3", Required: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Fields (-want +got):\n%s", d)
	}
}

// Each client's snippet parses as that client's format and carries the keys
// its documentation requires.
func TestClientSnippetsFollowEachClientsFormat(t *testing.T) {
	for _, url := range []string{"https://taxis.example/mcp", "http://localhost:8080/mcp", "http://10.0.0.5:8080/mcp/rides"} {
		snips := docspage.ClientSnippets("trident-taxis", url)
		byID := map[string]string{}
		for _, s := range snips {
			byID[s.ID] = s.Text
		}
		checkClientSnippets(t, url, byID)
	}
}

func checkClientSnippets(t *testing.T, url string, byID map[string]string) {
	t.Helper()
	if len(byID) != 4 {
		t.Fatalf("%s: snippets %v", url, byID)
	}
	var desktop struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	mustJSON(t, "claude-desktop", byID["claude-desktop"], &desktop)
	d := desktop.MCPServers["trident-taxis"]
	wantArgs := []string{"-y", "mcp-remote", url}
	if strings.HasPrefix(url, "http://") && !strings.Contains(url, "//localhost") {
		wantArgs = append(wantArgs, "--allow-http") // mcp-remote's rule for plain HTTP off localhost
	}
	if d.Command != "npx" || !cmp.Equal(d.Args, wantArgs) {
		t.Errorf("claude-desktop for %s: %+v", url, d)
	}

	// claude mcp add [options] <name> <url>: options come before the name.
	f := strings.Fields(byID["claude-code"])
	if len(f) != 7 || strings.Join(f[:5], " ") != "claude mcp add --transport http" || f[5] != "trident-taxis" || f[6] != url {
		t.Errorf("claude-code for %s: %q", url, byID["claude-code"])
	}

	var cursor struct {
		MCPServers map[string]map[string]string `json:"mcpServers"`
	}
	mustJSON(t, "cursor", byID["cursor"], &cursor)
	if c := cursor.MCPServers["trident-taxis"]; c["url"] != url || len(c) != 1 {
		t.Errorf("cursor for %s: %+v", url, c)
	}

	var vscode struct {
		Servers map[string]map[string]string `json:"servers"`
	}
	mustJSON(t, "vscode", byID["vscode"], &vscode)
	if v := vscode.Servers["trident-taxis"]; v["type"] != "http" || v["url"] != url {
		t.Errorf("vscode for %s: %+v", url, v)
	}
}

func mustJSON(t *testing.T, name, text string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("%s snippet is not its format's JSON: %v\n%s", name, err, text)
	}
}

// The README's snippets are the page's, for the default address, and pass
// the same checks.
func TestReadmeClientSnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)<!-- client:([a-z-]+) -->\n```[a-z]*\n(.*?)\n```").FindAllStringSubmatch(string(readme), -1)
	got := map[string]string{}
	for _, b := range blocks {
		got[b[1]] = b[2]
	}
	const url = "http://localhost:8080/mcp"
	want := map[string]string{}
	for _, s := range docspage.ClientSnippets("trident-taxis", url) {
		want[s.ID] = s.Text
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("README client snippets differ from the docs page's (-page +README):\n%s", d)
	}
	checkClientSnippets(t, url, got)
}

// FromContracts gives the page the contract's schemas byte for byte, each
// tool's samples with the success pair first, and the endpoint's catalogue.
func TestFromContractsReadsTheContractFolder(t *testing.T) {
	tools, errs, err := docspage.FromContracts(tridentcontracts.Set, "/mcp-schemas/", "/samples/")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := tridentcontracts.Set.Manifest()
	if len(tools) != len(m.Tools) {
		t.Fatalf("%d tools, the manifest has %d", len(tools), len(m.Tools))
	}
	for i, tool := range tools {
		in, _ := m.Tools[i].Input()
		if tool.Name != m.Tools[i].Name || string(tool.Input) != string(in) {
			t.Errorf("tool %d: %s differs from the contract's %s", i, tool.Name, m.Tools[i].Name)
		}
		if len(tool.Samples) == 0 || !strings.HasSuffix(tool.Samples[0].Name, ".success") ||
			tool.Samples[0].URL != "/samples/"+tool.Samples[0].Name+".json" {
			t.Errorf("%s: samples %+v", tool.Name, tool.Samples)
		}
		if tool.InputURL != "/mcp-schemas/"+tool.Name+".input.json" {
			t.Errorf("%s: input schema at %s", tool.Name, tool.InputURL)
		}
	}
	codes := map[string]bool{}
	for _, e := range errs {
		codes[e.Code] = true
	}
	for _, c := range []string{"INVALID_ARGUMENTS", "NOT_ACCEPTABLE", "UNAUTHORIZED", "GEOCODE_FAILED", "CAPACITY_EXCEEDED"} {
		if !codes[c] {
			t.Errorf("catalogue lacks %s", c)
		}
	}
}

package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// echoEndpoint is a minimal second endpoint: one tool that echoes its
// "text" argument, or refuses with ECHO_REFUSED when asked to. It is
// everything an endpoint package has to provide; the front door, metadata,
// OAuth and metrics come from the host.
func echoEndpoint() *mcphttp.Endpoint {
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	return &mcphttp.Endpoint{
		Path:           "/mcp/echo",
		Implementation: &mcp.Implementation{Name: "echo", Version: "0.0.1"},
		Docs: func(m mcphttp.Mount) (docspage.Endpoint, error) {
			return docspage.Endpoint{
				ID: "echo", Title: "Echo", Path: "/mcp/echo", ResourceURL: m.ResourceURL, OAuth: m.OAuth, MetadataPath: m.MetadataPath,
				Tools: []docspage.Tool{{Name: "echo", Input: schema, Output: json.RawMessage(`{}`)}},
			}, nil
		},
		Tools: []mcphttp.Tool{{
			Def: &mcp.Tool{Name: "echo", InputSchema: schema},
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct{ Text string }
				json.Unmarshal(req.Params.Arguments, &in)
				if in.Text == "refuse" {
					return nil, &mcphttp.ToolError{Code: "ECHO_REFUSED", Text: "refused"}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
			},
		}},
	}
}

// startHost serves Trident and the echo endpoint on one host.
func startHost(t *testing.T, opts server.Options) *httptest.Server {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	tri, err := trident.New(&trident.Options{Logger: opts.Logger})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	opts.PublicBaseURL = ts.URL
	srv, err := server.New(&opts, tri, echoEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

type exchange struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, method, url string, h http.Header, body string) exchange {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return exchange{resp.StatusCode, resp.Header, string(b)}
}

func mcpHeaders(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// TestSecondEndpointSharesTheFrontDoor mounts a second endpoint beside
// Trident and holds both to the same refusals, word for word, since they
// are served by the same code.
func TestSecondEndpointSharesTheFrontDoor(t *testing.T) {
	ts := startHost(t, server.Options{})
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cases := []struct {
		name       string
		header     http.Header
		body       string
		wantStatus int
		wantBody   string
	}{
		{"406 without text/event-stream", mcpHeaders("Accept", "application/json"), ping, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"-32700 on broken JSON", mcpHeaders(), `{"jsonrpc":`, 400, ""},
		{"403 for a foreign Origin", mcpHeaders("Origin", "https://evil.example"), ping, 403, ""},
		{"ping answers", mcpHeaders(), ping, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tri := do(t, http.MethodPost, ts.URL+"/mcp", tc.header, tc.body)
			echo := do(t, http.MethodPost, ts.URL+"/mcp/echo", tc.header, tc.body)
			if tri.status != tc.wantStatus || echo.status != tc.wantStatus {
				t.Errorf("status /mcp %d, /mcp/echo %d, want %d", tri.status, echo.status, tc.wantStatus)
			}
			if strings.TrimSpace(tri.body) != strings.TrimSpace(echo.body) {
				t.Errorf("bodies differ:\n/mcp      %s\n/mcp/echo %s", tri.body, echo.body)
			}
			if tc.wantBody != "" && strings.TrimSpace(echo.body) != tc.wantBody {
				t.Errorf("/mcp/echo body %s, want %s", echo.body, tc.wantBody)
			}
			if tc.name == "-32700 on broken JSON" && !strings.Contains(echo.body, `"code":-32700`) {
				t.Errorf("/mcp/echo body %s, want -32700", echo.body)
			}
		})
	}

	// Each endpoint's tools are its own: Trident's are unknown at /mcp/echo.
	r := do(t, http.MethodPost, ts.URL+"/mcp/echo", mcpHeaders(),
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}`)
	if !strings.Contains(r.body, `"code":-32601`) || !strings.Contains(r.body, "no tool named 'get_service_info'") {
		t.Errorf("Trident's tool at /mcp/echo: %s, want -32601", r.body)
	}

	// Per-call metrics carry the endpoint's path; a refusal is counted
	// under the code its handler returned.
	for _, text := range []string{"hi", "refuse"} {
		do(t, http.MethodPost, ts.URL+"/mcp/echo", mcpHeaders(),
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"}}}`)
	}
	do(t, http.MethodPost, ts.URL+"/mcp", mcpHeaders(),
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}`)
	m := do(t, http.MethodGet, ts.URL+"/metrics", nil, "").body
	for _, want := range []string{
		`mcp_tool_calls_total{endpoint="/mcp/echo",outcome="ok",tool="echo"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp/echo",outcome="echo_refused",tool="echo"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp/echo",outcome="method_not_found",tool="unknown"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp",outcome="ok",tool="get_service_info"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestSecondEndpointHasItsOwnResource: in OAuth mode each endpoint answers
// the same 401, pointing at its own metadata document, and each document
// names its own resource (RFC 9728 section 3.1); /mcp keeps the root one.
func TestSecondEndpointHasItsOwnResource(t *testing.T) {
	ts := startHost(t, server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:1/auth/v1", RefreshInterval: -1}})
	for _, tc := range []struct{ endpoint, metadata string }{
		{"/mcp", "/.well-known/oauth-protected-resource"},
		{"/mcp/echo", "/.well-known/oauth-protected-resource/mcp/echo"},
	} {
		r := do(t, http.MethodPost, ts.URL+tc.endpoint, mcpHeaders(), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		wantChallenge := auth.Challenge(ts.URL + tc.metadata)
		if r.status != 401 || r.header.Get("WWW-Authenticate") != wantChallenge || !strings.Contains(r.body, `"code":-32001`) {
			t.Errorf("%s: %d %q %s, want 401 with %s", tc.endpoint, r.status, r.header.Get("WWW-Authenticate"), r.body, wantChallenge)
		}
		var doc struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		meta := do(t, http.MethodGet, ts.URL+tc.metadata, nil, "")
		if err := json.Unmarshal([]byte(meta.body), &doc); err != nil {
			t.Fatalf("%s: %v", tc.metadata, err)
		}
		want := struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}{ts.URL + tc.endpoint, []string{"http://127.0.0.1:1/auth/v1"}}
		if d := cmp.Diff(want, doc); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.metadata, d)
		}
	}
	// /mcp's path-suffixed document is served too, as before.
	if r := do(t, http.MethodGet, ts.URL+"/.well-known/oauth-protected-resource/mcp", nil, ""); !strings.Contains(r.body, `"resource":"`+ts.URL+`/mcp"`) {
		t.Errorf("/.well-known/oauth-protected-resource/mcp: %s", r.body)
	}
}

// TestEndpointsAreChecked: two endpoints on one path, or two claiming the
// root metadata document, stop New.
func TestEndpointsAreChecked(t *testing.T) {
	quiet := &server.Options{Logger: slog.New(slog.DiscardHandler)}
	if _, err := server.New(quiet, echoEndpoint(), echoEndpoint()); err == nil || !strings.Contains(err.Error(), "two endpoints at /mcp/echo") {
		t.Errorf("same path twice: %v", err)
	}
	a, b := echoEndpoint(), echoEndpoint()
	b.Path = "/mcp/other"
	a.RootMetadata, b.RootMetadata = true, true
	if _, err := server.New(quiet, a, b); err == nil || !strings.Contains(err.Error(), "RootMetadata") {
		t.Errorf("two root documents: %v", err)
	}
}

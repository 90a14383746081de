package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/servertest"
)

// Two endpoints of the front door's test kit, as the host's tests mount
// them: /mcp/kit has the root metadata document (as Trident's /mcp does)
// and a tool of its own, /mcp/other neither.
const (
	kitPath   = "/mcp/kit"
	otherPath = "/mcp/other"
	ownTool   = "only_at_kit"
)

func kits() (a, b *kit.Endpoint) {
	a, b = kit.New(kitPath), kit.New(otherPath)
	a.RootMetadata = true
	a.Tools = append(a.Tools, mcphttp.Tool{
		Def: &mcp.Tool{Name: ownTool, InputSchema: map[string]any{"type": "object"}},
		Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "mine"}}}, nil
		},
	})
	return a, b
}

// startKits serves both endpoints on one host.
func startKits(t *testing.T, opts *server.Options) string {
	t.Helper()
	a, b := kits()
	return servertest.Start(t, opts, a.Endpoint, b.Endpoint).URL
}

// TestEndpointsShareTheFrontDoor mounts two endpoints on one host and
// holds both to the same refusals, word for word, since one front door
// serves them; each endpoint's tools are its own, and /metrics counts each
// one's calls under its own path.
func TestEndpointsShareTheFrontDoor(t *testing.T) {
	url := startKits(t, nil)
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	accept := kit.Headers()
	accept.Set("Accept", "application/json")
	origin := kit.Headers()
	origin.Set("Origin", "https://evil.example")
	for _, tc := range []struct {
		name       string
		header     http.Header
		body       string
		wantStatus int
	}{
		{"406 without text/event-stream", accept, ping, 406},
		{"-32700 on broken JSON", kit.Headers(), `{"jsonrpc":`, 400},
		{"403 for a foreign Origin", origin, ping, 403},
		{"ping answers", kit.Headers(), ping, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := kit.Post(t, url+kitPath, tc.header, tc.body)
			b := kit.Post(t, url+otherPath, tc.header, tc.body)
			if a.Status != tc.wantStatus || b.Status != tc.wantStatus {
				t.Errorf("status %s %d, %s %d, want %d", kitPath, a.Status, otherPath, b.Status, tc.wantStatus)
			}
			if string(a.Body) != string(b.Body) {
				t.Errorf("bodies differ:\n%s %s\n%s %s", kitPath, a.Body, otherPath, b.Body)
			}
		})
	}

	own := kit.CallBody("2", ownTool, `{}`)
	if r := kit.Post(t, url+kitPath, kit.Headers(), own); !strings.Contains(string(r.Body), `"text":"mine"`) {
		t.Errorf("%s at %s: %s", ownTool, kitPath, r.Body)
	}
	if r := kit.Post(t, url+otherPath, kit.Headers(), own); !strings.Contains(string(r.Body), "no tool named '"+ownTool+"'") {
		t.Errorf("%s at %s: %s, want -32601", ownTool, otherPath, r.Body)
	}
	for _, args := range []string{`{"text":"hi"}`, `{}`} {
		kit.Post(t, url+otherPath, kit.Headers(), kit.CallBody("3", kit.ToolEcho, args))
	}
	kit.Post(t, url+kitPath, kit.Headers(), kit.CallBody("4", kit.ToolRefuse, `{}`))
	m := string(kit.Get(t, url+"/metrics").Body)
	for _, want := range []string{
		`mcp_tool_calls_total{endpoint="/mcp/kit",outcome="ok",tool="only_at_kit"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp/other",outcome="method_not_found",tool="unknown"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp/other",outcome="ok",tool="echo"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp/other",outcome="invalid_arguments",tool="echo"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp/kit",outcome="test_refused",tool="refuse"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestEachEndpointHasItsOwnResource: in OAuth mode each endpoint answers
// the same 401, pointing at its own metadata document, and each document
// names its own resource (RFC 9728 section 3.1); the endpoint with
// RootMetadata also has the root document, which its 401 names.
func TestEachEndpointHasItsOwnResource(t *testing.T) {
	url := startKits(t, &server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:1/auth/v1", RefreshInterval: -1}})
	type doc struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	for _, tc := range []struct{ endpoint, challenged string }{
		{kitPath, "/.well-known/oauth-protected-resource"},
		{otherPath, "/.well-known/oauth-protected-resource/mcp/other"},
	} {
		r := kit.Post(t, url+tc.endpoint, kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		want := auth.Challenge(url + tc.challenged)
		if r.Status != 401 || r.Header.Get("WWW-Authenticate") != want || !strings.Contains(string(r.Body), `"code":-32001`) {
			t.Errorf("%s: %d %q %s, want 401 with %s", tc.endpoint, r.Status, r.Header.Get("WWW-Authenticate"), r.Body, want)
		}
		for _, meta := range []string{tc.challenged, auth.MetadataPathFor(tc.endpoint)} {
			var got doc
			if err := json.Unmarshal(kit.Get(t, url+meta).Body, &got); err != nil {
				t.Fatalf("%s: %v", meta, err)
			}
			if d := cmp.Diff(doc{url + tc.endpoint, []string{"http://127.0.0.1:1/auth/v1"}}, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", meta, d)
			}
		}
	}
}

// TestEndpointsAreChecked: no endpoint, two endpoints on one path, or two
// claiming the root metadata document stop New, as does an endpoint the
// front door refuses.
func TestEndpointsAreChecked(t *testing.T) {
	quiet := &server.Options{Logger: slog.New(slog.DiscardHandler)}
	if _, err := server.New(quiet); err == nil {
		t.Error("no endpoint: New succeeded")
	}
	if _, err := server.New(quiet, kit.New(kitPath).Endpoint, kit.New(kitPath).Endpoint); err == nil || !strings.Contains(err.Error(), "two endpoints at /mcp/kit") {
		t.Errorf("same path twice: %v", err)
	}
	a, b := kit.New(kitPath), kit.New(otherPath)
	a.RootMetadata, b.RootMetadata = true, true
	if _, err := server.New(quiet, a.Endpoint, b.Endpoint); err == nil || !strings.Contains(err.Error(), "RootMetadata") {
		t.Errorf("two root documents: %v", err)
	}
	bad := kit.New("mcp/kit")
	if _, err := server.New(quiet, bad.Endpoint); err == nil || !strings.Contains(err.Error(), "mcp/kit") {
		t.Errorf("a path without its slash: %v", err)
	}
}

// TestSharedRegistryIsAnError: a registry that already holds the host's
// metrics (two hosts sharing one) fails New with an error, not a panic.
func TestSharedRegistryIsAnError(t *testing.T) {
	reg := prometheus.NewRegistry()
	servertest.New(t, &server.Options{Registry: reg}, kit.New(kitPath).Endpoint)
	if _, err := server.New(&server.Options{Registry: reg, Logger: slog.New(slog.DiscardHandler)}, kit.New(kitPath).Endpoint); err == nil || !strings.Contains(err.Error(), "Registry") {
		t.Errorf("second host on the same registry: err = %v, want an error naming Options.Registry", err)
	}
}

// TestHealthReadinessAndMetrics: /healthz is always 200; /readyz is 200
// once every endpoint is ready and 503 naming the one that is not; /metrics
// serves the host's registry: the runtime's series, every request by
// route, and each endpoint's own collectors under its endpoint label.
func TestHealthReadinessAndMetrics(t *testing.T) {
	a, b := kits()
	notReady := errors.New("warming up")
	var ready error
	b.Ready = func() error { return ready }
	things := prometheus.NewCounter(prometheus.CounterOpts{Name: "kit_things_total", Help: "Things the kit endpoint counts."})
	things.Add(3)
	b.Collectors = []prometheus.Collector{things}
	url := servertest.Start(t, nil, a.Endpoint, b.Endpoint).URL

	if r := kit.Get(t, url+"/healthz"); r.Status != 200 || string(r.Body) != "ok\n" {
		t.Errorf("/healthz: %d %q", r.Status, r.Body)
	}
	if r := kit.Get(t, url+"/readyz"); r.Status != 200 || string(r.Body) != "ready\n" {
		t.Errorf("/readyz: %d %q", r.Status, r.Body)
	}
	ready = notReady
	if r := kit.Get(t, url+"/readyz"); r.Status != 503 || !strings.Contains(string(r.Body), "/mcp/other: warming up") {
		t.Errorf("/readyz with an endpoint not ready: %d %q, want 503 naming it", r.Status, r.Body)
	}
	if r := kit.Get(t, url+"/healthz"); r.Status != 200 {
		t.Errorf("/healthz with an endpoint not ready: %d", r.Status)
	}
	ready = nil
	kit.Post(t, url+kitPath, kit.Headers(), kit.CallBody("1", kit.ToolEcho, `{"text":"hi"}`))
	kit.Get(t, url+"/nowhere")
	m := kit.Get(t, url+"/metrics")
	if !strings.HasPrefix(m.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("/metrics Content-Type %q", m.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`mcp_http_requests_total{code="200",route="/mcp/kit"} 1`,
		`mcp_http_requests_total{code="200",route="GET /healthz"} 2`,
		`mcp_http_requests_total{code="503",route="GET /readyz"} 1`,
		`mcp_http_requests_total{code="404",route="unmatched"} 1`,
		`mcp_http_request_duration_seconds_bucket{route="/mcp/kit",le="+Inf"} 1`,
		`mcp_http_in_flight_requests 1`, // the scrape itself
		`mcp_tool_calls_total{endpoint="/mcp/kit",outcome="ok",tool="echo"} 1`,
		`mcp_tool_call_duration_seconds_bucket{endpoint="/mcp/kit",outcome="ok",tool="echo",le="+Inf"} 1`,
		`kit_things_total{endpoint="/mcp/other"} 3`,
		`go_goroutines `,
		`process_open_fds `,
	} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestReadyzWaitsForSigningKeys: in OAuth mode /readyz is 503 until every
// endpoint's verifier has the issuer's signing keys (here never: the
// issuer does not answer), while /healthz is 200.
func TestReadyzWaitsForSigningKeys(t *testing.T) {
	url := startKits(t, &server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:1/auth/v1", RefreshInterval: -1}})
	if r := kit.Get(t, url+"/readyz"); r.Status != 503 || !strings.HasPrefix(string(r.Body), "not ready: ") {
		t.Errorf("/readyz before keys load: %d %q, want 503", r.Status, r.Body)
	}
	if r := kit.Get(t, url+"/healthz"); r.Status != 200 {
		t.Errorf("/healthz: %d", r.Status)
	}
}

// TestAccessLog: the host writes one record per request, with what the
// front door learnt of an MCP call (its method and tool, whether it
// streamed, whether the fast path answered it), and never a header's or an
// argument's value.
func TestAccessLog(t *testing.T) {
	logs := &kit.Records{}
	a, b := kits()
	url := servertest.Start(t, &server.Options{Logger: slog.New(logs)}, a.Endpoint, b.Endpoint).URL
	h := kit.Headers()
	h.Set("Authorization", "Bearer secret-token-value")
	kit.Post(t, url+kitPath, h, kit.CallBody("1", kit.ToolEcho, `{"text":"secret-argument"}`))
	kit.Post(t, url+kitPath, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`)
	kit.Post(t, url+otherPath, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	kit.Get(t, url+"/healthz")
	var lines []string
	for _, l := range logs.Lines() {
		if strings.HasPrefix(l, "http request ") {
			lines = append(lines, l)
		}
	}
	want := []string{
		"method=POST path=/mcp/kit status=200 ",
		"method=POST path=/mcp/kit status=200 ",
		"method=POST path=/mcp/other status=200 ",
		"method=GET path=/healthz status=200 ",
	}
	wantCall := []string{
		"rpc_method=tools/call tool=echo sse=false fast=true",
		"rpc_method=tools/call tool=progress sse=true fast=false",
		"rpc_method=tools/list",
		"",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d request records, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if !strings.Contains(l, want[i]) || !strings.Contains(l, " duration=") || !strings.Contains(l, " remote=127.0.0.1:") ||
			(wantCall[i] != "" && !strings.HasSuffix(l, wantCall[i])) || (wantCall[i] == "" && strings.Contains(l, "rpc_method")) {
			t.Errorf("record %d:\n %s\nwant %s… %s", i, l, want[i], wantCall[i])
		}
	}
	if all := logs.String(); strings.Contains(all, "secret-token-value") || strings.Contains(all, "secret-argument") {
		t.Errorf("the log carries a header's or an argument's value:\n%s", all)
	}
}

// TestOptionsAreChecked: a misconfigured host stops at New with the
// variable to fix; nil Options are every default, the public base URL
// http://localhost:8080 included.
func TestOptionsAreChecked(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		opts server.Options
		want string
	}{
		{server.Options{PublicBaseURL: "localhost:8080"}, "PUBLIC_BASE_URL"},
		{server.Options{AllowedOrigins: []string{"https://app.example/path"}}, "ALLOWED_ORIGINS"},
		{server.Options{MaxBodyBytes: -1}, "MAX_BODY_BYTES"},
	} {
		tc.opts.Logger = quiet
		if _, err := server.New(&tc.opts, kit.New(kitPath).Endpoint); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.opts, err, tc.want)
		}
	}
	ep := kit.New(kitPath)
	ep.RootMetadata = true
	srv, err := server.New(nil, ep.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, auth.MetadataPath, nil))
	if !strings.Contains(rec.Body.String(), `"resource":"http://localhost:8080/mcp/kit"`) {
		t.Errorf("the default base URL: %s", rec.Body)
	}
}

// TestCloseClosesEndpoints: the host's Close releases what each endpoint
// started, and reports their errors.
func TestCloseClosesEndpoints(t *testing.T) {
	a, b := kits()
	var closed []string
	a.Close = func() error { closed = append(closed, kitPath); return nil }
	b.Close = func() error { closed = append(closed, otherPath); return errors.New("the store would not close") }
	srv, err := server.New(&server.Options{Logger: slog.New(slog.DiscardHandler)}, a.Endpoint, b.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err == nil || !strings.Contains(err.Error(), "the store would not close") {
		t.Errorf("Close = %v, want the endpoint's error", err)
	}
	if d := cmp.Diff([]string{kitPath, otherPath}, closed); d != "" {
		t.Errorf("endpoints closed (-want +got):\n%s", d)
	}
}

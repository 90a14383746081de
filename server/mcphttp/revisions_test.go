package mcphttp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// echoEndpoint is an endpoint with one tool, "echo", that refuses any call
// without a "text" argument with an ArgumentError.
func echoEndpoint(policy mcphttp.ArgumentErrorPolicy) *mcphttp.Endpoint {
	return &mcphttp.Endpoint{
		Path:           "/mcp/echo",
		Implementation: &mcp.Implementation{Name: "echo", Version: "1"},
		ArgumentErrors: policy,
		Tools: []mcphttp.Tool{{
			Def: &mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if !strings.Contains(string(req.Params.Arguments), `"text"`) {
					return nil, &mcphttp.ArgumentError{Field: "text", Reason: "Required", Structured: map[string]any{"code": "invalid_arguments"}}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			},
		}},
	}
}

// TestArgumentErrorPolicy checks that the answer to arguments a tool
// refuses follows the endpoint's policy and, under the default policy, the
// request's revision; and that every such call is counted under
// invalid_arguments.
func TestArgumentErrorPolicy(t *testing.T) {
	const rpcError = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: text: Required"}}`
	const result = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid params: text: Required"}],` +
		`"structuredContent":{"code":"invalid_arguments"},"isError":true}}`
	tests := []struct {
		policy   mcphttp.ArgumentErrorPolicy
		revision string // MCP-Protocol-Version; "" sends none
		want     string
	}{
		{mcphttp.ArgumentErrorsByRevision, "", rpcError},
		{mcphttp.ArgumentErrorsByRevision, "2025-03-26", rpcError},
		{mcphttp.ArgumentErrorsByRevision, mcphttp.Revision20250618, rpcError},
		{mcphttp.ArgumentErrorsByRevision, mcphttp.Revision20251125, result},
		{mcphttp.ArgumentErrorsAsResult, "", result},
		{mcphttp.ArgumentErrorsAsResult, mcphttp.Revision20250618, result},
		{mcphttp.ArgumentErrorsAsResult, mcphttp.Revision20251125, result},
	}
	for _, tt := range tests {
		reg := prometheus.NewRegistry()
		m, err := metrics.New(reg)
		if err != nil {
			t.Fatal(err)
		}
		h, err := mcphttp.New(echoEndpoint(tt.policy), mcphttp.Config{
			PublicBaseURL: "http://127.0.0.1", MaxBodyBytes: 1 << 20, BodyReadTimeout: time.Minute,
			Logger: slog.New(slog.DiscardHandler), Metrics: m,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.revision != "" {
			req.Header.Set("MCP-Protocol-Version", tt.revision)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ts.Close()
		if d := cmp.Diff(tt.want, strings.TrimSpace(string(body))); d != "" {
			t.Errorf("policy %d, revision %q (-want +got):\n%s", tt.policy, tt.revision, d)
		}
		if got := toolCalls(t, reg); got != "/mcp/echo echo invalid_arguments 1" {
			t.Errorf("policy %d, revision %q: tool calls counted as %q", tt.policy, tt.revision, got)
		}
	}
}

// toolCalls renders the tool-call counter's series as "endpoint tool
// outcome count" lines.
func toolCalls(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range families {
		if f.GetName() != "mcp_tool_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			lines = append(lines, fmt.Sprintf("%s %s %s %g", l["endpoint"], l["tool"], l["outcome"], m.GetCounter().GetValue()))
		}
	}
	return strings.Join(lines, "\n")
}

// TestProtocolVersions lists the revisions newest first, the stateless one
// included, and hands out a copy.
func TestProtocolVersions(t *testing.T) {
	want := []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	got := mcphttp.ProtocolVersions()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got[0] = "changed"
	if mcphttp.ProtocolVersions()[0] != want[0] {
		t.Error("ProtocolVersions returned the package's own slice")
	}
}

// TestProtocolVersionsNarrowed serves only the specification's revision and
// older: a 2025-11-25 client's initialize negotiates 2025-06-18, a
// 2025-11-25 header is refused with the served list, and discover is gone
// with 2026-07-28; a revision the front door does not speak is refused at
// construction.
func TestProtocolVersionsNarrowed(t *testing.T) {
	cfg := mcphttp.Config{
		PublicBaseURL: "http://127.0.0.1", MaxBodyBytes: 1 << 20, BodyReadTimeout: time.Minute,
		Logger: slog.New(slog.DiscardHandler), ProtocolVersions: []string{"2024-11-05", mcphttp.Revision20250618},
	}
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Metrics = m
	h, err := mcphttp.New(echoEndpoint(mcphttp.ArgumentErrorsByRevision), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: mcphttp.Revision20251125})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != mcphttp.Revision20250618 {
		t.Errorf("a 2025-11-25 initialize negotiated %q, want 2025-06-18", got)
	}
	cs.Close()

	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcphttp.Revision20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Unsupported protocol version: 2025-11-25",` +
		`"data":{"supported":["2025-06-18","2024-11-05"],"requested":"2025-11-25"}}}`
	if resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(string(body)) != want {
		t.Errorf("a served-elsewhere revision: %d %s\nwant 400 %s", resp.StatusCode, body, want)
	}

	cfg.ProtocolVersions = []string{"2025-13-01"}
	if _, err := mcphttp.New(echoEndpoint(mcphttp.ArgumentErrorsByRevision), cfg, nil); err == nil || !strings.Contains(err.Error(), "2025-13-01") {
		t.Errorf("an unknown revision: %v, want an error naming it", err)
	}
}

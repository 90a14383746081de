package mcphttp_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestOriginAndHost holds the front door to its DNS-rebinding rules:
// browser Origins outside the configuration and foreign Host names on a
// loopback listener get 403; allowed origins get CORS headers, preflight
// included. Neither a refused request nor a preflight reaches a tool.
func TestOriginAndHost(t *testing.T) {
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	cfg.PublicBaseURL = "https://taxis.example"
	public := kit.Serve(t, ep.Endpoint, cfg).URL
	cfg, _ = kit.Config(t)
	cfg.AllowedOrigins = []string{"https://app.example"}
	listed := kit.Serve(t, ep.Endpoint, cfg).URL
	cfg, _ = kit.Config(t)
	cfg.AllowedOrigins = []string{"*"}
	anyOrigin := kit.Serve(t, ep.Endpoint, cfg).URL

	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	tests := []struct {
		name       string
		url        string
		method     string
		header     http.Header
		host       string
		wantStatus int
		wantCORS   string // Access-Control-Allow-Origin
	}{
		{"no Origin (curl, SDKs)", public, http.MethodPost, nil, "", 200, ""},
		{"loopback origin", public, http.MethodPost, http.Header{"Origin": {"http://localhost:6274"}}, "", 200, "http://localhost:6274"},
		{"public base URL's origin", public, http.MethodPost, http.Header{"Origin": {"https://taxis.example"}}, "", 200, "https://taxis.example"},
		{"foreign origin", public, http.MethodPost, http.Header{"Origin": {"https://evil.example"}}, "", 403, ""},
		{"opaque origin", public, http.MethodPost, http.Header{"Origin": {"null"}}, "", 403, ""},
		{"rebound Host on a loopback listener", public, http.MethodPost, nil, "evil.example", 403, ""},
		{"public host forwarded by a local proxy", public, http.MethodPost, nil, "taxis.example", 200, ""},
		{"listed origin", listed, http.MethodPost, http.Header{"Origin": {"https://app.example"}}, "", 200, "https://app.example"},
		{"a listed origin's host forwarded by a local proxy", listed, http.MethodPost, nil, "app.example", 200, ""},
		{"a list replaces the loopback default", listed, http.MethodPost, http.Header{"Origin": {"http://localhost:6274"}}, "", 403, ""},
		{"* allows any origin", anyOrigin, http.MethodPost, http.Header{"Origin": {"https://evil.example"}}, "", 200, "https://evil.example"},
		{"preflight from an allowed origin", public, http.MethodOptions, http.Header{"Origin": {"http://127.0.0.1:3000"}, "Access-Control-Request-Method": {"POST"}}, "", 204, "http://127.0.0.1:3000"},
		{"preflight from a foreign origin", public, http.MethodOptions, http.Header{"Origin": {"https://evil.example"}}, "", 403, ""},
		{"plain OPTIONS", public, http.MethodOptions, nil, "", 204, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url, strings.NewReader(ping))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = kit.Headers()
			for k, v := range tt.header {
				req.Header[k] = v
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.wantCORS {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.wantCORS)
			}
			if tt.wantCORS != "" && resp.Header.Get("Vary") != "Origin" {
				t.Errorf("Vary = %q, want Origin", resp.Header.Get("Vary"))
			}
			if tt.wantStatus == 403 {
				want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: origin not allowed"}}`
				if d := kit.JSONDiff(t, []byte(want), body); d != "" {
					t.Errorf("403 body (-want +got):\n%s", d)
				}
			}
			if tt.method == http.MethodOptions && tt.wantStatus == 204 {
				if tt.wantCORS != "" && resp.Header.Get("Access-Control-Allow-Methods") != "POST, OPTIONS" {
					t.Errorf("preflight Access-Control-Allow-Methods = %q", resp.Header.Get("Access-Control-Allow-Methods"))
				}
				if tt.wantCORS != "" && !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "MCP-Protocol-Version") {
					t.Errorf("preflight Access-Control-Allow-Headers = %q, want MCP-Protocol-Version among them", resp.Header.Get("Access-Control-Allow-Headers"))
				}
				if tt.wantCORS == "" && resp.Header.Get("Allow") != "POST, OPTIONS" {
					t.Errorf("OPTIONS Allow = %q, want POST, OPTIONS", resp.Header.Get("Allow"))
				}
			}
		})
	}
	if n := ep.Calls(); n != 0 {
		t.Errorf("tools ran %d times; these requests call none", n)
	}
}

package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// TestOAuthToolSeesCaller checks that in OAuth mode a tool finds the
// verified caller both ways the auth package offers (CallerFrom on its
// context, CallerFromTokenInfo on req.Extra.TokenInfo) whichever path
// answers: the fast path, which the SDK bridge does not wrap, and the
// go-sdk's handlers (JSON, and the event stream of a call with a progress
// token), which it does. A call without a token is refused before either.
func TestOAuthToolSeesCaller(t *testing.T) {
	iss := devissuertest.New(t, devissuer.Options{})
	const resource = "http://127.0.0.1/mcp/who"
	token, err := iss.MintAccessToken(devissuer.TokenClaims{Subject: "user-1", ClientID: "client-1", Resource: resource,
		ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier(auth.Config{Issuer: iss.IssuerURL(), HTTPClient: iss.HTTP.Client(), ResourceURL: resource,
		ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp/who", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := v.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	ep := &mcphttp.Endpoint{
		Path:           "/mcp/who",
		Implementation: &mcp.Implementation{Name: "who", Version: "1"},
		Tools: []mcphttp.Tool{{
			Def: &mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var fromCtx, fromTI string
				if c, ok := auth.CallerFrom(ctx); ok {
					fromCtx = c.UserID() + "/" + c.ClientID()
				}
				if c, ok := auth.CallerFromTokenInfo(req.Extra.TokenInfo); ok {
					fromTI = c.UserID() + "/" + c.ClientID()
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fromCtx + " " + fromTI}}}, nil
			},
		}},
	}
	for _, fast := range []bool{true, false} {
		m, err := metrics.New(prometheus.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		h, err := mcphttp.New(ep, mcphttp.Config{
			PublicBaseURL: "http://127.0.0.1", MaxBodyBytes: 1 << 20, BodyReadTimeout: time.Minute,
			Logger: slog.New(slog.DiscardHandler), Metrics: m, Verifier: v, DisableFastPath: !fast,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"progressToken":"p"}}}`,
		} {
			for _, tok := range []string{token, ""} {
				req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if tok != "" {
					req.Header.Set("Authorization", "Bearer "+tok)
				}
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if tok == "" {
					if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
						t.Errorf("fast=%v %s without a token: %d %q", fast, body, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
					}
					continue
				}
				text := string(got)
				if i := strings.Index(text, "data: "); i >= 0 { // the event stream's one message
					text = strings.TrimSpace(text[i+len("data: "):])
				}
				var reply struct {
					Result mcp.CallToolResult `json:"result"`
				}
				if resp.StatusCode != 200 || json.Unmarshal([]byte(text), &reply) != nil || len(reply.Result.Content) != 1 {
					t.Fatalf("fast=%v %s: %d %s", fast, body, resp.StatusCode, got)
				}
				if who := reply.Result.Content[0].(*mcp.TextContent).Text; who != "user-1/client-1 user-1/client-1" {
					t.Errorf("fast=%v %s: the tool saw %q, want the caller from the context and from TokenInfo", fast, body, who)
				}
			}
		}
	}
}

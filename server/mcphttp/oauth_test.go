package mcphttp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// The resource and metadata URL of the endpoint the OAuth tests guard.
const (
	resource    = "http://127.0.0.1/mcp/kit"
	metadataURL = "http://127.0.0.1/.well-known/oauth-protected-resource/mcp/kit"
)

// verifier starts the dev issuer and a verifier for resource that has its
// signing keys; mint makes a token for resource with the scopes given.
func verifier(t *testing.T) (v *auth.Verifier, mint func(scope string) string) {
	t.Helper()
	iss := devissuertest.New(t, devissuer.Options{})
	v, err := auth.NewVerifier(auth.Config{Issuer: iss.IssuerURL(), HTTPClient: iss.HTTP.Client(), ResourceURL: resource,
		ResourceMetadataURL: metadataURL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := v.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return v, func(scope string) string {
		token, err := iss.MintAccessToken(devissuer.TokenClaims{Subject: "user-1", ClientID: "client-1", Resource: resource,
			Scope: scope, ExpiresAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
}

func bearer(token string) http.Header {
	h := kit.Headers()
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return h
}

// TestOAuthToolSeesCaller checks that in OAuth mode a tool finds the
// verified caller both ways the auth package offers (CallerFrom on its
// context, CallerFromTokenInfo on req.Extra.TokenInfo) whichever path
// answers: the fast path, which the SDK bridge does not wrap, and the
// go-sdk's handlers (JSON, and the event stream of a call with a progress
// token), which it does. A call without a token is refused before either.
func TestOAuthToolSeesCaller(t *testing.T) {
	v, mint := verifier(t)
	token := mint("")
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
		cfg, _ := kit.Config(t)
		cfg.Verifier, cfg.DisableFastPath = v, !fast
		url := kit.Serve(t, ep, cfg).URL
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"progressToken":"p"}}}`,
		} {
			for _, tok := range []string{token, ""} {
				r := kit.Post(t, url, bearer(tok), body)
				if tok == "" {
					if r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != auth.Challenge(metadataURL) {
						t.Errorf("fast=%v %s without a token: %d %q", fast, body, r.Status, r.Header.Get("WWW-Authenticate"))
					}
					continue
				}
				text := string(r.Body)
				if i := strings.Index(text, "data: "); i >= 0 { // the event stream's one message
					text = strings.TrimSpace(text[i+len("data: "):])
				}
				var reply struct {
					Result mcp.CallToolResult `json:"result"`
				}
				if r.Status != 200 || json.Unmarshal([]byte(text), &reply) != nil || len(reply.Result.Content) != 1 {
					t.Fatalf("fast=%v %s: %d %s", fast, body, r.Status, r.Body)
				}
				if who := reply.Result.Content[0].(*mcp.TextContent).Text; who != "user-1/client-1 user-1/client-1" {
					t.Errorf("fast=%v %s: the tool saw %q, want the caller from the context and from TokenInfo", fast, body, who)
				}
			}
		}
	}
}

// TestToolScopes: in OAuth mode a tool the endpoint's ToolScopes names
// needs its scope in the caller's token: without it the call gets 403 with
// the RFC 6750 insufficient_scope challenge and the catalogue's body, and
// its tool does not run; with it, or for a tool that needs none, the call
// is served. Public mode ignores the scopes. Both paths.
func TestToolScopes(t *testing.T) {
	v, mint := verifier(t)
	for _, fast := range []bool{true, false} {
		ep := kit.New("/mcp/kit")
		ep.ToolScopes = map[string]string{kit.ToolEcho: "kit:write"}
		cfg, _ := kit.Config(t)
		cfg.Verifier, cfg.DisableFastPath = v, !fast
		url := kit.Serve(t, ep.Endpoint, cfg).URL
		echo := kit.CallBody("1", kit.ToolEcho, `{"text":"hi"}`)
		r := kit.Post(t, url, bearer(mint("other")), echo)
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: the token lacks the scope kit:write"}}`
		if r.Status != 403 || r.Header.Get("WWW-Authenticate") != mcphttp.InsufficientScopeChallenge("kit:write", metadataURL) ||
			kit.JSONDiff(t, []byte(want), r.Body) != "" {
			t.Errorf("fast=%v without the scope: %d %q %s", fast, r.Status, r.Header.Get("WWW-Authenticate"), r.Body)
		}
		if ep.Calls() != 0 {
			t.Errorf("fast=%v: the tool ran without its scope", fast)
		}
		if r := kit.Post(t, url, bearer(mint("other kit:write")), echo); r.Status != 200 || !strings.Contains(string(r.Body), `"text":"hi"`) {
			t.Errorf("fast=%v with the scope: %d %s", fast, r.Status, r.Body)
		}
		if r := kit.Post(t, url, bearer(mint("")), kit.CallBody("1", kit.ToolStructured, `{}`)); r.Status != 200 {
			t.Errorf("fast=%v a tool that needs no scope: %d %s", fast, r.Status, r.Body)
		}
	}
	ep := kit.New("/mcp/kit")
	ep.ToolScopes = map[string]string{kit.ToolEcho: "kit:write"}
	cfg, _ := kit.Config(t)
	if r := kit.Post(t, kit.Serve(t, ep.Endpoint, cfg).URL, kit.Headers(), kit.CallBody("1", kit.ToolEcho, `{"text":"hi"}`)); r.Status != 200 {
		t.Errorf("public mode: %d %s, want the scopes ignored", r.Status, r.Body)
	}
	if got := ep.ScopesSupported(); len(got) != 1 || got[0] != "kit:write" {
		t.Errorf("ScopesSupported = %q", got)
	}
}

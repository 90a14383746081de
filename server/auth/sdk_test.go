package auth

// End to end with the go-sdk's Streamable HTTP handler: the middleware in
// front, a tool behind, real HTTP over loopback.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type whoamiOut struct {
	FromContext   string `json:"fromContext"`
	FromTokenInfo string `json:"fromTokenInfo"`
	ClientID      string `json:"clientId"`
}

func newMCPServer(t *testing.T, h *harness, opts *mcp.StreamableHTTPOptions) *httptest.Server {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "auth-test", Version: "0.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Description: "echo the caller"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoamiOut, error) {
			var out whoamiOut
			if c, ok := CallerFrom(ctx); ok {
				out.FromContext = c.UserID()
			}
			if c, ok := CallerFromTokenInfo(req.Extra.TokenInfo); ok {
				out.FromTokenInfo = c.UserID()
				out.ClientID = c.ClientID()
			}
			return nil, out, nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h.v.Middleware(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// post sends one JSON-RPC message; token "" sends no Authorization.
func post(t *testing.T, url, token, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const callWhoami = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

func TestSDKStatelessToolSeesCaller(t *testing.T) {
	h := newHarness(t)
	srv := newMCPServer(t, h, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})

	resp := post(t, srv.URL+"/mcp", "", "", callWhoami)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || string(body) != wantBody || resp.Header.Get("WWW-Authenticate") != wantChallenge {
		t.Errorf("anonymous call: %d %q %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	resp = post(t, srv.URL+"/mcp", mint(t, h.key, h.claims()), "", callWhoami)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("authenticated call: %d %s", resp.StatusCode, body)
	}
	var rpc struct {
		Result struct {
			StructuredContent whoamiOut `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	want := whoamiOut{FromContext: testSubject, FromTokenInfo: testSubject, ClientID: testClientID}
	if diff := cmp.Diff(want, rpc.Result.StructuredContent); diff != "" {
		t.Errorf("tool saw (-want +got):\n%s", diff)
	}
}

func TestSDKStatefulSessionBoundToUser(t *testing.T) {
	h := newHarness(t)
	srv := newMCPServer(t, h, &mcp.StreamableHTTPOptions{JSONResponse: true})
	alice := mint(t, h.key, h.claims())
	mallory := mint(t, h.key, with(h.claims(), "sub", "mallory"))

	resp := post(t, srv.URL+"/mcp", alice, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("initialize: %d session %q %s", resp.StatusCode, session, b)
	}
	post(t, srv.URL+"/mcp", alice, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// The SDK sees the TokenInfo our middleware installed, so another user's
	// valid token cannot ride Alice's session.
	if resp := post(t, srv.URL+"/mcp", mallory, session, callWhoami); resp.StatusCode != http.StatusForbidden {
		t.Errorf("other user's token on the session: status %d, want 403", resp.StatusCode)
	}
	if resp := post(t, srv.URL+"/mcp", alice, session, callWhoami); resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("owner's call on the session: %d %s", resp.StatusCode, b)
	}
}

package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// The real server is built on go-sdk's Streamable HTTP handler; this test
// checks the client against that handler in both of its modes (the real
// server runs only the stateless one), with each handshake policy.
func TestGoSDKServerInterop(t *testing.T) {
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "interop", Version: "0.0.0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: mcptypes.ToolGetServiceInfo, Description: "info"},
			func(ctx context.Context, req *mcp.CallToolRequest, in mcptypes.GetServiceInfoInput) (*mcp.CallToolResult, mcptypes.GetServiceInfoOutput, error) {
				if req.Params.GetProgressToken() != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 0.5, Message: "half way"})
				}
				return nil, mcptypes.GetServiceInfoOutput{Brand: "Trident Taxis"}, nil
			})
		return s
	}
	for _, stateless := range []bool{true, false} {
		for _, hs := range []client.Handshake{client.HandshakeAuto, client.HandshakeAlways} {
			t.Run(fmt.Sprintf("stateless=%v/handshake=%d", stateless, hs), func(t *testing.T) {
				srv := newServer()
				h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless})
				hs2 := httptest.NewServer(h)
				defer hs2.Close()
				c, err := trident.New(hs2.URL, client.WithHandshake(hs), client.WithHTTPClient(hs2.Client()))
				if err != nil {
					t.Fatal(err)
				}
				var progress []string
				for i := range 2 {
					out, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{},
						client.WithProgress(func(p client.Progress) { progress = append(progress, p.Message) }))
					if err != nil {
						t.Fatalf("call %d: %v", i, err)
					}
					if out.Brand != "Trident Taxis" {
						t.Errorf("call %d: brand %q", i, out.Brand)
					}
				}
				if len(progress) != 2 || progress[0] != "half way" {
					t.Errorf("progress = %v, want one frame per call", progress)
				}
				if !stateless && c.SessionID() == "" {
					t.Error("stateful server: no session kept")
				}
			})
		}
	}
}

package mcphttp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestProgressStreams: a call whose params._meta.progressToken is set is
// answered as text/event-stream, its notifications/progress frames (with
// the token, string or number, as sent) and then the result, which is the
// JSON reply the same call gets without a token; a null token is no token.
func TestProgressStreams(t *testing.T) {
	_, url := serveKit(t)
	plain := kit.Post(t, url, kit.Headers(), kit.CallBody("1", kit.ToolProgress, `{}`))
	if plain.Status != 200 || plain.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("without a token: %d %q", plain.Status, plain.Header.Get("Content-Type"))
	}
	for _, token := range []string{`"tok-1"`, `7`} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":` + token + `}}}`
		r := kit.Post(t, url, kit.Headers(), body)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("token %s: status %d, Content-Type %q; want 200 text/event-stream", token, r.Status, r.Header.Get("Content-Type"))
		}
		frames := kit.Frames(t, r.Body)
		if len(frames) != len(kit.ProgressSteps)+1 {
			t.Fatalf("token %s: %d frames, want %d progress and the result:\n%s", token, len(frames), len(kit.ProgressSteps), r.Body)
		}
		var tok any
		json.Unmarshal([]byte(token), &tok)
		for i, f := range frames[:len(kit.ProgressSteps)] {
			if f["method"] != "notifications/progress" {
				t.Fatalf("frame %d method = %v", i, f["method"])
			}
			p := f["params"].(map[string]any)
			got := map[string]any{"token": p["progressToken"], "progress": p["progress"], "total": p["total"], "message": p["message"]}
			want := map[string]any{"token": tok, "progress": float64(i), "total": float64(len(kit.ProgressSteps)), "message": kit.ProgressSteps[i]}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("token %s, progress frame %d (-want +got):\n%s", token, i, d)
			}
		}
		final, _ := json.Marshal(frames[len(frames)-1])
		if d := kit.JSONDiff(t, plain.Body, final); d != "" {
			t.Errorf("token %s: the final frame differs from the JSON reply (-want +got):\n%s", token, d)
		}
	}
	null := kit.Post(t, url, kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":null}}}`)
	if null.Header.Get("Content-Type") != "application/json" || kit.JSONDiff(t, plain.Body, null.Body) != "" {
		t.Errorf("a null token: %q %s, want the JSON reply", null.Header.Get("Content-Type"), null.Body)
	}
	// The front door tells the host which reply streamed.
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	h, err := mcphttp.New(ep.Endpoint, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, info := kit.Send(h, kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`); !info.Stream || info.Fast || info.Tool != kit.ToolProgress || info.Method != "tools/call" {
		t.Errorf("CallInfo of a streamed call: %+v", info)
	}
}

// TestSDKClientInitializesFirst drives the endpoint with the go-sdk's
// client at 2025-06-18, which initializes, sends notifications/initialized,
// lists the tools and calls one with progress: stateless, the front door
// answers the handshake without a session id and every later call without
// one.
func TestSDKClientInitializesFirst(t *testing.T) {
	ep, url := serveKit(t)
	init := kit.Post(t, url, kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"8"}}}`)
	if init.Status != 200 || init.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(init.Body), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize: %d session %q %s", init.Status, init.Header.Get("Mcp-Session-Id"), init.Body)
	}
	ctx := context.Background()
	// The client dispatches notifications on its own goroutines, so they
	// may land after CallTool returns: collect them through a channel.
	progressc := make(chan string, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progressc <- req.Params.Message
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: mcphttp.Revision20250618})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != mcphttp.Revision20250618 {
		t.Errorf("negotiated protocol %q, want 2025-06-18", got)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != ep.Implementation.Name {
		t.Errorf("server name %q, want %q", got, ep.Implementation.Name)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != len(kit.Tools) {
		t.Fatalf("ListTools: %v, %+v", err, lt)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	if d := cmp.Diff(slices.Sorted(slices.Values(kit.Tools)), names); d != "" {
		t.Errorf("tools/list, which the go-sdk sorts by name (-want +got):\n%s", d)
	}
	params := &mcp.CallToolParams{Name: kit.ToolProgress, Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("CallTool: %v, %+v", err, res)
	}
	var progress []string
	for len(progress) < len(kit.ProgressSteps) {
		select {
		case m := <-progressc:
			progress = append(progress, m)
		case <-time.After(10 * time.Second): // a guard against hanging, not a timing
			t.Fatalf("only %d progress notifications arrived: %q", len(progress), progress)
		}
	}
	if d := cmp.Diff(kit.ProgressSteps, progress); d != "" {
		t.Errorf("progress messages (-want +got):\n%s", d)
	}
}

package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// The front door's features beside tools, each proved here on a small
// endpoint of this file's own over real HTTP on loopback; the official
// conformance suite scores them against server/conformancefixtures
// (make test-mcp-conformance).

// featureEndpoint has one of each: a tool that asks for the caller's name
// (SEP-2322), a prompt and a resource that ask too, a plain resource, a
// resource template, completions, task tools (one released by the test
// through release), changes and, as asked, sessions.
type featureEndpoint struct {
	*mcphttp.Endpoint
	changes *mcphttp.Changes
	release chan struct{} // closing it lets the "wait" task finish
}

func newFeatureEndpoint(sessions mcphttp.SessionPolicy) *featureEndpoint {
	f := &featureEndpoint{changes: new(mcphttp.Changes), release: make(chan struct{})}
	obj := map[string]any{"type": "object"}
	nameOf := func(answers mcp.InputResponseMap, key string) string {
		if r, ok := answers[key].(*mcp.ElicitResult); ok && r.Action == "accept" {
			s, _ := r.Content["name"].(string)
			return s
		}
		return ""
	}
	askName := mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}}
	hello := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	f.Endpoint = &mcphttp.Endpoint{
		Path:           "/mcp/features",
		Implementation: &mcp.Implementation{Name: "features", Version: "1"},
		Sessions:       sessions,
		Changes:        f.changes,
		Tools: []mcphttp.Tool{
			{
				Def:        &mcp.Tool{Name: "ask_name", InputSchema: obj},
				NeedsInput: true,
				Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if n := nameOf(req.Params.InputResponses, "name"); n != "" && req.Params.RequestState == "asked" {
						return hello("Hello, " + n), nil
					}
					return &mcp.CallToolResult{InputRequests: askName, RequestState: "asked"}, nil
				},
			},
			{
				Def:        &mcp.Tool{Name: "other", InputSchema: obj},
				NeedsInput: true,
				Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return hello("other got state " + req.Params.RequestState), nil
				},
			},
			{
				Def: &mcp.Tool{Name: "say", InputSchema: obj},
				Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "said"})
					return hello("done"), nil
				},
			},
			{
				Def:  &mcp.Tool{Name: "wait", InputSchema: obj},
				Task: mcphttp.TaskOptional,
				Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcphttp.RunAsTask(ctx, req, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						select {
						case <-f.release:
							return hello("released"), nil
						case <-ctx.Done():
							return nil, &mcphttp.ToolError{Code: "STOPPED", Text: "stopped"}
						}
					})
				},
			},
			{
				Def:  &mcp.Tool{Name: "ask_in_task", InputSchema: obj},
				Task: mcphttp.TaskRequired,
				Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcphttp.RunAsTask(ctx, req, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						if n := nameOf(req.Params.InputResponses, "name"); n != "" {
							return hello("Hello from the task, " + n), nil
						}
						return &mcp.CallToolResult{InputRequests: askName}, nil
					})
				},
			},
		},
		Prompts: []mcphttp.Prompt{
			{
				Def: &mcp.Prompt{Name: "greeting", Description: "greets", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
				Handler: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Greet " + req.Params.Arguments["who"]}}}}, nil
				},
			},
			{
				Def: &mcp.Prompt{Name: "ask_prompt", Description: "asks first"},
				Handler: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					if n := nameOf(req.Params.InputResponses, "name"); n != "" {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "For " + n}}}}, nil
					}
					return &mcp.GetPromptResult{InputRequests: askName, RequestState: "prompt-asked"}, nil
				},
			},
		},
		Resources: []mcphttp.Resource{{
			Def: &mcp.Resource{URI: "test://doc", Name: "doc", MIMEType: "text/plain"},
			Handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "the doc"}}}, nil
			},
		}},
		ResourceTemplates: []mcphttp.ResourceTemplate{{
			Def: &mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", MIMEType: "text/plain"},
			Handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/")}}}, nil
			},
		}},
		Complete: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "-completed"}, Total: 1}}, nil
		},
	}
	return f
}

// serveEndpoint mounts ep behind the front door on a loopback server,
// sealing requestState with keys (none: the process's own).
func serveEndpoint(t *testing.T, ep *mcphttp.Endpoint, keys ...[]byte) *httptest.Server {
	t.Helper()
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcphttp.New(ep, mcphttp.Config{
		PublicBaseURL: "http://127.0.0.1", MaxBodyBytes: 1 << 20, BodyReadTimeout: time.Minute,
		Logger: slog.New(slog.DiscardHandler), Metrics: m, RequestStateKeys: keys,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// rpc is one JSON-RPC exchange's reply, read from either reply type: the
// message whose id is the request's (the last frame of an event stream).
type rpc struct {
	status  int
	header  http.Header
	ID      json.RawMessage `json:"id"`
	Result  map[string]any  `json:"result"`
	Error   *rpcErr         `json:"error"`
	streams bool
	frames  string // the whole event stream, when the reply streams
	raw     string
}

type rpcErr struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// stateless2026 is a 2026-07-28 request: the protocol version, client
// capabilities (caps) and client info in params._meta, and the headers
// SEP-2243 asks for.
func stateless2026(t *testing.T, url, method string, params map[string]any, caps map[string]any, header ...string) rpc {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if caps == nil {
		caps = map[string]any{}
	}
	params["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion:           mcphttp.Revision20260728,
		mcp.MetaKeyClientCapabilities:        caps,
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "test", "version": "1"},
	}
	h := []string{"MCP-Protocol-Version", mcphttp.Revision20260728, "Mcp-Method", method}
	for _, key := range []string{"name", "uri", "taskId"} {
		if s, ok := params[key].(string); ok {
			h = append(h, "Mcp-Name", s)
		}
	}
	return post(t, url, method, params, append(h, header...)...)
}

// post sends one request with the given headers (name, value pairs; a
// later one replaces an earlier one of the same name).
func post(t *testing.T, url, method string, params any, header ...string) rpc {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := rpc{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		out.streams = true
		out.frames = string(raw)
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"id":7`) {
				raw = []byte(data)
			}
		}
	}
	out.raw = string(raw)
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v: %s", method, err, raw)
		}
	}
	return out
}

var tasksCaps = map[string]any{"extensions": map[string]any{mcphttp.TasksExtension: map[string]any{}}}

// TestPromptsResourcesCompletion lists and reads what the endpoint has
// beside its tools, with the go-sdk's client, at both protocol eras.
func TestPromptsResourcesCompletion(t *testing.T) {
	ts := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint)
	for _, rev := range []string{mcphttp.Revision20251125, mcphttp.Revision20260728} {
		ctx := context.Background()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		prompts, err := cs.ListPrompts(ctx, nil)
		if err != nil || len(prompts.Prompts) != 2 {
			t.Errorf("%s: prompts/list: %v %+v", rev, err, prompts)
		}
		p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greeting", Arguments: map[string]string{"who": "Ada"}})
		if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "Greet Ada" {
			t.Errorf("%s: prompts/get: %v %+v", rev, err, p)
		}
		res, err := cs.ListResources(ctx, nil)
		if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "test://doc" {
			t.Errorf("%s: resources/list: %v %+v", rev, err, res)
		}
		tmpl, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(tmpl.ResourceTemplates) != 1 {
			t.Errorf("%s: resources/templates/list: %v %+v", rev, err, tmpl)
		}
		for uri, want := range map[string]string{"test://doc": "the doc", "test://items/42": "item 42"} {
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || r.Contents[0].Text != want {
				t.Errorf("%s: resources/read %s: %v %+v", rev, uri, err, r)
			}
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nowhere"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: reading an unknown resource: %v, want -32602", rev, err)
		}
		c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greeting"},
			Argument: mcp.CompleteParamsArgument{Name: "who", Value: "Ad"}})
		if err != nil || len(c.Completion.Values) != 1 || c.Completion.Values[0] != "Ad-completed" {
			t.Errorf("%s: completion/complete: %v %+v", rev, err, c)
		}
		cs.Close()
	}
}

// TestInputRequiredBothEras calls a tool that asks for the caller's name,
// written once as SEP-2322 has it: a 2026-07-28 client gets the
// input_required result and retries with the answer (the go-sdk client does
// that itself); a 2025-11-25 client in a session is asked by the server in
// the middle of the call; a 2025-11-25 client of an endpoint without
// sessions cannot be asked, and gets an error rather than a result.
func TestInputRequiredBothEras(t *testing.T) {
	answer := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}
	tests := []struct {
		name     string
		sessions mcphttp.SessionPolicy
		rev      string
		want     string // the text of the result; "" wants an error
	}{
		{"2026-07-28 retries", mcphttp.SessionsOff, mcphttp.Revision20260728, "Hello, Ada"},
		{"2025-11-25 session is asked", mcphttp.SessionsForHandshake, mcphttp.Revision20251125, "Hello, Ada"},
		{"2025-11-25 without a session", mcphttp.SessionsOff, mcphttp.Revision20251125, ""},
	}
	for _, tt := range tests {
		ts := serveEndpoint(t, newFeatureEndpoint(tt.sessions).Endpoint)
		ctx := context.Background()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: answer}).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: tt.rev})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name", Arguments: map[string]any{}})
		switch {
		case tt.want == "" && err == nil && !res.IsError:
			t.Errorf("%s: got a result %+v, want an error", tt.name, res)
		case tt.want != "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && res.Content[0].(*mcp.TextContent).Text != tt.want:
			t.Errorf("%s: %q, want %q", tt.name, res.Content[0].(*mcp.TextContent).Text, tt.want)
		}
		if tt.rev == mcphttp.Revision20260728 {
			p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask_prompt"})
			if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "For Ada" {
				t.Errorf("%s: a prompt that asks: %v %+v", tt.name, err, p)
			}
		}
		cs.Close()
	}
}

// TestRequestStateIsSealed checks what the client holds between rounds: a
// requestState the front door sealed, not the handler's, which it opens
// for the handler on the retry and refuses, before any handler runs, when
// it was changed or minted for another tool.
func TestRequestStateIsSealed(t *testing.T) {
	ts := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint)
	first := stateless2026(t, ts.URL, "tools/call", map[string]any{"name": "ask_name", "arguments": map[string]any{}}, nil)
	state, _ := first.Result["requestState"].(string)
	if first.Result["resultType"] != "input_required" || state == "" || state == "asked" || !strings.HasPrefix(state, "mcphttp.1.") {
		t.Fatalf("round 1: %+v, want input_required with a sealed requestState", first.Result)
	}
	answer := map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}
	retry := func(tool, s string) rpc {
		return stateless2026(t, ts.URL, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{},
			"inputResponses": answer, "requestState": s}, nil)
	}
	if r := retry("ask_name", state); r.Error != nil || r.Result["resultType"] != "complete" {
		t.Errorf("retry with the sealed state: %+v %+v, want complete", r.Result, r.Error)
	}
	tampered := []struct{ tool, state string }{
		{"ask_name", state + "-TAMPERED"},
		{"ask_name", "asked"}, // the plain state, never issued to a client
		{"ask_name", strings.Replace(state, "mcphttp.1.", "mcphttp.1.A", 1)},
		{"other", state}, // minted for ask_name
	}
	for _, tt := range tampered {
		r := retry(tt.tool, tt.state)
		if r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "requestState") {
			t.Errorf("%s with state %.30q...: %d %+v %+v, want 400 -32602 naming requestState", tt.tool, tt.state, r.status, r.Error, r.Result)
		}
	}
}

// TestNeedsInputSkipsFastPath checks that a tool whose handler may ask for
// input is never answered by the fast path, which would send its input
// requests to a client of a revision that has no such result: at 2025-06-18
// without a session the go-sdk answers, with an error.
func TestNeedsInputSkipsFastPath(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcphttp.New(newFeatureEndpoint(mcphttp.SessionsOff).Endpoint, mcphttp.Config{
		PublicBaseURL: "http://127.0.0.1", MaxBodyBytes: 1 << 20, BodyReadTimeout: time.Minute,
		Logger: slog.New(slog.DiscardHandler), Metrics: m,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var info mcphttp.CallInfo
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(mcphttp.WithCallInfo(r.Context(), &info)))
	}))
	defer ts.Close()
	r := post(t, ts.URL, "tools/call", map[string]any{"name": "ask_name", "arguments": map[string]any{}}, "MCP-Protocol-Version", mcphttp.Revision20250618)
	if info.Fast || r.Error == nil || r.Result != nil {
		t.Errorf("fast %v, reply %+v %+v: want the go-sdk's error", info.Fast, r.Result, r.Error)
	}
}

// TestSessions keeps a session for a client that initializes at
// 2025-11-25, and none for one that does not or for an endpoint without
// sessions; a session ends with DELETE, after which it is 404.
func TestSessions(t *testing.T) {
	initialize := map[string]any{"protocolVersion": mcphttp.Revision20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}}
	off := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint)
	if r := post(t, off.URL, "initialize", initialize); r.header.Get("Mcp-Session-Id") != "" || r.Result == nil {
		t.Errorf("without sessions: %v %+v, want a result and no session", r.header, r.Error)
	}
	ts := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsForHandshake).Endpoint)
	if r := post(t, ts.URL, "tools/list", nil, "MCP-Protocol-Version", mcphttp.Revision20251125); r.header.Get("Mcp-Session-Id") != "" || r.Result == nil {
		t.Errorf("a call without initialize: %v %+v, want a stateless result", r.header, r.Error)
	}
	r := post(t, ts.URL, "initialize", initialize)
	id := r.header.Get("Mcp-Session-Id")
	if id == "" || r.Result["protocolVersion"] != mcphttp.Revision20251125 {
		t.Fatalf("initialize: %v %+v %+v, want a session", r.header, r.Result, r.Error)
	}
	inSession := []string{"MCP-Protocol-Version", mcphttp.Revision20251125, "Mcp-Session-Id", id}
	if r := post(t, ts.URL, "tools/list", nil, inSession...); r.Result == nil || !r.streams {
		t.Errorf("in the session: %d %+v, want a streamed result", r.status, r.Error)
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", resp.StatusCode)
	}
	if r := post(t, ts.URL, "tools/list", nil, inSession...); r.status != http.StatusNotFound {
		t.Errorf("after DELETE: %d, want 404", r.status)
	}
}

// listen opens a subscriptions/listen stream (2026-07-28) and returns its
// notifications as they arrive; the stream ends with the test.
func listen(t *testing.T, url string, notifications map[string]any) <-chan map[string]any {
	t.Helper()
	params := map[string]any{"notifications": notifications, "_meta": map[string]any{
		mcp.MetaKeyProtocolVersion: mcphttp.Revision20260728, mcp.MetaKeyClientCapabilities: map[string]any{}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": params})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcphttp.Revision20260728)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("subscriptions/listen: %d", resp.StatusCode)
	}
	frames := make(chan map[string]any, 16)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					frames <- m
				}
			}
		}
		close(frames)
	}()
	return frames
}

// next is the next frame of a listen stream; a stream that stays silent
// fails the test after a generous bound rather than hanging it.
func next(t *testing.T, frames <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case f, ok := <-frames:
		if !ok {
			t.Fatal("the listen stream ended")
		}
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("no frame on the listen stream")
	}
	return nil
}

// TestChangesReachListeners adds and removes a tool and updates a resource
// through Endpoint.Changes: a listen stream acknowledges what it may hear,
// hears each change tagged with its subscription, the added tool is served
// through the front door and the removed one is not.
func TestChangesReachListeners(t *testing.T) {
	f := newFeatureEndpoint(mcphttp.SessionsOff)
	ts := serveEndpoint(t, f.Endpoint)
	frames := listen(t, ts.URL, map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{"test://doc"}})
	ack := next(t, frames)
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first frame %v, want the acknowledgement", ack)
	}
	tool := mcphttp.Tool{Def: &mcp.Tool{Name: "added", InputSchema: map[string]any{"type": "object"}},
		Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added tool"}}}, nil
		}}
	if err := f.changes.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	tagged := func(frame map[string]any, method string) {
		t.Helper()
		meta, _ := frame["params"].(map[string]any)["_meta"].(map[string]any)
		if frame["method"] != method || meta["io.modelcontextprotocol/subscriptionId"] != "listen-1" {
			t.Errorf("frame %v, want %s tagged with the subscription", frame, method)
		}
	}
	tagged(next(t, frames), "notifications/tools/list_changed")
	if r := stateless2026(t, ts.URL, "tools/call", map[string]any{"name": "added", "arguments": map[string]any{}}, nil); r.Error != nil {
		t.Errorf("calling the added tool: %+v", r.Error)
	}
	if err := f.changes.ResourceUpdated(context.Background(), "test://doc"); err != nil {
		t.Fatal(err)
	}
	tagged(next(t, frames), "notifications/resources/updated")
	f.changes.RemoveTools("added")
	tagged(next(t, frames), "notifications/tools/list_changed")
	if r := stateless2026(t, ts.URL, "tools/call", map[string]any{"name": "added", "arguments": map[string]any{}}, nil); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("calling the removed tool: %+v %+v, want -32601", r.Result, r.Error)
	}
	if err := f.changes.AddTool(mcphttp.Tool{Def: &mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}}, Handler: tool.Handler}); err == nil {
		t.Error("Changes.AddTool replaced one of the endpoint's own tools")
	}
}

// TestTasks runs the tasks extension (SEP-2663) end to end at 2026-07-28.
func TestTasks(t *testing.T) {
	f := newFeatureEndpoint(mcphttp.SessionsOff)
	ts := serveEndpoint(t, f.Endpoint)
	call := func(tool string, caps map[string]any) rpc {
		return stateless2026(t, ts.URL, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}}, caps)
	}
	tasks := func(method, id string, extra map[string]any, header ...string) rpc {
		p := map[string]any{"taskId": id}
		for k, v := range extra {
			p[k] = v
		}
		return stateless2026(t, ts.URL, method, p, tasksCaps, header...)
	}
	// poll reads the task until its status is no longer from.
	poll := func(id, from string) rpc {
		t.Helper()
		for range 200 {
			r := tasks("tasks/get", id, nil)
			if r.Result["status"] != from {
				return r
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("task %s stayed %s", id, from)
		return rpc{}
	}

	// Without the extension, a task tool answers at once, a task-only one
	// is -32021, and the tasks methods are -32021.
	if r := call("ask_in_task", nil); r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32021 ||
		r.Error.Data["requiredCapabilities"].(map[string]any)["extensions"].(map[string]any)[mcphttp.TasksExtension] == nil {
		t.Errorf("a task-only tool without the extension: %d %+v, want 400 -32021 naming it", r.status, r.Error)
	}
	if r := stateless2026(t, ts.URL, "tasks/get", map[string]any{"taskId": "x"}, nil); r.Error == nil || r.Error.Code != -32021 {
		t.Errorf("tasks/get without the extension: %+v, want -32021", r.Error)
	}

	created := call("wait", tasksCaps)
	id, _ := created.Result["taskId"].(string)
	if created.Result["resultType"] != "task" || id == "" || created.Result["status"] != "working" || created.Result["ttlMs"] == nil {
		t.Fatalf("a task tool with the extension: %+v %+v, want a CreateTaskResult", created.Result, created.Error)
	}
	if r := tasks("tasks/get", id, nil); r.Result["status"] != "working" || r.Result["resultType"] != "complete" {
		t.Errorf("tasks/get of a running task: %+v", r.Result)
	}
	if r := tasks("tasks/get", id, nil, "Mcp-Name", "another"); r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32020 {
		t.Errorf("tasks/get with a foreign Mcp-Name: %d %+v, want 400 -32020", r.status, r.Error)
	}
	close(f.release)
	done := poll(id, "working")
	result, _ := done.Result["result"].(map[string]any)
	if done.Result["status"] != "completed" || result == nil || !strings.Contains(fmt.Sprint(result["content"]), "released") {
		t.Errorf("the ended task: %+v, want completed with the result inlined", done.Result)
	}
	if r := tasks("tasks/get", "no-such-task", nil); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("tasks/get of an unknown task: %+v, want -32602", r.Error)
	}

	// A task that asks for input waits until tasks/update answers it.
	asked := call("ask_in_task", tasksCaps)
	aid, _ := asked.Result["taskId"].(string)
	waiting := poll(aid, "working")
	if waiting.Result["status"] != "input_required" || waiting.Result["inputRequests"].(map[string]any)["name"] == nil {
		t.Fatalf("a task that asks: %+v, want input_required with the request", waiting.Result)
	}
	ack := tasks("tasks/update", aid, map[string]any{"inputResponses": map[string]any{
		"name":   map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}},
		"ignore": map[string]any{"not": "an answer"}}})
	if ack.Error != nil || ack.Result["resultType"] != "complete" || ack.Result["taskId"] != nil {
		t.Errorf("tasks/update: %+v %+v, want the empty ack", ack.Result, ack.Error)
	}
	if r := poll(aid, "input_required"); !strings.Contains(fmt.Sprint(r.Result["result"]), "Hello from the task, Ada") {
		t.Errorf("the answered task: %+v", r.Result)
	}

	// tasks/cancel ends a running task, and acks an ended one the same.
	f2 := newFeatureEndpoint(mcphttp.SessionsOff)
	ts2 := serveEndpoint(t, f2.Endpoint)
	running := stateless2026(t, ts2.URL, "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}}, tasksCaps)
	rid, _ := running.Result["taskId"].(string)
	for range 2 {
		if r := stateless2026(t, ts2.URL, "tasks/cancel", map[string]any{"taskId": rid}, tasksCaps); r.Error != nil || r.Result["resultType"] != "complete" {
			t.Errorf("tasks/cancel: %+v %+v", r.Result, r.Error)
		}
	}
	if r := stateless2026(t, ts2.URL, "tasks/get", map[string]any{"taskId": rid}, tasksCaps); r.Result["status"] != "cancelled" {
		t.Errorf("after tasks/cancel: %+v, want cancelled", r.Result)
	}
}

// TestLogLevelStreams answers a 2026-07-28 call whose _meta sets a log
// level (SEP-2575) as an event stream, which carries the tool's log message
// before the result; a call that sets none gets application/json and no
// message.
func TestLogLevelStreams(t *testing.T) {
	ts := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint)
	quiet := stateless2026(t, ts.URL, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{}}, nil)
	if quiet.streams || quiet.Result == nil || strings.Contains(quiet.raw, "notifications/message") {
		t.Errorf("without a log level: streams %v, %s; want a JSON result and no message", quiet.streams, quiet.raw)
	}
	r := post(t, ts.URL, "tools/call", map[string]any{"name": "say", "arguments": map[string]any{}, "_meta": map[string]any{
		mcp.MetaKeyProtocolVersion: mcphttp.Revision20260728, mcp.MetaKeyClientCapabilities: map[string]any{},
		"io.modelcontextprotocol/logLevel": "info"}},
		"MCP-Protocol-Version", mcphttp.Revision20260728, "Mcp-Method", "tools/call", "Mcp-Name", "say")
	if !r.streams || r.Result == nil || !strings.Contains(r.frames, `"method":"notifications/message"`) ||
		strings.Index(r.frames, "notifications/message") > strings.Index(r.frames, `"id":7`) {
		t.Errorf("with a log level: streams %v, %s; want the message, then the result", r.streams, r.frames)
	}
}

// TestRequestStateAcrossReplicas answers the retry of a multi round-trip
// call on another replica than the first round, as a balancer may: the
// replicas that share the sealing keys take each other's requestState, one
// with other keys refuses it.
func TestRequestStateAcrossReplicas(t *testing.T) {
	shared := []byte("a key the replicas share, 32 B..")
	a := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint, shared)
	b := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint, []byte("a newer key, 32 bytes long......"), shared)
	stranger := serveEndpoint(t, newFeatureEndpoint(mcphttp.SessionsOff).Endpoint, []byte("another deployment's key, 32 B.."))
	first := stateless2026(t, a.URL, "tools/call", map[string]any{"name": "ask_name", "arguments": map[string]any{}}, nil)
	state, _ := first.Result["requestState"].(string)
	retry := map[string]any{"name": "ask_name", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}
	if r := stateless2026(t, b.URL, "tools/call", retry, nil); r.Error != nil || !strings.Contains(fmt.Sprint(r.Result["content"]), "Hello, Ada") {
		t.Errorf("the retry on a replica sharing the key: %+v %+v", r.Result, r.Error)
	}
	if r := stateless2026(t, stranger.URL, "tools/call", retry, nil); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("the retry on a server with other keys: %+v %+v, want -32602", r.Result, r.Error)
	}
}

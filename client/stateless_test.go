package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// statelessServer is a small MCP 2026-07-28 server for the client's
// stateless path: it records every POST and answers each method with the
// handler a test gives, or a default.
type statelessServer struct {
	t       *testing.T
	srv     *httptest.Server
	handler map[string]func(m rpc, h http.Header) (status int, body string)

	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	rpc
	Header http.Header
	Meta   map[string]json.RawMessage
}

func newStatelessServer(t *testing.T, handler map[string]func(m rpc, h http.Header) (int, string)) *statelessServer {
	t.Helper()
	s := &statelessServer{t: t, handler: handler}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := readRPC(t, r)
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		s.seen = append(s.seen, seenRequest{rpc: m, Header: r.Header.Clone(), Meta: p.Meta})
		s.mu.Unlock()
		status, body := 200, ""
		if h := s.handler[m.Method]; h != nil {
			status, body = h(m, r.Header)
		} else {
			switch m.Method {
			case client.MethodDiscover:
				body = result(m.ID, `{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mock","version":"1"}}}`)
			case client.MethodToolsList:
				body = result(m.ID, `{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)
			default:
				body = result(m.ID, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func result(id json.RawMessage, res string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
}

func rpcError(id json.RawMessage, code int, msg, data string) string {
	if data == "" {
		data = "null"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, id, code, msg, data)
}

func (s *statelessServer) requests(method string) []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []seenRequest
	for _, r := range s.seen {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func (s *statelessServer) methods() []string {
	var out []string
	for _, r := range s.requests("") {
		out = append(out, r.Method)
	}
	return out
}

func (s *statelessServer) client(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	p := client.DefaultRetryPolicy()
	p.Jitter = maxJitter
	c, err := client.New(s.srv.URL, append([]client.Option{client.WithClock(newFakeClock()), client.WithRetry(p)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The client finds the revision with server/discover (SEP-2575), and meets
// a server of the handshake revisions in the newest one both speak.
func TestNegotiation(t *testing.T) {
	refuse := func(supported string) func(rpc, http.Header) (int, string) {
		return func(m rpc, _ http.Header) (int, string) {
			return 400, rpcError(m.ID, -32022, "Unsupported protocol version", `{"supported":`+supported+`,"requested":"2026-07-28"}`)
		}
	}
	tests := []struct {
		name     string
		discover func(m rpc, h http.Header) (int, string)
		want     string   // revision spoken
		methods  []string // requests, the call being tools/call
		wantErr  bool
	}{
		{name: "a stateless server", want: "2026-07-28",
			methods: []string{"server/discover", "tools/call"}},
		{name: "a refusal listing the stateless revision: discover again in it",
			discover: func() func(rpc, http.Header) (int, string) {
				n := 0
				return func(m rpc, h http.Header) (int, string) {
					if n++; n == 1 {
						return refuse(`["2026-07-28"]`)(m, h)
					}
					return 200, result(m.ID, `{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{}}`)
				}
			}(),
			want: "2026-07-28", methods: []string{"server/discover", "server/discover", "tools/call"}},
		{name: "a refusal listing handshake revisions: the newest", discover: refuse(`["2025-11-25","2025-06-18"]`),
			want: "2025-11-25", methods: []string{"server/discover", "tools/call"}},
		{name: "a server that does not know server/discover", want: "2025-06-18",
			discover: func(m rpc, _ http.Header) (int, string) { return 200, rpcError(m.ID, -32601, "Method not found", "") },
			methods:  []string{"server/discover", "tools/call"}},
		{name: "a 400 without a list (the TypeScript SDK's)", want: "2025-06-18",
			discover: func(m rpc, _ http.Header) (int, string) {
				return 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Unsupported protocol version"}}`
			},
			methods: []string{"server/discover", "tools/call"}},
		{name: "an answer without supportedVersions", want: "2025-06-18",
			discover: func(m rpc, _ http.Header) (int, string) { return 200, result(m.ID, `{}`) },
			methods:  []string{"server/discover", "tools/call"}},
		{name: "a server that is down is not taken for an old one", wantErr: true,
			discover: func(m rpc, _ http.Header) (int, string) { return 503, "busy" },
			methods:  []string{"server/discover", "server/discover", "server/discover"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){client.MethodDiscover: tt.discover})
			c := s.client(t)
			_, err := c.Call(context.Background(), "t", nil, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Call: %v, wantErr %v", err, tt.wantErr)
			}
			if d := cmp.Diff(tt.methods, s.methods()); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
			if tt.wantErr {
				return
			}
			if got := c.ProtocolVersion(); got != tt.want {
				t.Errorf("ProtocolVersion() = %q, want %q", got, tt.want)
			}
			for _, d := range s.requests(client.MethodDiscover) {
				if d.Header.Get("Mcp-Protocol-Version") != "2026-07-28" || string(d.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` {
					t.Errorf("server/discover carried header %q, _meta %s; want 2026-07-28 in both", d.Header.Get("Mcp-Protocol-Version"), d.Meta["io.modelcontextprotocol/protocolVersion"])
				}
			}
			call := s.requests(client.MethodToolsCall)[0]
			if got := call.Header.Get("Mcp-Protocol-Version"); got != tt.want {
				t.Errorf("tools/call MCP-Protocol-Version = %q, want %q", got, tt.want)
			}
			if _, hasMeta := call.Meta["io.modelcontextprotocol/protocolVersion"]; hasMeta != (tt.want == "2026-07-28") {
				t.Errorf("tools/call _meta = %v: want the revision there exactly when it is 2026-07-28", call.Meta)
			}
		})
	}
}

// Concurrent first calls share one server/discover.
func TestNegotiationIsShared(t *testing.T) {
	s := newStatelessServer(t, nil)
	c := s.client(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Call(context.Background(), "t", nil, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := len(s.requests(client.MethodDiscover)); n != 1 {
		t.Errorf("%d server/discover requests, want 1", n)
	}
}

// A revision named with WithProtocolVersion before 2026-07-28 is spoken at
// once, without server/discover.
func TestOlderRevisionSkipsDiscover(t *testing.T) {
	s := newStatelessServer(t, nil)
	c := s.client(t, client.WithProtocolVersion(client.Revision20251125))
	if _, err := c.Call(context.Background(), "t", nil, nil); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"tools/call"}, s.methods()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if got := s.requests("")[0].Header.Get("Mcp-Protocol-Version"); got != client.Revision20251125 {
		t.Errorf("MCP-Protocol-Version = %q", got)
	}
}

// Every stateless request carries its revision, client info and
// capabilities in _meta, and its method and name in headers; the caller's
// own _meta keys are kept.
func TestStatelessRequestMetaAndHeaders(t *testing.T) {
	s := newStatelessServer(t, nil)
	c := s.client(t, client.WithClientInfo("tester", "9.9"),
		client.WithElicitation(func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) { return nil, nil }))
	ctx := context.Background()
	if _, err := c.Call(ctx, "estimate_fare", map[string]any{"pickup": "x"}, nil, client.WithProgress(func(client.Progress) {})); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, client.MethodResourcesRead, map[string]any{"uri": "file:///a%20b.txt", "_meta": map[string]any{"trace": "t1"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, client.MethodPromptsGet, map[string]any{"name": "p"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "prompts/list", nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, name string }{
		{client.MethodDiscover, ""}, {client.MethodToolsCall, "estimate_fare"},
		{client.MethodResourcesRead, "file:///a%20b.txt"}, {client.MethodPromptsGet, "p"}, {"prompts/list", ""},
	} {
		r := s.requests(tc.method)[0]
		for h, want := range map[string]string{"Mcp-Method": tc.method, "Mcp-Name": tc.name, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Session-Id": ""} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("%s: %s = %q, want %q", tc.method, h, got, want)
			}
		}
		want := map[string]string{
			"io.modelcontextprotocol/protocolVersion":    `"2026-07-28"`,
			"io.modelcontextprotocol/clientInfo":         `{"name":"tester","version":"9.9"}`,
			"io.modelcontextprotocol/clientCapabilities": `{"elicitation":{"form":{}}}`,
		}
		for k, v := range want {
			if got := string(r.Meta[k]); got != v {
				t.Errorf("%s: _meta[%s] = %s, want %s", tc.method, k, got, v)
			}
		}
	}
	call := s.requests(client.MethodToolsCall)[0]
	if got, want := string(call.Meta["progressToken"]), `"`+string(call.ID)+`"`; got != want {
		t.Errorf("progressToken = %s, want %s", got, want)
	}
	if got := string(s.requests(client.MethodResourcesRead)[0].Meta["trace"]); got != `"t1"` {
		t.Errorf("the caller's _meta key trace = %s, want it kept", got)
	}
}

// A tools/call mirrors the arguments its tool marks with x-mcp-header into
// Mcp-Param-* headers (SEP-2243), encoded as the revision says; a tool
// whose marks are invalid is left out of tools/list, and logged.
func TestToolHeaders(t *testing.T) {
	schema := func(props string) string { return `{"type":"object","properties":{` + props + `}}` }
	tools := []string{
		`{"name":"route","inputSchema":` + schema(`"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},`+
			`"verbose":{"type":"boolean","x-mcp-header":"Verbose"},"label":{"type":"string","x-mcp-header":"Label"},"note":{"type":"string"},`+
			`"ratio":{"type":"number"},"opts":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}`) + `}`,
		`{"name":"empty","inputSchema":` + schema(`"a":{"type":"string","x-mcp-header":""}`) + `}`,
		`{"name":"object","inputSchema":` + schema(`"a":{"type":"object","x-mcp-header":"A"}`) + `}`,
		`{"name":"number","inputSchema":` + schema(`"a":{"type":"number","x-mcp-header":"A"}`) + `}`,
		`{"name":"duplicate","inputSchema":` + schema(`"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"same"}`) + `}`,
		`{"name":"space","inputSchema":` + schema(`"a":{"type":"string","x-mcp-header":"My Region"}`) + `}`,
		`{"name":"colon","inputSchema":` + schema(`"a":{"type":"string","x-mcp-header":"A:B"}`) + `}`,
		`{"name":"accent","inputSchema":` + schema(`"a":{"type":"string","x-mcp-header":"Région"}`) + `}`,
		`{"name":"nested-bad","inputSchema":` + schema(`"o":{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"A"}}}`) + `}`,
		`{"name":"plain","inputSchema":{"type":"object"}}`,
	}
	s := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){
		client.MethodToolsList: func(m rpc, _ http.Header) (int, string) {
			return 200, result(m.ID, `{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[`+strings.Join(tools, ",")+`]}`)
		},
	})
	var logs bytes.Buffer
	c := s.client(t, client.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx := context.Background()
	listed, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range listed {
		names = append(names, tl.Name)
	}
	if d := cmp.Diff([]string{"route", "plain"}, names); d != "" {
		t.Errorf("tools kept (-want +got):\n%s", d)
	}
	for _, bad := range []string{"empty", "object", "number", "duplicate", "space", "colon", "accent", "nested-bad"} {
		if !strings.Contains(logs.String(), "tool="+bad) {
			t.Errorf("no warning names the left-out tool %q:\n%s", bad, logs.String())
		}
	}
	args := map[string]any{"region": " us-west1", "priority": 42, "verbose": nil, "label": "Hello, 世界", "note": "n", "ratio": 0.5, "opts": map[string]any{"zone": "a"}}
	if _, err := c.Call(ctx, "route", args, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "route", map[string]any{"region": "eu", "priority": 1.5, "verbose": true}, nil); err != nil {
		t.Fatal(err)
	}
	got := func(r seenRequest) map[string]string {
		m := map[string]string{}
		for k := range r.Header {
			if strings.HasPrefix(k, "Mcp-Param-") {
				m[k] = r.Header.Get(k)
			}
		}
		return m
	}
	calls := s.requests(client.MethodToolsCall)
	want := []map[string]string{
		{ // leading space and non-ASCII in base64; null and unmarked arguments not mirrored
			"Mcp-Param-Region":   "=?base64?IHVzLXdlc3Qx?=",
			"Mcp-Param-Priority": "42",
			"Mcp-Param-Label":    "=?base64?SGVsbG8sIOS4lueVjA==?=",
			"Mcp-Param-Zone":     "a",
		},
		{"Mcp-Param-Region": "eu", "Mcp-Param-Verbose": "true"}, // 1.5 is no integer
	}
	for i := range want {
		if d := cmp.Diff(want[i], got(calls[i])); d != "" {
			t.Errorf("call %d: Mcp-Param headers (-want +got):\n%s", i, d)
		}
	}
}

// tools/list is reused while its ttlMs keeps it fresh, and a private one
// only with the credentials that fetched it.
func TestToolsListCache(t *testing.T) {
	var mu sync.Mutex
	ttl, scope := 60000, "public"
	s := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){
		client.MethodToolsList: func(m rpc, _ http.Header) (int, string) {
			mu.Lock()
			defer mu.Unlock()
			return 200, result(m.ID, fmt.Sprintf(`{"resultType":"complete","ttlMs":%d,"cacheScope":%q,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`, ttl, scope))
		},
	})
	clock := newFakeClock()
	tokens := &switchableToken{token: "a"}
	c := s.client(t, client.WithClock(clock), client.WithTokenSource(tokens))
	ctx := context.Background()
	list := func() int {
		t.Helper()
		if _, err := c.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
		return len(s.requests(client.MethodToolsList))
	}
	if n := list(); n != 1 {
		t.Fatalf("first listing: %d requests", n)
	}
	if n := list(); n != 1 {
		t.Errorf("fresh listing fetched again (%d requests)", n)
	}
	clock.Sleep(ctx, time.Minute)
	if n := list(); n != 2 {
		t.Errorf("stale listing not fetched again (%d requests)", n)
	}
	tokens.set("b") // public: another token may reuse it
	if n := list(); n != 2 {
		t.Errorf("public listing fetched again for another token (%d requests)", n)
	}
	mu.Lock()
	scope = "private"
	mu.Unlock()
	clock.Sleep(ctx, time.Minute)
	list() // 3: stale
	tokens.set("c")
	if n := list(); n != 4 {
		t.Errorf("private listing reused for another token (%d requests, want 4)", n)
	}
	mu.Lock()
	ttl = 0
	mu.Unlock()
	clock.Sleep(ctx, time.Minute)
	list() // 5
	if n := list(); n != 6 {
		t.Errorf("ttlMs 0: listing reused (%d requests, want 6)", n)
	}
}

// switchableToken is a fixed token a test can change.
type switchableToken struct {
	mu    sync.Mutex
	token string
}

func (s *switchableToken) set(t string) { s.mu.Lock(); s.token = t; s.mu.Unlock() }
func (s *switchableToken) Token(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token, nil
}
func (s *switchableToken) Refresh(context.Context, string) (string, error) {
	return "", errors.New("no refresh")
}

// server/discover's answer is kept while its ttlMs keeps it fresh.
func TestDiscoverCache(t *testing.T) {
	s := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){
		client.MethodDiscover: func(m rpc, _ http.Header) (int, string) {
			return 200, result(m.ID, `{"resultType":"complete","ttlMs":30000,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"instructions":"hi","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mock","version":"1"}}}`)
		},
	})
	clock := newFakeClock()
	c := s.client(t, client.WithClock(clock))
	ctx := context.Background()
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Instructions != "hi" || d.ServerInfo == nil || d.ServerInfo.Name != "mock" || d.TTL != 30*time.Second || string(d.Capabilities) != `{"tools":{}}` {
		t.Errorf("Discover = %+v", d)
	}
	c.Discover(ctx)
	if n := len(s.requests(client.MethodDiscover)); n != 1 {
		t.Errorf("%d server/discover requests while fresh, want 1", n)
	}
	clock.Sleep(ctx, time.Minute)
	c.Discover(ctx)
	if n := len(s.requests(client.MethodDiscover)); n != 2 {
		t.Errorf("%d server/discover requests once stale, want 2", n)
	}
	old := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){
		client.MethodDiscover: func(m rpc, _ http.Header) (int, string) { return 200, rpcError(m.ID, -32601, "Method not found", "") },
	})
	if _, err := old.client(t).Discover(ctx); !errors.Is(err, client.ErrHandshakeRevision) {
		t.Errorf("Discover at an old server: %v, want ErrHandshakeRevision", err)
	}
}

// A result that asks for input (SEP-2322) is answered with the
// elicitation handler and the request sent again with a new id, the
// answers and the server's requestState echoed unchanged, round after
// round; state never reaches another request.
func TestMultiRoundTrip(t *testing.T) {
	var mu sync.Mutex
	rounds := map[string]int{}
	s := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){
		client.MethodToolsCall: func(m rpc, _ http.Header) (int, string) {
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(m.Params, &p)
			mu.Lock()
			rounds[p.Name]++
			n := rounds[p.Name]
			mu.Unlock()
			ask := func(key, state string) string {
				st := ""
				if state != "" {
					st = `,"requestState":` + state
				}
				return result(m.ID, `{"resultType":"input_required","inputRequests":{"`+key+`":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean","default":true}}}}}}`+st+`}`)
			}
			switch {
			case p.Name == "twice" && n == 1:
				return 200, ask("first", `"s1 \u00e9"`)
			case p.Name == "twice" && n == 2:
				return 200, ask("second", `"s2"`)
			case p.Name == "stateless" && n == 1:
				return 200, ask("only", "")
			case p.Name == "forever", p.Name == "unhandled":
				return 200, ask("again", `"x"`)
			case p.Name == "task":
				return 200, result(m.ID, `{"resultType":"task","task":{}}`)
			}
			return 200, result(m.ID, `{"content":[{"type":"text","text":"done"}]}`) // no resultType: complete
		},
	})
	var asked []string
	c := s.client(t, client.WithElicitation(func(_ context.Context, r *client.ElicitRequest) (*client.ElicitResult, error) {
		asked = append(asked, r.Message)
		return &client.ElicitResult{Action: "accept", Content: r.Defaults()}, nil
	}))
	ctx := context.Background()
	for _, tool := range []string{"twice", "plain", "stateless"} {
		res, err := c.Call(ctx, tool, nil, nil)
		if err != nil || res.Text() != "done" {
			t.Fatalf("%s: %v, %v", tool, res, err)
		}
	}
	type sent struct {
		ID             string
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage            `json:"requestState"`
	}
	var got []sent
	for _, r := range s.requests(client.MethodToolsCall) {
		var p sent
		json.Unmarshal(r.Params, &p)
		p.ID = string(r.ID)
		got = append(got, p)
	}
	answer := json.RawMessage(`{"action":"accept","content":{"ok":true}}`)
	want := []sent{
		{ID: got[0].ID},
		{ID: got[1].ID, InputResponses: map[string]json.RawMessage{"first": answer}, RequestState: json.RawMessage(`"s1 \u00e9"`)},
		{ID: got[2].ID, InputResponses: map[string]json.RawMessage{"second": answer}, RequestState: json.RawMessage(`"s2"`)},
		{ID: got[3].ID}, // plain: nothing of twice's state
		{ID: got[4].ID},
		{ID: got[5].ID, InputResponses: map[string]json.RawMessage{"only": answer}}, // no requestState was sent
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tools/call params (-want +got):\n%s", d)
	}
	ids := map[string]bool{}
	for _, g := range got {
		ids[g.ID] = true
	}
	if len(ids) != len(got) {
		t.Errorf("ids %v: every round must have its own", got)
	}
	if len(asked) != 3 {
		t.Errorf("elicitation handler asked %d times, want 3", len(asked))
	}
	if _, err := c.Call(ctx, "forever", nil, nil); err == nil || !strings.Contains(err.Error(), "still asks for input") {
		t.Errorf("a server asking forever: %v", err)
	}
	if _, err := c.Call(ctx, "task", nil, nil); err == nil || !strings.Contains(err.Error(), `"task"`) {
		t.Errorf("an unknown resultType: %v", err)
	}
	noHandler := s.client(t)
	if _, err := noHandler.Call(ctx, "unhandled", nil, nil); err == nil || !strings.Contains(err.Error(), "elicitation/create") {
		t.Errorf("input asked of a client without a handler: %v", err)
	}
}

// A stateless server's JSON-RPC errors come with 400 or 404; they are
// RPCErrors all the same. A refusal of the revision listing older ones
// moves the client to them.
func TestStatelessErrors(t *testing.T) {
	s := newStatelessServer(t, map[string]func(rpc, http.Header) (int, string){
		client.MethodToolsCall: func(m rpc, h http.Header) (int, string) {
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(m.Params, &p)
			switch {
			case p.Name == "bad":
				return 400, rpcError(m.ID, -32602, "Invalid params: pickup: Required", "")
			case p.Name == "moved" && h.Get("Mcp-Protocol-Version") == "2026-07-28":
				return 400, rpcError(m.ID, -32022, "Unsupported protocol version", `{"supported":["2025-06-18"],"requested":"2026-07-28"}`)
			}
			return 200, result(m.ID, `{"content":[{"type":"text","text":"ok"}]}`)
		},
		"nope/nope": func(m rpc, _ http.Header) (int, string) { return 404, rpcError(m.ID, -32601, "Method not found", "") },
	})
	c := s.client(t)
	ctx := context.Background()
	_, err := c.Call(ctx, "bad", nil, nil)
	var re *client.RPCError
	if !errors.As(err, &re) || re.Code != -32602 || re.Name != errcodes.InvalidArguments {
		t.Errorf("400 -32602: %v, want an RPCError INVALID_ARGUMENTS", err)
	}
	if err := c.Do(ctx, "nope/nope", nil, nil); !errors.As(err, &re) || re.Code != -32601 {
		t.Errorf("404 -32601: %v, want an RPCError", err)
	}
	if _, err := c.Call(ctx, "moved", nil, nil); err != nil {
		t.Fatalf("a call refused for its revision: %v, want it sent again in 2025-06-18", err)
	}
	if got := c.ProtocolVersion(); got != client.DocumentedProtocolVersion {
		t.Errorf("ProtocolVersion() = %q after the refusal", got)
	}
	last := s.requests(client.MethodToolsCall)
	if h := last[len(last)-1].Header.Get("Mcp-Protocol-Version"); h != client.DocumentedProtocolVersion || !slices.Contains([]string{""}, last[len(last)-1].Header.Get("Mcp-Method")) {
		t.Errorf("resent call: MCP-Protocol-Version %q, Mcp-Method %q", h, last[len(last)-1].Header.Get("Mcp-Method"))
	}
}

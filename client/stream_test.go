package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// rpc is the part of a JSON-RPC message these tests look at.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

func readRPC(t *testing.T, r *http.Request) rpc {
	t.Helper()
	var m rpc
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		t.Errorf("decoding request: %v", err)
	}
	return m
}

func sseHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
}

// handshakeEra makes a client speak 2025-06-18 at once, without the
// server/discover it sends first by default: for tests of the transport
// (streams, resumption, challenges, caps) whose servers count requests.
var handshakeEra = client.WithProtocolVersion(client.DocumentedProtocolVersion)

func okResult(id json.RawMessage) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`, id)
}

func TestCutStreamResumesWithLastEventIDAfterRetry(t *testing.T) {
	var mu sync.Mutex
	var pending json.RawMessage
	var gets []string
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodGet {
			gets = append(gets, r.Header.Get("Last-Event-ID")+" "+r.Header.Get("Accept"))
			sseHeader(w)
			fmt.Fprintf(w, "id: e2\ndata: %s\n\n", okResult(pending))
			return
		}
		posts++
		pending = readRPC(t, r).ID
		sseHeader(w)
		// A priming event, then the stream is cut in the middle of the
		// event with id e2: resuming must ask for what follows e1.
		fmt.Fprintf(w, "id: e1\nretry: 750\ndata: \n\nid: e2\ndata: %s", okResult(pending)[:20])
	}))
	defer srv.Close()
	clock := newFakeClock()
	c, err := client.New(srv.URL, client.WithClock(clock), handshakeEra)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Call(context.Background(), "slow", nil, nil)
	if err != nil || res.Text() != "done" {
		t.Fatalf("Call = %v, %v; want the result from the resumed stream", res, err)
	}
	if d := cmp.Diff([]time.Duration{750 * time.Millisecond}, clock.Sleeps()); d != "" {
		t.Errorf("waits (-want +got), the stream's retry field:\n%s", d)
	}
	if d := cmp.Diff([]string{"e1 text/event-stream"}, gets); d != "" || posts != 1 {
		t.Errorf("resumption GETs (-want +got):\n%s\nPOSTs %d, want 1 (no resend)", d, posts)
	}
}

// A cut stream that cannot be resumed (no event ids, or the server refuses
// the GET) is left to the retry policy, which sends the request again.
func TestCutStreamWithoutResumptionIsSentAgain(t *testing.T) {
	tests := []struct {
		name       string
		firstReply string // the first POST's stream, cut after this
		wantGets   int
		wantSleeps []time.Duration
	}{
		{"no event ids", "", 0, []time.Duration{time.Second}},
		{"resumption refused", "id: e1\ndata: \n\n", 1, []time.Duration{client.DefaultResumeDelay, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			posts, gets := 0, 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				if r.Method == http.MethodGet {
					gets++
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				posts++
				id := readRPC(t, r).ID
				sseHeader(w)
				if posts == 1 {
					fmt.Fprint(w, tt.firstReply)
					return
				}
				fmt.Fprintf(w, "data: %s\n\n", okResult(id))
			}))
			defer srv.Close()
			clock := newFakeClock()
			p := client.DefaultRetryPolicy()
			p.Jitter = maxJitter
			c, _ := client.New(srv.URL, client.WithClock(clock), client.WithRetry(p), handshakeEra)
			if _, err := c.Call(context.Background(), "slow", nil, nil); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if posts != 2 || gets != tt.wantGets {
				t.Errorf("POSTs %d, GETs %d; want the request sent again after %d GETs", posts, gets, tt.wantGets)
			}
			if d := cmp.Diff(tt.wantSleeps, clock.Sleeps()); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
		})
	}
}

func TestElicitationOnTheReplyStreamIsAnswered(t *testing.T) {
	var mu sync.Mutex
	var caps json.RawMessage
	var answer rpc
	answered := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := readRPC(t, r)
		switch {
		case m.Method == client.MethodInitialize:
			var p struct {
				Capabilities json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(m.Params, &p)
			mu.Lock()
			caps = p.Capabilities
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`, m.ID)
		case m.Method == client.MethodToolsCall:
			sseHeader(w)
			fmt.Fprint(w, `data: {"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ann"},"age":{"type":"integer","default":30},"note":{"type":"string"}}}}}`+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-answered:
			case <-time.After(5 * time.Second):
				t.Error("the client never answered the elicitation")
			}
			fmt.Fprintf(w, "data: %s\n\n", okResult(m.ID))
		case m.Method == "" && m.ID != nil:
			mu.Lock()
			answer = m
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			close(answered)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	var asked *client.ElicitRequest
	c, _ := client.New(srv.URL, client.WithHandshake(client.HandshakeAlways),
		client.WithElicitation(func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
			asked = req
			return &client.ElicitResult{Action: "accept", Content: req.Defaults()}, nil
		}))
	res, err := c.Call(context.Background(), "ask", nil, nil)
	if err != nil || res.Text() != "done" {
		t.Fatalf("Call = %v, %v", res, err)
	}
	if asked == nil || asked.Message != "who?" {
		t.Errorf("handler saw %+v", asked)
	}
	mu.Lock()
	defer mu.Unlock()
	if string(caps) != `{"elicitation":{}}` {
		t.Errorf("initialize capabilities = %s, want elicitation declared", caps)
	}
	if string(answer.ID) != `"srv-1"` || string(answer.Result) != `{"action":"accept","content":{"age":30,"name":"Ann"}}` {
		t.Errorf("answer id %s result %s; want the defaults accepted under the server's id", answer.ID, answer.Result)
	}
}

func TestUnhandledServerRequestGetsMethodNotFound(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m rpc
		json.Unmarshal(body, &m)
		if m.Method == client.MethodToolsCall {
			sseHeader(w)
			fmt.Fprint(w, `data: {"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`+"\n\n")
			fmt.Fprintf(w, "data: %s\n\n", okResult(m.ID))
			return
		}
		got = string(body)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL)
	if _, err := c.Call(context.Background(), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"id":7`) || !strings.Contains(got, `"code":-32601`) {
		t.Errorf("answer %s, want -32601 for id 7", got)
	}
}

func TestElicitDefaults(t *testing.T) {
	tests := []struct {
		schema string
		want   map[string]any
	}{
		{`{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"number","default":95.5},"c":{"type":"boolean","default":true},"d":{"type":"string","enum":["p","q"],"default":"q"},"e":{"type":"string"}}}`,
			map[string]any{"a": "x", "b": 95.5, "c": true, "d": "q"}},
		{`{"type":"object","properties":{"e":{"type":"string"}}}`, nil},
		{`not json`, nil},
	}
	for _, tt := range tests {
		r := client.ElicitRequest{RequestedSchema: json.RawMessage(tt.schema)}
		if d := cmp.Diff(tt.want, r.Defaults()); d != "" {
			t.Errorf("Defaults(%s) (-want +got):\n%s", tt.schema, d)
		}
	}
}

// fakeAuthorizer records challenges and answers each with a new token.
type fakeAuthorizer struct {
	mu         sync.Mutex
	challenges []client.Challenge
	refreshes  int
	n          int
}

func (f *fakeAuthorizer) Token(context.Context) (string, error) { return "", nil }

func (f *fakeAuthorizer) Refresh(context.Context, string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refreshes++
	return "", errors.New("not used")
}

func (f *fakeAuthorizer) Authorize(_ context.Context, ch *client.Challenge) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.challenges = append(f.challenges, *ch)
	f.n++
	return fmt.Sprintf("t%d", f.n), nil
}

func TestAuthorizerAnswersUnauthorizedThenStepUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := readRPC(t, r)
		switch r.Header.Get("Authorization") {
		case "":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/prm", scope="read"`)
			w.WriteHeader(401)
		case "Bearer t1":
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read write", error_description="more"`)
			w.WriteHeader(403)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, okResult(m.ID))
		}
	}))
	defer srv.Close()
	az := &fakeAuthorizer{}
	c, _ := client.New(srv.URL, client.WithTokenSource(az), handshakeEra)
	if _, err := c.Call(context.Background(), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	want := []client.Challenge{
		{StatusCode: 401, ResourceMetadata: "http://x/prm", Scopes: []string{"read"}},
		{StatusCode: 403, Rejected: "t1", Scopes: []string{"read", "write"}, Error: "insufficient_scope", Description: "more"},
	}
	if d := cmp.Diff(want, az.challenges); d != "" {
		t.Errorf("challenges (-want +got):\n%s", d)
	}
}

func TestForbiddenWithoutScopeChallengeIsTheCallers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(403)
	}))
	defer srv.Close()
	az := &fakeAuthorizer{}
	c, _ := client.New(srv.URL, client.WithTokenSource(az))
	_, err := c.Call(context.Background(), "x", nil, nil)
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 403 || len(az.challenges) != 0 {
		t.Errorf("err = %v after %d challenges; want the 403 and no authorization", err, len(az.challenges))
	}
}

func TestChallengeRoundsAreBounded(t *testing.T) {
	var mu sync.Mutex
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posts++
		mu.Unlock()
		w.WriteHeader(401)
	}))
	defer srv.Close()
	az := &fakeAuthorizer{}
	c, _ := client.New(srv.URL, client.WithTokenSource(az), handshakeEra)
	_, err := c.Call(context.Background(), "x", nil, nil)
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 401 || len(az.challenges) != 2 || posts != 3 {
		t.Errorf("err = %v, %d challenges, %d POSTs; want the 401 after 2 challenges and 3 POSTs", err, len(az.challenges), posts)
	}
}

func TestElicitationOnTheSessionStreamIsAnswered(t *testing.T) {
	for _, conflicts := range []int{0, 2} {
		t.Run(fmt.Sprintf("%d conflicts", conflicts), func(t *testing.T) { sessionStreamElicitation(t, conflicts) })
	}
}

// sessionStreamElicitation plays the TypeScript SDK's server: a tool's
// elicitation/create goes to the session's GET stream, and is dropped when
// none is open. The first conflicts GETs get 409, as when the server has
// not yet seen the previous stream close.
func sessionStreamElicitation(t *testing.T, conflicts int) {
	getOpen := make(chan chan string, 1)
	answered := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if r.Header.Get("Mcp-Session-Id") != "s1" {
				w.WriteHeader(400)
				return
			}
			if conflicts > 0 {
				conflicts--
				w.WriteHeader(http.StatusConflict)
				return
			}
			sseHeader(w)
			w.(http.Flusher).Flush()
			push := make(chan string, 1)
			getOpen <- push
			select {
			case ev := <-push:
				fmt.Fprint(w, ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
			<-r.Context().Done() // held open until the client stops listening
			return
		}
		m := readRPC(t, r)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == client.MethodInitialize:
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`, m.ID)
		case m.Method == client.MethodToolsCall:
			var push chan string
			// The client sends the call once the GET's headers are in; the
			// handler serving that GET may not have registered its push
			// channel yet, so wait for it (bounded) rather than race it.
			select {
			case push = <-getOpen:
			case <-time.After(5 * time.Second):
				t.Error("no GET stream was open when the tool ran")
				fmt.Fprint(w, okResult(m.ID))
				return
			}
			push <- `data: {"jsonrpc":"2.0","id":41,"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{"v":{"type":"boolean","default":true}}}}}` + "\n\n"
			select {
			case a := <-answered:
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, m.ID, a)
			case <-time.After(5 * time.Second):
				t.Error("the client never answered")
			}
		case m.Method == "" && m.ID != nil:
			answered <- string(m.Result)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	clock := newFakeClock()
	want := conflicts
	c, _ := client.New(srv.URL, client.WithHandshake(client.HandshakeAlways), client.WithClock(clock),
		client.WithElicitation(func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
			return &client.ElicitResult{Action: "accept", Content: req.Defaults()}, nil
		}))
	res, err := c.Call(context.Background(), "ask", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != `{"action":"accept","content":{"v":true}}` {
		t.Errorf("the server received %s", got)
	}
	if got := len(clock.Sleeps()); got != want {
		t.Errorf("%d waits before the GET stream opened, want one per 409 (%d)", got, want)
	}
}

func TestInsufficientScopeIsNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		w.WriteHeader(403)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, client.WithBearerToken("t"))
	_, err := c.Call(context.Background(), "x", nil, nil)
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 403 || client.CodeOf(err) != errcodes.InsufficientScope || !slices.Equal(tr.Scopes, []string{"admin"}) {
		t.Errorf("err = %v (code %q), want the 403 named INSUFFICIENT_SCOPE (not FORBIDDEN_ORIGIN) asking for admin", err, client.CodeOf(err))
	}
}

// A reply larger than the caps is refused, not buffered, and not retried:
// sending the request again would get the same reply.
func TestReplySizeCaps(t *testing.T) {
	big := strings.Repeat("x", 4096)
	tests := []struct {
		name    string
		opt     client.Option
		stream  bool
		wantErr string
	}{
		{"JSON reply over WithMaxResponseBytes", client.WithMaxResponseBytes(1024), false, "larger than 1024 bytes"},
		{"event over WithMaxEventSize", client.WithMaxEventSize(1024), true, "exceeds the size limit"},
		{"within the caps", client.WithMaxResponseBytes(64 << 10), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			posts := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				posts++
				mu.Unlock()
				id := readRPC(t, r).ID
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, id, big)
				if tt.stream {
					sseHeader(w)
					fmt.Fprintf(w, "data: %s\n\n", body)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, body)
			}))
			defer srv.Close()
			c, _ := client.New(srv.URL, tt.opt, client.WithClock(newFakeClock()), handshakeEra)
			res, err := c.Call(context.Background(), "x", nil, nil)
			if tt.wantErr == "" {
				if err != nil || res.Text() != big {
					t.Fatalf("Call = %v; want the whole reply", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || client.IsRetryable(err) {
				t.Errorf("err = %v, want %q, not retryable", err, tt.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if posts != 1 {
				t.Errorf("%d POSTs, want 1", posts)
			}
		})
	}
}

// WithHeader adds headers but cannot displace the ones the transport
// needs; WithProtocolVersion sets the version sent before initialize.
func TestHeaderOptions(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, okResult(readRPC(t, r).ID))
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, client.WithHeader("X-Trace", "t1"), client.WithHeader("Accept", "text/html"),
		client.WithProtocolVersion("2025-03-26"), client.WithBearerToken("tok"))
	if _, err := c.Call(context.Background(), "x", nil, nil, client.WithHeader("X-Call", "c1")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{
		"X-Trace": "t1", "X-Call": "c1", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2025-03-26", "Authorization": "Bearer tok",
	}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.Get(k), v)
		}
	}
}

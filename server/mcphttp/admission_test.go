package mcphttp_test

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// clock is a limiter clock the test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestRateLimit: an endpoint's rate limit refuses a client's call over its
// rule with 429, Retry-After in whole seconds and the catalogue's body,
// before the tool runs, and counts the refusal; methods other than
// tools/call, tools without a rule and the host's own calls (the internal
// token) are not limited; once Retry-After has passed the call is served.
// Both paths, and a call that streams, are held to it.
func TestRateLimit(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(map[bool]string{true: "fast path", false: "go-sdk"}[fast], func(t *testing.T) {
			ep := kit.New("/mcp/kit")
			ep.RateLimit = &limits.Policy{Tools: map[string]limits.Rule{kit.ToolEcho: {PerMinute: 2}, kit.ToolProgress: {PerMinute: 1}}}
			cfg, reg := kit.Config(t)
			cfg.DisableFastPath = !fast
			cfg.InternalToken = "host-secret"
			c := &clock{now: time.Date(2025, 3, 12, 11, 0, 0, 0, time.UTC)}
			h, err := mcphttp.New(ep.Endpoint, cfg, c.Now)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			echo := kit.CallBody("1", kit.ToolEcho, `{"text":"hi"}`)
			for i := range 2 {
				if r := kit.Post(t, ts.URL, kit.Headers(), echo); r.Status != 200 {
					t.Fatalf("call %d: %d %s", i+1, r.Status, r.Body)
				}
			}
			ran := ep.Calls()
			r := kit.Post(t, ts.URL, kit.Headers(), echo)
			if r.Status != 429 || r.Header.Get("Retry-After") != "30" {
				t.Fatalf("third call in a minute: %d Retry-After=%q, want 429 and 30", r.Status, r.Header.Get("Retry-After"))
			}
			want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Too Many Requests: retry after 30 s"}}`
			if d := kit.JSONDiff(t, []byte(want), r.Body); d != "" {
				t.Errorf("429 body (-want +got):\n%s", d)
			}
			if ep.Calls() != ran {
				t.Error("the refused call ran its tool")
			}
			if n := promtest.Series(t, reg)["mcp_rate_limited_total{endpoint=/mcp/kit,tool=echo}"]; n != 1 {
				t.Errorf("mcp_rate_limited_total for echo = %v, want 1", n)
			}
			for what, body := range map[string]string{
				"tools/list":          `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
				"a tool with no rule": kit.CallBody("1", kit.ToolStructured, `{}`),
			} {
				if r := kit.Post(t, ts.URL, kit.Headers(), body); r.Status != 200 {
					t.Errorf("%s limited: %d", what, r.Status)
				}
			}
			internal := kit.Headers()
			internal.Set(mcphttp.InternalCallerHeader, "host-secret")
			if r := kit.Post(t, ts.URL, internal, echo); r.Status != 200 {
				t.Errorf("the host's own call limited: %d", r.Status)
			}
			internal.Set(mcphttp.InternalCallerHeader, "guess")
			if r := kit.Post(t, ts.URL, internal, echo); r.Status != 429 {
				t.Errorf("a wrong internal token: %d, want 429", r.Status)
			}
			streamed := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`
			if r := kit.Post(t, ts.URL, kit.Headers(), streamed); r.Status != 200 {
				t.Fatalf("first streamed call: %d", r.Status)
			}
			if r := kit.Post(t, ts.URL, kit.Headers(), streamed); r.Status != 429 || r.Header.Get("Retry-After") != "60" {
				t.Errorf("second streamed call in a minute: %d Retry-After=%q, want 429 and 60", r.Status, r.Header.Get("Retry-After"))
			}
			c.Add(30 * time.Second)
			if r := kit.Post(t, ts.URL, kit.Headers(), echo); r.Status != 200 {
				t.Errorf("after Retry-After: %d", r.Status)
			}
		})
	}
}

// TestConcurrencySlotReleased: with a concurrency cap of one, a second call
// while the first is in flight gets 429, and the slot comes back when the
// first is answered, on both paths.
func TestConcurrencySlotReleased(t *testing.T) {
	for _, fast := range []bool{true, false} {
		ep := kit.New("/mcp/kit")
		defer ep.Release()
		ep.RateLimit = &limits.Policy{Tools: map[string]limits.Rule{kit.ToolSlow: {Concurrent: 1}}}
		cfg, _ := kit.Config(t)
		cfg.DisableFastPath = !fast
		url := kit.Serve(t, ep.Endpoint, cfg).URL
		body := kit.CallBody("1", kit.ToolSlow, `{}`)

		first := make(chan kit.Reply, 1)
		go func() { first <- kit.Post(t, url, kit.Headers(), body) }()
		ep.AwaitSlow(t) // the first call holds the slot
		if r := kit.Post(t, url, kit.Headers(), body); r.Status != 429 || r.Header.Get("Retry-After") != "1" {
			t.Errorf("fast=%v second concurrent call: %d Retry-After=%q, want 429 and 1", fast, r.Status, r.Header.Get("Retry-After"))
		}
		ep.Release()
		if r := <-first; r.Status != 200 {
			t.Fatalf("fast=%v first call: %d %s", fast, r.Status, r.Body)
		}
		if r := kit.Post(t, url, kit.Headers(), body); r.Status != 200 {
			t.Errorf("fast=%v call after the first was answered: %d %s (slot not released)", fast, r.Status, r.Body)
		}
	}
}

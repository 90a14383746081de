package mcphttp_test

import (
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// The differential tests: every request goes to the same endpoint's front
// door built twice, once with the fast path (server/fastcall) and once with
// every call through the go-sdk (Config.DisableFastPath, the reference),
// and the two answers must be the same bytes: status, headers and body.

// kitPaths is the kit's endpoint both ways, configured by edit (nil: the
// host's defaults).
func kitPaths(t testing.TB, edit func(*mcphttp.Config, *kit.Endpoint)) *kit.Paths {
	t.Helper()
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	if edit != nil {
		edit(&cfg, ep)
	}
	return kit.NewPaths(t, ep.Endpoint, cfg)
}

// TestFastPathCatalogue sends a case for each row of the shared error
// catalogue (the front door's) both ways, and the answers of each kind of
// tool besides; a row without a case fails, so a new row needs one.
func TestFastPathCatalogue(t *testing.T) {
	type tc struct {
		edit   func(*mcphttp.Config, *kit.Endpoint)
		header func(http.Header)
		bodies []string // sent in order; the last is the one the case is about
		fast   bool     // the fast path answers it
	}
	set := func(k, v string) func(http.Header) { return func(h http.Header) { h.Set(k, v) } }
	echo := kit.CallBody("7", kit.ToolEcho, `{"text":"Helensburgh & <Glasgow>"}`)
	v, mint := verifier(t)
	unreachable, err := auth.NewVerifier(auth.Config{Issuer: "http://127.0.0.1:9/auth/v1", RefreshInterval: -1,
		ResourceURL: resource, ResourceMetadataURL: metadataURL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unreachable.Close() })
	oauth := func(cfg *mcphttp.Config, _ *kit.Endpoint) { cfg.Verifier = v }
	cases := map[errcodes.Code]tc{
		errcodes.InvalidArguments: {bodies: []string{kit.CallBody("1", kit.ToolEcho, `{"text":5}`)}, fast: true},
		errcodes.InternalError:    {bodies: []string{kit.CallBody("1", kit.ToolPanic, `{}`)}, fast: true},
		errcodes.Unauthorized: {edit: func(cfg *mcphttp.Config, _ *kit.Endpoint) { cfg.Verifier = unreachable },
			bodies: []string{echo}},
		errcodes.InsufficientScope: {edit: func(cfg *mcphttp.Config, ep *kit.Endpoint) {
			cfg.Verifier = v
			ep.ToolScopes = map[string]string{kit.ToolEcho: "kit:write"}
		}, header: set("Authorization", "Bearer "+mint("")), bodies: []string{echo}},
		errcodes.MethodNotFound:             {bodies: []string{kit.CallBody("3", "book_now", `{}`)}},
		errcodes.NotAcceptable:              {header: set("Accept", "application/json"), bodies: []string{echo}},
		errcodes.ParseError:                 {bodies: []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`}},
		errcodes.InvalidRequest:             {bodies: []string{`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"echo"}}`}},
		errcodes.UnsupportedProtocolVersion: {header: set("MCP-Protocol-Version", "1999-01-01"), bodies: []string{echo}},
		errcodes.ForbiddenOrigin:            {header: set("Origin", "https://attacker.example"), bodies: []string{echo}},
		errcodes.PayloadTooLarge:            {edit: func(cfg *mcphttp.Config, _ *kit.Endpoint) { cfg.MaxBodyBytes = 64 }, bodies: []string{echo}},
		errcodes.RateLimited: {edit: func(_ *mcphttp.Config, ep *kit.Endpoint) {
			ep.RateLimit = &limits.Policy{Tools: map[string]limits.Rule{kit.ToolEcho: {PerMinute: 1}}}
		}, bodies: []string{echo, echo}},
	}
	rows, err := contracts.LoadErrors()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rows {
		c, ok := cases[errcodes.Code(e.Name)]
		if !ok {
			t.Errorf("no differential case for the shared catalogue code %s: add one", e.Name)
			continue
		}
		t.Run(e.Name, func(t *testing.T) { runCase(t, kitPaths(t, c.edit), c.header, c.bodies, c.fast) })
	}
	for name, c := range map[string]tc{
		"a result":                   {bodies: []string{echo}, fast: true},
		"a result with no content":   {bodies: []string{kit.CallBody("1", kit.ToolStructured, `{}`)}, fast: true},
		"a refusal":                  {bodies: []string{kit.CallBody("1", kit.ToolRefuse, `{}`)}, fast: true},
		"a failure":                  {bodies: []string{kit.CallBody("1", kit.ToolFail, `{}`)}, fast: true},
		"a JSON-RPC error":           {bodies: []string{kit.CallBody("1", kit.ToolEcho, `[]`)}, fast: true},
		"oauth: a call with a token": {edit: oauth, header: set("Authorization", "Bearer "+mint("")), bodies: []string{echo}, fast: true},
		"oauth: scope granted": {edit: func(cfg *mcphttp.Config, ep *kit.Endpoint) {
			cfg.Verifier = v
			ep.ToolScopes = map[string]string{kit.ToolEcho: "kit:write"}
		}, header: set("Authorization", "Bearer "+mint("kit:write")), bodies: []string{echo}, fast: true},
	} {
		t.Run(name, func(t *testing.T) { runCase(t, kitPaths(t, c.edit), c.header, c.bodies, c.fast) })
	}
}

func runCase(t *testing.T, p *kit.Paths, edit func(http.Header), bodies []string, wantFast bool) {
	t.Helper()
	header := kit.Headers()
	if edit != nil {
		edit(header)
	}
	var fast bool
	for _, b := range bodies {
		fast = p.Compare(t, header, b)
	}
	if fast != wantFast {
		t.Errorf("fast path taken = %v, want %v", fast, wantFast)
	}
}

// TestFastPathProperties: random calls, ids, params and formatting, with
// a fixed seed so a failure replays.
func TestFastPathProperties(t *testing.T) {
	p := kitPaths(t, nil)
	r := rand.New(rand.NewPCG(11, 2026))
	fast := 0
	const n = 600
	for range n {
		if p.Compare(t, randomHeaders(r), randomCall(r)) {
			fast++
		}
		if t.Failed() {
			return
		}
	}
	if fast < n/4 {
		t.Errorf("only %d of %d random calls took the fast path: the cases no longer exercise it", fast, n)
	}
}

// TestFastPathSeeds sends the fuzz target's seeds both ways.
func TestFastPathSeeds(t *testing.T) {
	p := kitPaths(t, nil)
	for _, s := range fastPathSeeds {
		p.Compare(t, kit.Headers(), s)
	}
}

// FuzzFastPathMatchesSDK sends arbitrary bodies to both paths and fails on
// any byte of difference.
//
//	go test -run '^$' -fuzz FuzzFastPathMatchesSDK ./server/mcphttp/
func FuzzFastPathMatchesSDK(f *testing.F) {
	for _, s := range fastPathSeeds {
		f.Add(s)
	}
	p := kitPaths(f, nil)
	f.Fuzz(func(t *testing.T, body string) {
		p.Compare(t, kit.Headers(), body)
	})
}

// TestFastPathArgumentErrorsByRevision: invalid arguments are answered by
// the request's revision (-32602 up to 2025-06-18, an isError result from
// 2025-11-25); the fast path, which has no SDK session to ask, must read
// the same revision as the go-sdk does.
func TestFastPathArgumentErrorsByRevision(t *testing.T) {
	p := kitPaths(t, nil)
	bad := kit.CallBody("3", kit.ToolEcho, `{"text":["a"]}`)
	for _, rev := range append(mcphttp.ProtocolVersions(), "") {
		t.Run("revision "+rev, func(t *testing.T) {
			header := kit.Headers()
			if rev == "" {
				header.Del("Mcp-Protocol-Version")
			} else {
				header.Set("Mcp-Protocol-Version", rev)
			}
			p.Compare(t, header, bad)
		})
	}
}

// fastPathSeeds are whole bodies around the edges of what the fast path
// takes: ids the SDK rewrites, params it reads, envelopes it refuses,
// arguments each tool answers in its own way.
var fastPathSeeds = []string{
	kit.CallBody("1", "echo", `{"text":"Helensburgh Central Station","n":62.4,"flag":false}`),
	kit.CallBody("1.5", "structured", `{}`),
	kit.CallBody("1e2", "structured", `{}`),
	kit.CallBody("-0", "structured", `{}`),
	kit.CallBody("12345678901234567890", "structured", `{}`),
	kit.CallBody(`"a\u0041"`, "structured", `{}`),
	kit.CallBody(`"é"`, "structured", `{}`),
	kit.CallBody(`""`, "structured", `{}`),
	kit.CallBody(`"a&b <c>"`, "structured", `{}`),
	kit.CallBody("null", "structured", `{}`),
	kit.CallBody("1", "echo", `null`),
	kit.CallBody("1", "echo", `[]`),
	kit.CallBody("1", "echo", `"s"`),
	kit.CallBody("1", "echo", `{"text":{"a":[1,2]}}`),
	kit.CallBody("1", "echo", `{"text":"\u00e9t\u00e9 \u0026 \u003cb\u003e","n":1e400}`),
	kit.CallBody("1", "echo", `{"text":"x","deep":[[[[{"a":null}]]]]}`),
	kit.CallBody("1", "refuse", `{}`),
	kit.CallBody("1", "fail", `{}`),
	kit.CallBody("1", "panic", `{}`),
	kit.CallBody("1", "progress", `{}`),
	kit.CallBody("1", "ech\u006f", `{"text":"x"}`),
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"structured"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"structured","_meta":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"structured","_meta":{"progressToken":null}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"structured","arguments":{},"extra":1}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"structured","name":"echo"}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"structured"}}`,
	`{"id":1,"method":"tools/call","params":{"name":"structured"},"jsonrpc":"2.0"}`,
	` { "jsonrpc" : "2.0" , "id" : 1 , "method" : "tools/call" , "params" : { "name" : "echo" , "arguments" : { "text" : "x" } } } `,
	`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"structured"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
}

// randomHeaders are the specification's headers, one time in three with a
// header that changes how either path answers.
func randomHeaders(r *rand.Rand) http.Header {
	h := kit.Headers()
	if r.IntN(3) > 0 {
		return h
	}
	switch r.IntN(9) {
	case 0:
		h.Set("Mcp-Session-Id", "s-1")
	case 1:
		h.Set("Last-Event-ID", "7")
	case 2:
		h.Del("Mcp-Protocol-Version")
	case 3:
		h.Set("Mcp-Protocol-Version", []string{"2025-03-26", "2024-11-05", "2026-07-28", "2025-11-25", "bogus"}[r.IntN(5)])
	case 4:
		h.Set("Accept", []string{"*/*", "application/*, text/*", "text/event-stream, application/json;q=0.9", "application/json"}[r.IntN(4)])
	case 5:
		h.Set("Content-Type", []string{"application/json; charset=utf-8", "text/plain", "application/json-rpc"}[r.IntN(3)])
	case 6:
		h.Set("Mcp-Method", "tools/call")
	case 7:
		h.Set("Origin", []string{"http://localhost:3000", "https://evil.example"}[r.IntN(2)])
	case 8:
		h.Add("Accept", "text/event-stream")
	}
	return h
}

// randomCall builds a tools/call with random members, mostly valid.
func randomCall(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	sp := func() string { return pick("", "", "", " ", "\n\t") }
	texts := []string{`"Helensburgh Central Station"`, `"Glasgow Airport"`, `"xxx"`, `""`, `"G84 7HL"`,
		`"Dumbarton & Loch Lomond <x>"`, `"£62.40 · 22 miles"`, `"\u00e9t\u00e9"`, `"a\"b\\c"`, `"\u0026\u003c"`, `1`, `null`, `true`}
	values := map[string][]string{
		"text":  texts,
		"n":     {`1`, `4`, `0`, `3.0`, `2.5`, `-1`, `1e400`, `62.4`, `9007199254740993`},
		"flag":  {`true`, `false`, `"yes"`},
		"when":  {`"2025-12-25T10:00:00Z"`, `"tomorrow"`},
		"extra": {`{}`, `[1,2]`, `"x"`, `{"a":{"b":[null]}}`},
	}
	var members []string
	for _, k := range []string{"text", "n", "flag", "when", "extra"} {
		if r.IntN(10) < 7 || k == "text" {
			if r.IntN(20) == 0 {
				continue // a missing required field now and then
			}
			members = append(members, sp()+`"`+k+`"`+sp()+":"+sp()+pick(values[k]...))
		}
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	args := "{" + strings.Join(members, ",") + "}"
	if r.IntN(25) == 0 {
		args = pick(`null`, `[]`, `"s"`, `{}`)
	}
	params := []string{`"name":` + pick(`"echo"`, `"echo"`, `"echo"`, `"structured"`, `"refuse"`, `"fail"`, `"nope"`), `"arguments":` + args}
	if r.IntN(15) == 0 {
		params = append(params, pick(`"_meta":{}`, `"_meta":{"progressToken":null}`, `"other":1`))
	}
	if r.IntN(15) == 0 {
		params = params[:1] // no arguments
	}
	r.Shuffle(len(params), func(i, j int) { params[i], params[j] = params[j], params[i] })
	env := []string{
		`"jsonrpc":` + sp() + `"2.0"`,
		`"id":` + pick("1", "0", "-7", "42", "999999999999999", "1.0", "2e1", `"abc"`, `"a b"`, `"x\"y"`, `"ü"`, "9007199254740993"),
		`"method":"tools/call"`,
		`"params":{` + strings.Join(params, ","+sp()) + "}",
	}
	r.Shuffle(len(env), func(i, j int) { env[i], env[j] = env[j], env[i] })
	return sp() + "{" + sp() + strings.Join(env, ","+sp()) + sp() + "}" + sp()
}

func TestRandomCallsAreJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		if b := randomCall(r); !json.Valid([]byte(b)) {
			t.Fatalf("generator made invalid JSON: %s", b)
		}
	}
}

// TestFastPathLongReply: a reply longer than net/http's response buffer
// goes out with its length stated rather than in chunks, the same bytes as
// the go-sdk's, with its & < > as themselves and an escaped backslash kept.
func TestFastPathLongReply(t *testing.T) {
	text := strings.Repeat(`a&b<c>d "q" \u0026 `, 300) // ~5.7 KB, twice in the reply
	args, _ := json.Marshal(map[string]string{"text": text})
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":` + string(args) + `}}`
	if !kitPaths(t, nil).Compare(t, kit.Headers(), body) {
		t.Fatal("the fast path did not answer")
	}

	cfg, _ := kit.Config(t)
	r := kit.Post(t, kit.Serve(t, kit.New("/mcp").Endpoint, cfg).URL, kit.Headers(), body)
	raw := r.Body
	if r.Header.Get("Content-Length") != strconv.Itoa(len(raw)) || len(raw) < 2*len(text) {
		t.Errorf("framing: Content-Length %q for a body of %d bytes (chunked when not stated)", r.Header.Get("Content-Length"), len(raw))
	}
	var reply struct {
		ID     int `json:"id"`
		Result struct {
			Content           []struct{ Text string } `json:"content"`
			StructuredContent struct{ Text string }   `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.ID != 7 || len(reply.Result.Content) != 1 || reply.Result.Content[0].Text != text || reply.Result.StructuredContent.Text != text {
		t.Errorf("the reply's values changed: id %d, %d contents", reply.ID, len(reply.Result.Content))
	}
	if !strings.Contains(string(raw), `a&b<c>d`) {
		t.Errorf("HTML escapes left in the reply: %.200s", raw)
	}
}

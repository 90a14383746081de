package trident_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// The differential tests: every request goes to the same server built twice,
// once with the fast path (server/fastcall) and once with every call
// through the go-sdk (Options.DisableFastPath), and the two answers must be
// the same bytes: status, headers and body.

// paths is one configuration served both ways.
type paths struct {
	fast, ref http.Handler
	log       *accessLog
}

// newPaths builds the host with the Trident endpoint twice from the same
// options: with the fast path, and with Options.DisableFastPath.
func newPaths(t testing.TB, o func() *opts) *paths {
	t.Helper()
	p := &paths{log: &accessLog{}}
	fast, ref := o(), o()
	fast.host.Logger = slog.New(p.log)
	ref.host.DisableFastPath = true
	p.fast, p.ref = newServer(t, fast).Handler(), newServer(t, ref).Handler()
	return p
}

func defaultOpts() *opts { return &opts{} }

// accessLog is a slog.Handler that keeps whether the last request line said
// fast=true: the host logs which path answered each call.
type accessLog struct {
	mu   sync.Mutex
	fast bool
}

func (l *accessLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *accessLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *accessLog) WithGroup(string) slog.Handler            { return l }
func (l *accessLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "http request" {
		return nil
	}
	fast := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "fast" {
			fast = a.Value.Bool()
		}
		return true
	})
	l.mu.Lock()
	l.fast = fast
	l.mu.Unlock()
	return nil
}

func (l *accessLog) lastFast() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fast
}

// exchange is what a client sees of one reply.
type exchange struct {
	Status int
	Header http.Header
	Body   string
}

func send(h http.Handler, header http.Header, body string) exchange {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header = header.Clone()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return exchange{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
}

// compare sends body to both servers, fails the test when the answers
// differ, and reports whether the fast path answered it.
func (p *paths) compare(t testing.TB, header http.Header, body string) bool {
	t.Helper()
	fast := send(p.fast, header, body)
	tookFast := p.log.lastFast()
	ref := send(p.ref, header, body)
	if diff := cmp.Diff(ref, fast); diff != "" {
		t.Errorf("fast path (fast=%v) differs from the go-sdk for %s (-sdk +fast):\n%s", tookFast, body, diff)
	}
	return tookFast
}

func callBody(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// Every sample of contracts/samples, both ways; the tools/call samples must
// take the fast path.
func TestFastPathSamples(t *testing.T) {
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	p := newPaths(t, defaultOpts)
	oauth := newPaths(t, func() *opts {
		return &opts{host: server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:9/auth/v1"}}}
	})
	for _, s := range samples {
		t.Run(s.Name, func(t *testing.T) {
			header := mcpHeaders()
			for k, v := range s.HTTP.RequestHeaders {
				header.Set(k, v)
			}
			target := p
			if s.Mode == "oauth" {
				target = oauth
			}
			fast := target.compare(t, header, string(s.Request))
			wantFast := s.Mode == "" && s.HTTP.Status == 200 && bytes.Contains(s.Request, []byte(`"tools/call"`)) &&
				s.ErrorCode != string(errcodes.MethodNotFound) // unknown tools are the front door's
			if fast != wantFast {
				t.Errorf("fast path taken = %v, want %v", fast, wantFast)
			}
		})
	}
}

// A case per row of the error catalogue, both ways.
func TestFastPathCatalogue(t *testing.T) {
	failing := func(f *fakeGeo) func() *opts {
		return func() *opts { return withFake(f) }
	}
	type tc struct {
		opts   func() *opts
		header func(http.Header)
		bodies []string // sent in order; the last is the one the code is about
		fast   bool     // the fast path answers it
	}
	set := func(k, v string) func(http.Header) { return func(h http.Header) { h.Set(k, v) } }
	sampleCall := callBody("7", "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive"}`)
	cases := map[errcodes.Code]tc{
		errcodes.InvalidArguments:   {bodies: []string{callBody("1", "start_booking", `{"pickup":"ab","dropoff":"Glasgow Airport","vehicleType":"limo"}`)}, fast: true},
		errcodes.GeocodeFailed:      {bodies: []string{callBody("2", "estimate_fare", `{"pickup":"xxx","dropoff":"Glasgow Airport"}`)}, fast: true},
		errcodes.RoutingUnavailable: {opts: failing(&fakeGeo{geoErr: fmt.Errorf("nominatim: %w", geo.ErrUnavailable)}), bodies: []string{sampleCall}, fast: true},
		errcodes.CapacityExceeded:   {bodies: []string{callBody(`"c"`, "start_booking", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":9}`)}, fast: true},
		errcodes.InternalError:      {opts: failing(&fakeGeo{panicMsg: "boom"}), bodies: []string{sampleCall}, fast: true},
		errcodes.Unauthorized: {opts: func() *opts {
			return &opts{host: server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:9/auth/v1"}}}
		}, bodies: []string{sampleCall}},
		errcodes.MethodNotFound:             {bodies: []string{callBody("3", "book_now", `{}`)}},
		errcodes.NotAcceptable:              {header: set("Accept", "application/json"), bodies: []string{sampleCall}},
		errcodes.ParseError:                 {bodies: []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`}},
		errcodes.InvalidRequest:             {bodies: []string{`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"estimate_fare"}}`}},
		errcodes.UnsupportedProtocolVersion: {header: set("MCP-Protocol-Version", "1999-01-01"), bodies: []string{sampleCall}},
		errcodes.ForbiddenOrigin:            {header: set("Origin", "https://attacker.example"), bodies: []string{sampleCall}},
		errcodes.PayloadTooLarge:            {opts: func() *opts { return &opts{host: server.Options{MaxBodyBytes: 64}} }, bodies: []string{sampleCall}},
		errcodes.RateLimited: {opts: func() *opts {
			return &opts{ep: trident.Options{RateLimitPolicy: &limits.Policy{Tools: map[string]limits.Rule{"estimate_fare": {PerMinute: 1}}}}}
		}, bodies: []string{sampleCall, sampleCall}},
	}
	rows, err := contracts.Catalogue(tridentcontracts.Set) // the shared rows and Trident's own
	if err != nil {
		t.Fatal(err)
	}
	// Rows Trident's endpoint never answers: its tools need no scope. The
	// scope check runs before the fast path forks from the SDK path
	// (mcphttp's requireScope, in both branches); e2e/relay_access_test.go
	// covers it on Relay.
	notTrident := map[errcodes.Code]bool{errcodes.InsufficientScope: true}
	for _, e := range rows {
		c, ok := cases[errcodes.Code(e.Name)]
		if !ok && notTrident[errcodes.Code(e.Name)] {
			continue
		}
		if !ok {
			t.Errorf("no differential case for catalogue code %s: add one", e.Name)
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			opts := c.opts
			if opts == nil {
				opts = defaultOpts
			}
			p := newPaths(t, opts)
			header := mcpHeaders()
			if c.header != nil {
				c.header(header)
			}
			var fast bool
			for _, b := range c.bodies {
				fast = p.compare(t, header, b)
			}
			if fast != c.fast {
				t.Errorf("fast path taken = %v, want %v", fast, c.fast)
			}
		})
	}
}

// Property cases: random calls, ids, params and formatting, with a fixed
// seed so a failure replays.
func TestFastPathProperties(t *testing.T) {
	p := newPaths(t, defaultOpts)
	r := rand.New(rand.NewPCG(11, 2026))
	fast := 0
	const n = 600
	for range n {
		if p.compare(t, randomHeaders(r), randomCall(r)) {
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

// Every seed of the fuzz targets, both ways.
func TestFastPathFuzzCorpus(t *testing.T) {
	p := newPaths(t, defaultOpts)
	for _, args := range toolCallSeeds {
		for _, tool := range []string{"estimate_fare", "start_booking", "get_service_info"} {
			p.compare(t, mcpHeaders(), callBody("42", tool, args))
		}
	}
	for _, s := range fastPathSeeds {
		p.compare(t, mcpHeaders(), s)
	}
}

// FuzzFastPathMatchesSDK sends arbitrary bodies to both paths and fails on
// any byte of difference.
//
//	go test -run '^$' -fuzz FuzzFastPathMatchesSDK ./server/trident/
func FuzzFastPathMatchesSDK(f *testing.F) {
	for _, s := range fastPathSeeds {
		f.Add(s)
	}
	for _, args := range toolCallSeeds {
		f.Add(callBody("1", "estimate_fare", args))
	}
	p := newPaths(f, defaultOpts)
	f.Fuzz(func(t *testing.T, body string) {
		p.compare(t, mcpHeaders(), body)
	})
}

// fastPathSeeds are whole bodies around the edges of what the fast path
// takes: ids the SDK rewrites, params it reads, envelopes it refuses.
var fastPathSeeds = []string{
	callBody("1", "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`),
	callBody("1.5", "get_service_info", `{}`),
	callBody("1e2", "get_service_info", `{}`),
	callBody("-0", "get_service_info", `{}`),
	callBody("12345678901234567890", "get_service_info", `{}`),
	callBody(`"a\u0041"`, "get_service_info", `{}`),
	callBody(`"é"`, "get_service_info", `{}`),
	callBody(`""`, "get_service_info", `{}`),
	callBody(`"a&b <c>"`, "get_service_info", `{}`),
	callBody("null", "get_service_info", `{}`),
	callBody("1", "get_service_info", `null`),
	callBody("1", "get_service_info", `[]`),
	callBody("1", "get\u005fservice_info", `{}`),
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","_meta":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","_meta":{"progressToken":null}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","arguments":{},"extra":1}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","name":"estimate_fare"}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"get_service_info"}}`,
	`{"id":1,"method":"tools/call","params":{"name":"get_service_info"},"jsonrpc":"2.0"}`,
	` { "jsonrpc" : "2.0" , "id" : 1 , "method" : "tools/call" , "params" : { "name" : "get_service_info" , "arguments" : { } } } `,
	`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_service_info"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport & <Terminal>","vehicleType":"mpv"}}}`,
}

// randomHeaders are the seed's headers, one time in three with a header
// that changes how either path answers.
func randomHeaders(r *rand.Rand) http.Header {
	h := mcpHeaders()
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
	places := []string{`"Helensburgh Central Station"`, `"Glasgow Airport"`, `"Edinburgh Airport"`, `"Balloch"`, `"xxx"`, `"ab"`, `""`,
		`"G84 7HL"`, `"Dumbarton & Loch Lomond <x>"`, `"Glasgow Central"`, `"Prestwick Airport"`, `"Oban"`, `1`, `null`, `"\u00e9t\u00e9"`}
	values := map[string][]string{
		"pickup":       places,
		"dropoff":      places,
		"vehicleType":  {`"saloon"`, `"executive"`, `"mpv"`, `"wav"`, `"eight_seater"`, `"limo"`, `3`},
		"departAt":     {`"2025-12-25T10:00:00Z"`, `"2025-12-25T23:59:60Z"`, `"tomorrow"`, `"2025-03-12T02:00:00+01:00"`},
		"meetAndGreet": {`true`, `false`, `"yes"`},
		"passengers":   {`1`, `4`, `6`, `8`, `9`, `0`, `3.0`, `2.5`, `-1`, `1e400`},
		"extra":        {`{}`, `[1,2]`, `"x"`},
	}
	var members []string
	for _, k := range []string{"pickup", "dropoff", "vehicleType", "departAt", "meetAndGreet", "passengers", "extra"} {
		if r.IntN(10) < 7 || k == "pickup" || k == "dropoff" {
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
	params := []string{`"name":` + pick(`"estimate_fare"`, `"estimate_fare"`, `"start_booking"`, `"start_booking"`, `"get_service_info"`, `"nope"`), `"arguments":` + args}
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

// Invalid arguments are answered by the request's revision (-32602 up to
// 2025-06-18, an isError result from 2025-11-25): the fast path, which has
// no SDK session to ask, must read the same revision as the go-sdk does.
func TestFastPathArgumentErrorsByRevision(t *testing.T) {
	p := newPaths(t, defaultOpts)
	bad := callBody("3", "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"rocket"}`)
	for _, rev := range append(mcphttp.ProtocolVersions(), "") {
		t.Run("revision "+rev, func(t *testing.T) {
			header := mcpHeaders()
			if rev == "" {
				header.Del("Mcp-Protocol-Version")
			} else {
				header.Set("Mcp-Protocol-Version", rev)
			}
			p.compare(t, header, bad)
		})
	}
}

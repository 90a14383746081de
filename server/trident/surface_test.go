package trident_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/tridenttaxis/trident-mcp/collections"
	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/schemabundle"
	"github.com/tridenttaxis/trident-mcp/gen/trident/ts"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

func get(t testing.TB, url string) reply {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

// wantToolList is tools.json with each schema file inlined, as tools/list
// must serve it.
func wantToolList(t testing.TB) []byte {
	t.Helper()
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	for _, ct := range m.Tools {
		in, _ := ct.Input()
		out, _ := ct.Output()
		tools = append(tools, map[string]any{
			"name": ct.Name, "title": ct.Title, "description": ct.Description,
			"annotations": ct.Annotations, "inputSchema": in, "outputSchema": out,
		})
	}
	b, _ := json.Marshal(map[string]any{"tools": tools})
	return b
}

func TestToolsListServesContractSchemas(t *testing.T) {
	ts := start(t, nil)
	r := post(t, ts.URL+"/mcp", mcpHeaders(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var resp struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || resp.Result.Tools == nil {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	// The SDK adds the cache hints of newer protocols (ttlMs, cacheScope)
	// beside "tools"; the tools themselves must be the contract's.
	result, _ := json.Marshal(map[string]json.RawMessage{"tools": resp.Result.Tools})
	if d := jsonDiff(t, wantToolList(t), result); d != "" {
		t.Errorf("tools/list differs from contracts (-want +got):\n%s", d)
	}
	lt := get(t, ts.URL+"/.mcp/list-tools")
	if d := jsonDiff(t, wantToolList(t), lt.body); d != "" {
		t.Errorf("/.mcp/list-tools differs from contracts (-want +got):\n%s", d)
	}
}

// TestSDKClientInitializesFirst drives the server with the official Go SDK
// client, which initializes, sends notifications/initialized, lists tools and
// calls one, with progress.
func TestSDKClientInitializesFirst(t *testing.T) {
	ts := start(t, nil)
	ctx := context.Background()
	// The client dispatches notifications on its own goroutines, so they
	// may land after CallTool returns: collect them through a channel.
	progressc := make(chan string, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progressc <- req.Params.Message
		},
	})
	// The SDK's client speaks 2026-07-28 (no handshake) unless told
	// otherwise; revisions_test.go covers that era.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-06-18" {
		t.Errorf("negotiated protocol %q, want 2025-06-18", got)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "trident-taxis-mcp" {
		t.Errorf("server name %q", got)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != 3 {
		t.Fatalf("ListTools: %v, %d tools", err, len(lt.Tools))
	}
	params := &mcp.CallToolParams{Name: "estimate_fare", Arguments: map[string]any{
		"pickup": "Helensburgh Central Station", "dropoff": "Glasgow Airport", "vehicleType": "executive",
	}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.IsError || res.Content[0].(*mcp.TextContent).Text != "£62.40 · 22 miles · 33 min · day tariff" {
		t.Errorf("result: %+v", res.Content[0])
	}
	var progress []string
	for len(progress) < 4 {
		select {
		case m := <-progressc:
			progress = append(progress, m)
		case <-time.After(10 * time.Second): // a guard against hanging, not a timing
			t.Fatalf("only %d progress notifications arrived: %q", len(progress), progress)
		}
	}
	if strings.Join(progress, ",") != "Geocoding pickup,Geocoding dropoff,Routing,Pricing" {
		t.Errorf("progress messages %q", progress)
	}
}

// TestStructuredContentMatchesOutputSchemas validates the structured results
// of many calls against the output schemas, formats asserted.
func TestStructuredContentMatchesOutputSchemas(t *testing.T) {
	ts := start(t, &opts{ep: trident.Options{BookingBaseURL: "https://book.example.test/"}})
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range []string{"estimate_fare", "get_service_info", "start_booking"} {
		b, _ := tridentcontracts.Set.ReadFile("schemas/" + tool + ".output.json")
		c := jsonschema.NewCompiler()
		c.AssertFormat = true
		c.AddResource("mem://"+tool, bytes.NewReader(b))
		schemas[tool] = c.MustCompile("mem://" + tool)
	}
	calls := []struct{ tool, args string }{
		{"get_service_info", `{}`},
		{"estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport"}`},
		{"estimate_fare", `{"pickup":"Glasgow Airport","dropoff":"Helensburgh Central Station","vehicleType":"mpv","departAt":"2025-12-25T03:00:00Z","meetAndGreet":true}`},
		{"start_booking", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"wav","departAt":"2025-06-01T09:30:00+01:00"}`},
	}
	for _, c := range calls {
		got := call(t, ts.URL, c.tool, c.args)
		res, _ := got["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("%s %s: %v", c.tool, c.args, got)
		}
		b, _ := json.Marshal(res["structuredContent"])
		var doc any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		dec.Decode(&doc)
		if err := schemas[c.tool].Validate(doc); err != nil {
			t.Errorf("%s structuredContent does not match its output schema: %v\n%s", c.tool, err, b)
		}
	}
	// BOOKING_BASE_URL shapes both links; departAt sits before meetAndGreet
	// and is echoed as sent.
	info := call(t, ts.URL, "get_service_info", `{}`)
	if u := info["result"].(map[string]any)["structuredContent"].(map[string]any)["bookingUrl"]; u != "https://book.example.test/" {
		t.Errorf("bookingUrl = %v", u)
	}
	b := call(t, ts.URL, "start_booking", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"mpv","departAt":"2025-06-01T09:30:00+01:00","meetAndGreet":true,"passengers":3}`)
	sc := b["result"].(map[string]any)["structuredContent"].(map[string]any)
	url := sc["bookingUrl"].(string)
	if !strings.HasPrefix(url, "https://book.example.test/book?pickup=Helensburgh+Central+Station&dropoff=Glasgow+Airport&vehicleType=mpv&fare=") ||
		!strings.HasSuffix(url, "&departAt=2025-06-01T09%3A30%3A00%2B01%3A00&meetAndGreet=1") || strings.Contains(url, "passengers") {
		t.Errorf("bookingUrl = %s", url)
	}
	pre := sc["prefilled"].(map[string]any)
	if pre["departAt"] != "2025-06-01T09:30:00+01:00" || pre["meetAndGreet"] != true {
		t.Errorf("prefilled = %v", pre)
	}
	if sc["confirmed"] != false || sc["requiresPassengerAction"] != true {
		t.Errorf("confirmed/requiresPassengerAction = %v/%v", sc["confirmed"], sc["requiresPassengerAction"])
	}
}

func TestCatalogueEndpoints(t *testing.T) {
	ts := start(t, nil)
	idx := get(t, ts.URL+"/mcp-schemas/index.json")
	if idx.status != 200 || !bytes.Equal(idx.body, schemabundle.Index) {
		t.Errorf("/mcp-schemas/index.json: %d", idx.status)
	}
	for name, p := range schemabundle.Files {
		want, _ := tridentcontracts.Set.ReadFile(p)
		got := get(t, ts.URL+"/mcp-schemas/"+name)
		if got.status != 200 || !bytes.Equal(got.body, want) {
			t.Errorf("/mcp-schemas/%s not served byte for byte (status %d)", name, got.status)
		}
	}
	if d := get(t, ts.URL+"/mcp-schemas/mcp-tools.d.ts"); !bytes.Equal(d.body, ts2()) {
		t.Error("/mcp-schemas/mcp-tools.d.ts differs from gen/trident/ts")
	}
	for _, name := range []string{"index.json", "trident.postman_collection.json", "trident.insomnia.json"} {
		want, _ := collections.FS.ReadFile(name)
		if got := get(t, ts.URL+"/mcp-schemas/collections/"+name); got.status != 200 || !bytes.Equal(got.body, want) {
			t.Errorf("/mcp-schemas/collections/%s: status %d", name, got.status)
		}
	}
	samples, _ := tridentcontracts.Set.Samples()
	for _, s := range append(samples, contracts.Sample{Name: "index"}) {
		want, _ := tridentcontracts.Set.ReadFile("samples/" + s.Name + ".json")
		if got := get(t, ts.URL+"/samples/"+s.Name+".json"); got.status != 200 || !bytes.Equal(got.body, want) {
			t.Errorf("/samples/%s.json: status %d", s.Name, got.status)
		}
	}
	// The folder paths answer their index, as before the routes came from
	// the OpenAPI document.
	sampleIndex, _ := tridentcontracts.Set.ReadFile("samples/index.json")
	collectionIndex, _ := collections.FS.ReadFile("index.json")
	for p, want := range map[string][]byte{"/mcp-schemas/": schemabundle.Index, "/samples/": sampleIndex,
		"/mcp-schemas/collections": collectionIndex, "/mcp-schemas/collections/": collectionIndex} {
		if got := get(t, ts.URL+p); got.status != 200 || !bytes.Equal(got.body, want) {
			t.Errorf("%s: status %d, want its index", p, got.status)
		}
	}
	for _, p := range []string{"/samples/../tools.json", "/mcp-schemas/nope.json", "/samples/nope.json"} {
		if got := get(t, ts.URL+p); got.status != 404 {
			t.Errorf("%s: status %d, want 404", p, got.status)
		}
	}
	docs := get(t, ts.URL+"/mcp-docs")
	for _, want := range []string{"estimate_fare", "get_service_info", "start_booking", "GEOCODE_FAILED", "CAPACITY_EXCEEDED",
		"pickup", "minLength 3", "/mcp-schemas/start_booking.input.json", "samples/start_booking.error.json"} {
		if !bytes.Contains(docs.body, []byte(want)) {
			t.Errorf("/mcp-docs lacks %q", want)
		}
	}
	if !strings.HasPrefix(docs.header.Get("Content-Type"), "text/html") {
		t.Errorf("/mcp-docs Content-Type %q", docs.header.Get("Content-Type"))
	}
	meta := get(t, ts.URL+"/.well-known/oauth-protected-resource")
	if !bytes.Contains(meta.body, []byte(`"authorization_required":false`)) || !bytes.Contains(meta.body, []byte(ts.URL)) && !bytes.Contains(meta.body, []byte("localhost:8080/mcp")) {
		t.Errorf("protected-resource metadata: %s", meta.body)
	}
}

func ts2() []byte { return ts.MCPToolsDTS }

func TestHealthAndMetrics(t *testing.T) {
	ts := start(t, nil)
	if r := get(t, ts.URL+"/healthz"); r.status != 200 {
		t.Errorf("/healthz %d", r.status)
	}
	if r := get(t, ts.URL+"/readyz"); r.status != 200 {
		t.Errorf("/readyz %d", r.status)
	}
	call(t, ts.URL, "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport"}`)
	call(t, ts.URL, "estimate_fare", `{"pickup":"xxx","dropoff":"Glasgow Airport"}`)
	call(t, ts.URL, "estimate_fare", `{"pickup":"ab","dropoff":"Glasgow Airport"}`)
	call(t, ts.URL, "nope", `{}`)
	m := get(t, ts.URL+"/metrics")
	for _, want := range []string{
		`mcp_tool_calls_total{endpoint="/mcp",outcome="ok",tool="estimate_fare"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp",outcome="geocode_failed",tool="estimate_fare"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp",outcome="invalid_arguments",tool="estimate_fare"} 1`,
		`mcp_tool_calls_total{endpoint="/mcp",outcome="method_not_found",tool="unknown"} 1`,
		`mcp_tool_call_duration_seconds_bucket{endpoint="/mcp",outcome="ok",tool="estimate_fare",le="+Inf"} 1`,
		`mcp_http_requests_total{code="200",route="/mcp"} 4`,
		`go_goroutines`,
	} {
		if !bytes.Contains(m.body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestRateLimit(t *testing.T) {
	now := daytime
	policy := trident.SeedRateLimit()
	ts := start(t, &opts{ep: trident.Options{RateLimit: "seed", RateLimitPolicy: &policy, Now: func() time.Time { return now }}})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":9}}}`
	for i := range 10 {
		if r := post(t, ts.URL+"/mcp", mcpHeaders(), body); r.status != 200 {
			t.Fatalf("call %d: status %d", i+1, r.status)
		}
	}
	r := post(t, ts.URL+"/mcp", mcpHeaders(), body)
	if r.status != 429 || r.header.Get("Retry-After") != "6" {
		t.Fatalf("11th start_booking in a minute: %d Retry-After=%q, want 429 and 6", r.status, r.header.Get("Retry-After"))
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Too Many Requests: retry after 6 s"}}`
	if d := jsonDiff(t, []byte(want), r.body); d != "" {
		t.Errorf("429 body (-want +got):\n%s", d)
	}
	if r := post(t, ts.URL+"/mcp", mcpHeaders(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); r.status != 200 {
		t.Errorf("tools/list limited: %d", r.status)
	}
	now = now.Add(6 * time.Second)
	if r := post(t, ts.URL+"/mcp", mcpHeaders(), body); r.status != 200 {
		t.Errorf("after Retry-After: %d", r.status)
	}
	// Off by default: the seed enforces no limit.
	plain := start(t, nil)
	for i := range 40 {
		if r := post(t, plain.URL+"/mcp", mcpHeaders(), body); r.status != 200 {
			t.Fatalf("default server limited call %d: %d", i+1, r.status)
		}
	}
}

func TestOAuthUnauthorizedSample(t *testing.T) {
	s := loadSample(t, "errors/unauthorized")
	ts := start(t, &opts{host: server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:1/auth/v1", RefreshInterval: -1}}})
	r := post(t, ts.URL+"/mcp", mcpHeaders(), string(s.Request))
	if r.status != s.HTTP.Status {
		t.Errorf("status %d, want %d", r.status, s.HTTP.Status)
	}
	for k, v := range s.HTTP.Headers {
		v = strings.ReplaceAll(v, "{{PUBLIC_BASE_URL}}", server.DefaultPublicBaseURL)
		if got := r.header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if d := jsonDiff(t, s.Response, r.body); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	if got := get(t, ts.URL+"/readyz"); got.status != 503 {
		t.Errorf("/readyz before keys load: %d, want 503", got.status)
	}
}

// serve runs server.Serve on a loopback listener, as the binary does; cancel
// starts its shutdown, and served yields what Serve returned.
func serve(t testing.TB, o *opts) (ln net.Listener, cancel context.CancelFunc, served <-chan error) {
	t.Helper()
	if o.host.ShutdownDelay == 0 {
		o.host.ShutdownDelay = -1 // no load balancer to wait for, unless the test says so
	}
	srv := newServer(t, o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return ln, cancel, done
}

// TestGracefulShutdown starts a call that blocks in the geocoder, cancels
// the server's context, and checks the call still completes while new
// connections are refused.
func TestGracefulShutdown(t *testing.T) {
	f := &fakeGeo{block: make(chan struct{}), entered: make(chan struct{}, 4)}
	ln, cancel, served := serve(t, &opts{ep: trident.Options{Geocoder: f, Router: f}})
	url := "http://" + ln.Addr().String()

	result := make(chan reply, 1)
	go func() {
		result <- post(t, url+"/mcp", mcpHeaders(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh","dropoff":"Glasgow Airport"}}}`)
	}()
	<-f.entered // the call is in flight
	cancel()
	// Shutdown closes the listener first; wait until new connections fail.
	for {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		c.Close()
		select {
		case <-served:
			t.Fatal("Serve returned while a call was in flight")
		default:
		}
	}
	close(f.block)
	r := <-result
	if r.status != 200 || !bytes.Contains(r.body, []byte(`"fareGBP"`)) {
		t.Errorf("in-flight call: %d %s", r.status, r.body)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

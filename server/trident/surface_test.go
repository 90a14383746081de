package trident_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/tridenttaxis/trident-mcp/collections"
	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/schemabundle"
	"github.com/tridenttaxis/trident-mcp/gen/trident/ts"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

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
	r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var resp struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.Body, &resp); err != nil || resp.Result.Tools == nil {
		t.Fatalf("tools/list: %d %s", r.Status, r.Body)
	}
	// The SDK adds the cache hints of newer protocols (ttlMs, cacheScope)
	// beside "tools"; the tools themselves must be the contract's.
	result, _ := json.Marshal(map[string]json.RawMessage{"tools": resp.Result.Tools})
	if d := kit.JSONDiff(t, wantToolList(t), result); d != "" {
		t.Errorf("tools/list differs from contracts (-want +got):\n%s", d)
	}
	lt := kit.Get(t, ts.URL+"/.mcp/list-tools")
	if d := kit.JSONDiff(t, wantToolList(t), lt.Body); d != "" {
		t.Errorf("/.mcp/list-tools differs from contracts (-want +got):\n%s", d)
	}
}

// TestGoSDKClient: Trident as the official Go SDK client sees it after
// the 2025-06-18 handshake: its name, its three tools, and a quote with its
// four progress steps. (That a client may initialize first on a stateless
// endpoint is the front door's: server/mcphttp.)
func TestGoSDKClient(t *testing.T) {
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
	// otherwise; server/mcphttp's revision tests cover that era.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-06-18" {
		t.Errorf("negotiated protocol %q, want 2025-06-18", got)
	}
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	want := &mcp.Implementation{Name: "trident-taxis-mcp", Title: "Trident Taxis MCP tools", Version: m.Server.Version}
	if d := cmp.Diff(want, cs.InitializeResult().ServerInfo); d != "" {
		t.Errorf("serverInfo (-want +got):\n%s", d)
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
	idx := kit.Get(t, ts.URL+"/mcp-schemas/index.json")
	if idx.Status != 200 || !bytes.Equal(idx.Body, schemabundle.Index) {
		t.Errorf("/mcp-schemas/index.json: %d", idx.Status)
	}
	for name, p := range schemabundle.Files {
		want, _ := tridentcontracts.Set.ReadFile(p)
		got := kit.Get(t, ts.URL+"/mcp-schemas/"+name)
		if got.Status != 200 || !bytes.Equal(got.Body, want) {
			t.Errorf("/mcp-schemas/%s not served byte for byte (status %d)", name, got.Status)
		}
	}
	if d := kit.Get(t, ts.URL+"/mcp-schemas/mcp-tools.d.ts"); !bytes.Equal(d.Body, ts2()) {
		t.Error("/mcp-schemas/mcp-tools.d.ts differs from gen/trident/ts")
	}
	for _, name := range []string{"index.json", "trident.postman_collection.json", "trident.insomnia.json"} {
		want, _ := collections.FS.ReadFile(name)
		if got := kit.Get(t, ts.URL+"/mcp-schemas/collections/"+name); got.Status != 200 || !bytes.Equal(got.Body, want) {
			t.Errorf("/mcp-schemas/collections/%s: status %d", name, got.Status)
		}
	}
	samples, _ := tridentcontracts.Set.Samples()
	for _, s := range append(samples, contracts.Sample{Name: "index"}) {
		want, _ := tridentcontracts.Set.ReadFile("samples/" + s.Name + ".json")
		if got := kit.Get(t, ts.URL+"/samples/"+s.Name+".json"); got.Status != 200 || !bytes.Equal(got.Body, want) {
			t.Errorf("/samples/%s.json: status %d", s.Name, got.Status)
		}
	}
	// The folder paths answer their index, as before the routes came from
	// the OpenAPI document.
	sampleIndex, _ := tridentcontracts.Set.ReadFile("samples/index.json")
	collectionIndex, _ := collections.FS.ReadFile("index.json")
	for p, want := range map[string][]byte{"/mcp-schemas/": schemabundle.Index, "/samples/": sampleIndex,
		"/mcp-schemas/collections": collectionIndex, "/mcp-schemas/collections/": collectionIndex} {
		if got := kit.Get(t, ts.URL+p); got.Status != 200 || !bytes.Equal(got.Body, want) {
			t.Errorf("%s: status %d, want its index", p, got.Status)
		}
	}
	for _, p := range []string{"/samples/../tools.json", "/mcp-schemas/nope.json", "/samples/nope.json"} {
		if got := kit.Get(t, ts.URL+p); got.Status != 404 {
			t.Errorf("%s: status %d, want 404", p, got.Status)
		}
	}
	docs := kit.Get(t, ts.URL+"/mcp-docs")
	for _, want := range []string{"estimate_fare", "get_service_info", "start_booking", "GEOCODE_FAILED", "CAPACITY_EXCEEDED",
		"pickup", "minLength 3", "/mcp-schemas/start_booking.input.json", "samples/start_booking.error.json",
		`<title>Trident Taxis MCP tools</title>`, `id="trident"`, `data-console="trident"`, `class="endpoint-url">` + ts.URL + `/mcp</pre>`} {
		if !bytes.Contains(docs.Body, []byte(want)) {
			t.Errorf("/mcp-docs lacks %q", want)
		}
	}
	if !strings.HasPrefix(docs.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/mcp-docs Content-Type %q", docs.Header.Get("Content-Type"))
	}
	meta := kit.Get(t, ts.URL+"/.well-known/oauth-protected-resource")
	if !bytes.Contains(meta.Body, []byte(`"authorization_required":false`)) || !bytes.Contains(meta.Body, []byte(`"resource":"`+ts.URL+`/mcp"`)) {
		t.Errorf("protected-resource metadata: %s", meta.Body)
	}
}

func ts2() []byte { return ts.MCPToolsDTS }

// TestRateLimit: RATE_LIMIT=seed caps start_booking at 10 a minute per
// client (the 11th is refused with Retry-After 6, a tenth of a minute),
// leaves the other methods alone, and is off by default, as the
// specification enforces no limit.
func TestRateLimit(t *testing.T) {
	now := daytime
	policy := trident.SeedRateLimit()
	ts := start(t, &opts{ep: trident.Options{RateLimit: "seed", RateLimitPolicy: &policy, Now: func() time.Time { return now }}})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":9}}}`
	for i := range 10 {
		if r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), body); r.Status != 200 {
			t.Fatalf("call %d: status %d", i+1, r.Status)
		}
	}
	r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), body)
	if r.Status != 429 || r.Header.Get("Retry-After") != "6" {
		t.Fatalf("11th start_booking in a minute: %d Retry-After=%q, want 429 and 6", r.Status, r.Header.Get("Retry-After"))
	}
	if r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); r.Status != 200 {
		t.Errorf("tools/list limited: %d", r.Status)
	}
	now = now.Add(6 * time.Second)
	if r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), body); r.Status != 200 {
		t.Errorf("after Retry-After: %d", r.Status)
	}
	// Off by default: the seed enforces no limit.
	plain := start(t, nil)
	for i := range 40 {
		if r := kit.Post(t, plain.URL+"/mcp", kit.Headers(), body); r.Status != 200 {
			t.Fatalf("default server limited call %d: %d", i+1, r.Status)
		}
	}
}

func TestOAuthUnauthorizedSample(t *testing.T) {
	s := loadSample(t, "errors/unauthorized")
	ts := start(t, &opts{host: server.Options{Auth: &auth.Config{Issuer: "http://127.0.0.1:1/auth/v1", RefreshInterval: -1}}})
	r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), string(s.Request))
	if r.Status != s.HTTP.Status {
		t.Errorf("status %d, want %d", r.Status, s.HTTP.Status)
	}
	for k, v := range s.HTTP.Headers {
		v = strings.ReplaceAll(v, "{{PUBLIC_BASE_URL}}", ts.URL)
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if d := kit.JSONDiff(t, s.Response, r.Body); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
}

package mcphttp

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	relaytypes "github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	tridenttypes "github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/fastcall"
)

func ptr[T any](v T) *T { return &v }

// serveResult is the reply the fast path writes through htmlUnescaper, as
// serveMCP sends it, for a call whose tool answers res: with the
// hand-written result encoding (unescaped) or, as before it, the SDK's.
func serveResult(t testing.TB, res *mcp.CallToolResult, unescaped bool) string {
	t.Helper()
	h := fastcall.New(fastcall.Options{HTMLUnescaped: unescaped, Tools: map[string]mcp.ToolHandler{
		"t": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil },
	}})
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(string(body)))
	call, ok := h.Parse(r, body)
	if !ok {
		t.Fatal("Parse refused the call")
	}
	rec := httptest.NewRecorder()
	h.Serve(&htmlUnescaper{ResponseWriter: rec}, r, call)
	return rec.Body.String()
}

// fastEncodeCases are results whose text or structured content is hard to
// encode alike: every escape encoding/json writes, HTML characters and
// HTML escapes, U+2028/2029, invalid UTF-8, RawMessages that are not
// compact or not JSON, values that fail to encode, and the shapes the
// hand-written encoding leaves to the SDK's.
func fastEncodeCases() map[string]*mcp.CallToolResult {
	var ctl strings.Builder
	for c := range 0x20 {
		ctl.WriteByte(byte(c))
	}
	ctl.WriteString("\x7f")
	texts := map[string]string{
		"empty":      "",
		"quotes":     `{"a":"b \"c\""}`,
		"backslash":  `\ \\ \u0026 \\u0026 \u003c \n \`,
		"control":    ctl.String(),
		"separators": "a\u2028b\u2029c",
		"invalid":    "a\xffb\xe2\x80c\xe2\x80\xa8\xed\xa0\x80",
		"html":       "Helensburgh & <Glasgow> &amp; </script>",
		"unicode":    "Glasgow é 東京 😀 \ufeff \ufffd",
	}
	cases := map[string]*mcp.CallToolResult{}
	for name, s := range texts {
		cases["text "+name] = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	raws := map[string]string{
		"spaced":     " {\n \"a\" : [ 1 , 2.50 , \"x y\" ] ,\t\"b\":{ } } ",
		"escapes":    `{"a":"x\u0026y\u003Cz\u003e\u003E\u003c\\u0026\\\u0026\u00e9\u2028\"\/"}`,
		"html":       `{"a":"<&>"}`,
		"separators": "{\"a\":\"l\u2028p\u2029\"}",
		"utf8":       "{\"a\":\"\xff\xe2\x80\"}",
		"scalar":     `"just a string"`,
		"invalid":    `{"a":}`,
		"truncated":  `{"a":"b`,
		"trailing":   `{} {}`,
		"empty":      ``,
	}
	for name, s := range raws {
		cases["raw "+name] = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, StructuredContent: json.RawMessage(s), IsError: name == "html"}
	}
	rawPtr := json.RawMessage("{\"p\" : \"\u2028&\"}")
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	for name, c := range map[string]*mcp.CallToolResult{
		"raw nil":          {Content: text("x"), StructuredContent: json.RawMessage(nil)},
		"raw pointer":      {Content: text("x"), StructuredContent: &rawPtr},
		"map":              {Content: text("x"), StructuredContent: map[string]any{"url": "https://e.test/a?b=1&c=<2>", "s": "\u2028", "n": 62.4, "z": nil}},
		"struct marshaler": {Content: text("x"), StructuredContent: struct{ R json.RawMessage }{json.RawMessage("{\"a\": \"\u2029 \\u0026 <\"}")}},
		"slice":            {Content: text("x"), StructuredContent: []int{1, 2}},
		"unencodable":      {Content: text("x"), StructuredContent: math.Inf(1)},
		"func":             {Content: text("x"), StructuredContent: func() {}},
		"is error":         {Content: text("refused"), IsError: true},
		"two texts":        {Content: []mcp.Content{&mcp.TextContent{Text: "a&"}, &mcp.TextContent{Text: "<b>"}}},
		"no content":       {Content: []mcp.Content{}, StructuredContent: json.RawMessage(`{"a":1}`)},
		"annotations":      {Content: []mcp.Content{&mcp.TextContent{Text: "a&", Annotations: &mcp.Annotations{Priority: 1}}}},
		"text meta":        {Content: []mcp.Content{&mcp.TextContent{Text: "a&", Meta: mcp.Meta{"k": "<v>"}}}},
		"image":            {Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ImageContent{Data: []byte("<>"), MIMEType: "image/png"}}},
		"result meta":      {Meta: mcp.Meta{"k": "&"}, Content: text("x")},
		"request state":    {Content: text("x"), RequestState: "s&"},
		// Contract types, which encode themselves (AppendJSON).
		"estimate_fare": {Content: text("x"), StructuredContent: tridenttypes.EstimateFareOutput{FareGBP: 62.4, DistanceMiles: 1e-7, DurationSeconds: 1e21, Rate: "day",
			TariffVersion: "a\u2028b\u2029 & <c> \xff \"\\", AppliedRules: []string{}, Alternatives: []tridenttypes.AlternativeQuote{{VehicleType: "mpv", FareGBP: math.Copysign(0, -1)}}}},
		"estimate_fare nan":     {Content: text("x"), StructuredContent: tridenttypes.EstimateFareOutput{FareGBP: math.NaN()}},
		"estimate_fare nil ptr": {Content: text("x"), StructuredContent: (*tridenttypes.EstimateFareOutput)(nil)},
		"estimate_fare ptr":     {Content: text("x"), StructuredContent: &tridenttypes.EstimateFareOutput{Rate: "night\u2028"}},
		"search_rides": {Content: text("x"), StructuredContent: relaytypes.SearchRidesResult{Status: "ok", Options: []relaytypes.RideOption{{Provider: "trident", Product: relaytypes.Product{Name: "<Saloon> & \u2029"}}},
			ContinuationContext: relaytypes.ContinuationContext{Currency: ptr("GBP")}}},
	} {
		cases[name] = c
	}
	return cases
}

// TestFastResultEncoding: the hand-written result encoding reaches the wire
// as the same bytes as the SDK's encoding did, including the error reply
// for a result that cannot be encoded.
func TestFastResultEncoding(t *testing.T) {
	for name, res := range fastEncodeCases() {
		want, got := serveResult(t, res, false), serveResult(t, res, true)
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
	// The cases reach both outcomes: a result, and the SDK's error.
	for name, frag := range map[string]string{"raw spaced": `"structuredContent":{"a":[1,2.50,"x y"],"b":{}}`,
		"raw invalid": `"message":"marshaling the tools/call result: json: error calling MarshalJSON`} {
		if got := serveResult(t, fastEncodeCases()[name], true); !strings.Contains(got, frag) {
			t.Errorf("%s: %s lacks %s", name, got, frag)
		}
	}
}

// FuzzFastResultEncoding compares the two encodings for arbitrary text and
// RawMessage bytes.
//
//	go test -run '^$' -fuzz FuzzFastResultEncoding ./server/mcphttp/
func FuzzFastResultEncoding(f *testing.F) {
	for _, res := range fastEncodeCases() {
		if len(res.Content) != 1 {
			continue
		}
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			raw, _ := res.StructuredContent.(json.RawMessage)
			f.Add(t.Text, []byte(raw), res.IsError)
		}
	}
	f.Fuzz(func(t *testing.T, text string, raw []byte, isError bool) {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
		if raw != nil {
			res.StructuredContent = json.RawMessage(raw)
		}
		if want, got := serveResult(t, res, false), serveResult(t, res, true); got != want {
			t.Errorf("\n got %q\nwant %q", got, want)
		}
	})
}

// searchLikeResult is a result shaped as search_rides' (a result's JSON
// as text and again as a RawMessage, ~9.6 KB each) with its quotes and
// links holding &.
func searchLikeResult() *mcp.CallToolResult {
	type ride struct {
		Provider, Product, Link string
		FarePence, ETA          int
		Surge                   float64
	}
	rides := make([]ride, 60)
	for i := range rides {
		rides[i] = ride{"trident", "saloon", "https://e.test/book?pickup=55.86,-4.25&dropoff=55.95,-4.56&p=saloon", 2450 + i, 240, 1.25}
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as relay's results are
	enc.Encode(map[string]any{"rides": rides, "note": `fares "estimated"`})
	raw := strings.TrimSuffix(buf.String(), "\n")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: raw}}, StructuredContent: json.RawMessage(raw)}
}

// searchLikeReply is the reply the fast path writes for searchLikeResult
// (~19 KB), as the unescaper is given it.
func searchLikeReply(t testing.TB) string { return serveResult(t, searchLikeResult(), true) }

// BenchmarkFastResultEncoding: a reply shaped as search_rides' (~19 KB, a
// result's JSON as text and again as a RawMessage) written through
// htmlUnescaper, the SDK's way and the hand-written way.
func BenchmarkFastResultEncoding(b *testing.B) {
	res := searchLikeResult()
	for _, tc := range []struct {
		name      string
		unescaped bool
	}{{"sdk", false}, {"direct", true}} {
		b.Run(tc.name, func(b *testing.B) {
			h := fastcall.New(fastcall.Options{HTMLUnescaped: tc.unescaped, Tools: map[string]mcp.ToolHandler{
				"t": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil },
			}})
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			w := &discardWriter{h: http.Header{}}
			b.SetBytes(int64(len(serveResult(b, res, tc.unescaped))))
			b.ReportAllocs()
			for b.Loop() {
				call, _ := h.Parse(r, body)
				h.Serve(&htmlUnescaper{ResponseWriter: w}, r, call)
			}
		})
	}
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkFastEstimateFareEncoding: the reply to the estimate_fare
// sample's call (its text and its EstimateFareOutput, a struct the tool
// returns as structuredContent) written by the fast path through
// htmlUnescaper.
func BenchmarkFastEstimateFareEncoding(b *testing.B) {
	raw, err := tridentcontracts.FS.ReadFile("samples/estimate_fare.success.json")
	if err != nil {
		b.Fatal(err)
	}
	var s struct {
		Response struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent tridenttypes.EstimateFareOutput `json:"structuredContent"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		b.Fatal(err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.Response.Result.Content[0].Text}}, StructuredContent: s.Response.Result.StructuredContent}
	h := fastcall.New(fastcall.Options{HTMLUnescaped: true, Tools: map[string]mcp.ToolHandler{
		"t": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil },
	}})
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	w := &discardWriter{h: http.Header{}}
	b.SetBytes(int64(len(serveResult(b, res, true))))
	b.ReportAllocs()
	for b.Loop() {
		call, _ := h.Parse(r, body)
		h.Serve(&htmlUnescaper{ResponseWriter: w}, r, call)
	}
}

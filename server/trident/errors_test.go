package trident_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// fakeGeo is a geocoder and router whose answers the test chooses, and
// which counts calls so tests can prove nothing reached it.
type fakeGeo struct {
	calls    atomic.Int64
	geoErr   error
	routeErr error
	panicMsg string
	block    chan struct{} // when non-nil, Geocode waits for it
	entered  chan struct{} // when non-nil, Geocode signals it first
}

func (f *fakeGeo) Geocode(ctx context.Context, q string) (geo.Place, error) {
	f.calls.Add(1)
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.block != nil {
		<-f.block
	}
	if f.panicMsg != "" {
		panic(f.panicMsg)
	}
	if f.geoErr != nil {
		return geo.Place{}, f.geoErr
	}
	if strings.Contains(q, "Airport") {
		return geo.Place{Name: q, Lat: 55.8719, Lon: -4.4331, Kind: geo.KindAirport, IATA: "GLA"}, nil
	}
	return geo.Place{Name: q, Lat: 56.0034, Lon: -4.7333, Kind: geo.KindStation}, nil
}

func (f *fakeGeo) Route(ctx context.Context, from, to geo.Place) (geo.Route, error) {
	if f.routeErr != nil {
		return geo.Route{}, f.routeErr
	}
	return geo.Route{DistanceMeters: 35400, DurationSeconds: 1990}, nil
}

func withFake(f *fakeGeo) *opts {
	return &opts{ep: trident.Options{Geocoder: f, Router: f}}
}

func TestProtocolErrors(t *testing.T) {
	f := &fakeGeo{}
	ts := start(t, withFake(f))
	const call = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}`
	tests := []struct {
		name       string
		header     func(h http.Header)
		body       string
		wantStatus int
		wantBody   string
	}{
		{"accept json only", func(h http.Header) { h.Set("Accept", "application/json") }, call, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"accept sse only", func(h http.Header) { h.Set("Accept", "text/event-stream") }, call, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"no accept", func(h http.Header) { h.Del("Accept") }, call, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"wildcard accept (curl's and fetch's default) is neither", func(h http.Header) { h.Set("Accept", "*/*") }, call, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"type wildcards are neither", func(h http.Header) { h.Set("Accept", "application/*, text/*") }, call, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"json named, the stream only by wildcard", func(h http.Header) { h.Set("Accept", "application/json, */*") }, call, 406,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`},
		{"both named beside a wildcard", func(h http.Header) { h.Set("Accept", "text/event-stream, application/json, */*;q=0.1") },
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200, `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"parse error", nil, `{"jsonrpc":"2.0",`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		{"not json", nil, `hello`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'h' looking for beginning of value"}}`},
		{"empty body", nil, ``, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: empty request body"}}`},
		{"wrong version", nil, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{"no method", nil, `{"jsonrpc":"2.0","id":1}`, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: method is required"}}`},
		{"null id", nil, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{"array params", nil, `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":[]}`, 400,
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"Invalid Request: params must be an object"}}`},
		{"batch", nil, `[` + call + `]`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported by protocol 2025-06-18"}}`},
		{"unknown method", nil, `{"jsonrpc":"2.0","id":9,"method":"tools/delete"}`, 200,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found: no method named 'tools/delete'"}}`},
		{"unknown tool", nil, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book_now","arguments":{}}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: no tool named 'book_now'"}}`},
		{"tool name missing", nil, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: name: Required"}}`},
		{"tool name not a string", nil, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: name: Expected string, received number"}}`},
		{"unsupported protocol version", func(h http.Header) { h.Set("MCP-Protocol-Version", "1999-01-01") }, call, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Unsupported protocol version: 1999-01-01",` +
				`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1999-01-01"}}}`},
		{"future protocol version: SEP-2575's code", func(h http.Header) { h.Set("MCP-Protocol-Version", "2099-01-01") }, call, 400,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Bad Request: Unsupported protocol version: 2099-01-01",` +
				`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}`},
		{"older protocol version accepted", func(h http.Header) { h.Set("MCP-Protocol-Version", "2025-03-26") }, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200,
			`{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"no protocol version header accepted", func(h http.Header) { h.Del("MCP-Protocol-Version") }, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, 200,
			`{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"wrong content type", func(h http.Header) { h.Set("Content-Type", "text/plain") }, call, 415,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: Content-Type must be application/json"}}`},
		{"foreign origin", func(h http.Header) { h.Set("Origin", "http://evil.example.com") }, call, 403,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: origin not allowed"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcpHeaders()
			if tt.header != nil {
				tt.header(h)
			}
			r := post(t, ts.URL+"/mcp", h, tt.body)
			if r.status != tt.wantStatus {
				t.Errorf("status = %d, want %d", r.status, tt.wantStatus)
			}
			if d := jsonDiff(t, []byte(tt.wantBody), r.body); d != "" {
				t.Errorf("body (-want +got):\n%s", d)
			}
		})
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("geocoder called %d times by refused requests", n)
	}
}

func TestNotificationsAccepted(t *testing.T) {
	ts := start(t, withFake(&fakeGeo{}))
	for _, m := range []string{"notifications/initialized", "notifications/whatever"} {
		r := post(t, ts.URL+"/mcp", mcpHeaders(), `{"jsonrpc":"2.0","method":"`+m+`"}`)
		if r.status != http.StatusAccepted || len(r.body) != 0 {
			t.Errorf("%s: status %d body %q, want 202 and no body", m, r.status, r.body)
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	ts := start(t, withFake(&fakeGeo{}))
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(m, ts.URL+"/mcp", nil)
		req.Header = mcpHeaders()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST, OPTIONS" {
			t.Errorf("%s /mcp: %d Allow=%q, want 405 with Allow: POST, OPTIONS", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

func TestBodyLimit(t *testing.T) {
	ts := start(t, &opts{host: server.Options{MaxBodyBytes: 512}, ep: trident.Options{Geocoder: &fakeGeo{}, Router: &fakeGeo{}}})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"` + strings.Repeat("a", 600) + `","dropoff":"b"}}}`
	r := post(t, ts.URL+"/mcp", mcpHeaders(), big)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Payload Too Large: request body exceeds 512 bytes"}}`
	if r.status != 413 {
		t.Errorf("status %d, want 413", r.status)
	}
	if d := jsonDiff(t, []byte(want), r.body); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	// Just under the limit is served.
	r = post(t, ts.URL+"/mcp", mcpHeaders(), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if r.status != 200 {
		t.Errorf("small request: status %d", r.status)
	}
}

// TestInvalidParams checks each schema constraint's -32602 wording over
// HTTP, and that validation and the capacity check run before geocoding.
func TestInvalidParams(t *testing.T) {
	f := &fakeGeo{}
	ts := start(t, withFake(f))
	tests := []struct{ tool, args, want string }{
		{"estimate_fare", `{"pickup":"ab","dropoff":"Glasgow Airport"}`, "Invalid params: pickup: String must contain at least 3 character(s)"},
		{"estimate_fare", `{"dropoff":"Glasgow Airport"}`, "Invalid params: pickup: Required"},
		{"estimate_fare", `{"pickup":"Helensburgh","dropoff":"` + strings.Repeat("x", 201) + `"}`, "Invalid params: dropoff: String must contain at most 200 character(s)"},
		{"estimate_fare", `{"pickup":5,"dropoff":"Glasgow Airport"}`, "Invalid params: pickup: Expected string, received number"},
		{"estimate_fare", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"bus"}`, "Invalid params: vehicleType: Invalid enum value. Expected 'saloon' | 'estate' | 'executive' | 'luxury' | '5seater' | '6seater' | '7seater' | 'mpv' | 'wav', received 'bus'"},
		{"estimate_fare", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","departAt":"next tuesday"}`, "Invalid params: departAt: Invalid datetime"},
		{"estimate_fare", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","meetAndGreet":"true"}`, "Invalid params: meetAndGreet: Expected boolean, received string"},
		{"estimate_fare", `"pickup"`, "Invalid params: arguments: Expected object, received string"},
		{"start_booking", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport"}`, "Invalid params: vehicleType: Required"},
		{"start_booking", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"bus"}`, "Invalid params: vehicleType: Invalid enum value. Expected 'saloon' | 'mpv' | 'wav', received 'bus'"},
		{"start_booking", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"mpv","passengers":2.5}`, "Invalid params: passengers: Expected integer, received float"},
		{"start_booking", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"mpv","passengers":0}`, "Invalid params: passengers: Number must be greater than or equal to 1"},
		{"start_booking", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"mpv","passengers":9}`, "Invalid params: passengers: Number must be less than or equal to 8"},
	}
	for _, tt := range tests {
		got := call(t, ts.URL, tt.tool, tt.args)
		e, _ := got["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) || e["message"] != tt.want {
			t.Errorf("%s %s:\n got %v\nwant -32602 %q", tt.tool, tt.args, got, tt.want)
		}
	}
	capacity := []struct{ args, want string }{
		{`{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":6}`,
			"Vehicle 'saloon' seats up to 4 passengers, but 6 were requested. Choose 'mpv' for groups over 4."},
		{`{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"wav","passengers":5}`,
			"Vehicle 'wav' seats up to 4 passengers, but 5 were requested. Choose 'mpv' for groups over 4."},
		{`{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"mpv","passengers":8}`,
			"Vehicle 'mpv' seats up to 7 passengers, but 8 were requested. Groups over 7 need more than one vehicle — call the office."},
	}
	for _, tt := range capacity {
		got := call(t, ts.URL, "start_booking", tt.args)
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"result":{"isError":true,"content":[{"type":"text","text":%q}]}}`, tt.want)
		if d := jsonDiff(t, []byte(want), mustJSON(t, got)); d != "" {
			t.Errorf("capacity %s (-want +got):\n%s", tt.args, d)
		}
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("geocoder called %d times; validation and capacity must run first", n)
	}
}

func TestToolFailures(t *testing.T) {
	const args = `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon"}`
	tests := []struct {
		name string
		fake *fakeGeo
		tool string
		want string
	}{
		{"no match", &fakeGeo{geoErr: fmt.Errorf("nothing for %q: %w", "x", geo.ErrNoMatch)}, "estimate_fare",
			"Could not estimate fare — address could not be geocoded or the routing service is unavailable."},
		{"no road", &fakeGeo{routeErr: geo.ErrNoMatch}, "start_booking",
			"Could not start booking — address could not be geocoded or the routing service is unavailable."},
		{"router down", &fakeGeo{routeErr: fmt.Errorf("osrm: %w", geo.ErrUnavailable)}, "estimate_fare",
			"Could not estimate fare — the address lookup or routing service is temporarily unavailable. Retry with backoff."},
		{"geocoder down is retryable too", &fakeGeo{geoErr: fmt.Errorf("nominatim: %w", geo.ErrUnavailable)}, "start_booking",
			"Could not start booking — the address lookup or routing service is temporarily unavailable. Retry with backoff."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := start(t, withFake(tt.fake))
			got := call(t, ts.URL, tt.tool, args)
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"result":{"isError":true,"content":[{"type":"text","text":%q}]}}`, tt.want)
			if d := jsonDiff(t, []byte(want), mustJSON(t, got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestPanicIsInternalError(t *testing.T) {
	ts := start(t, withFake(&fakeGeo{panicMsg: "boom"}))
	got := call(t, ts.URL, "estimate_fare", `{"pickup":"Helensburgh","dropoff":"Glasgow Airport"}`)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}}`
	if d := jsonDiff(t, []byte(want), mustJSON(t, got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The server is still up.
	if got := call(t, ts.URL, "get_service_info", `{}`); got["result"] == nil {
		t.Errorf("server did not answer after a panic: %v", got)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package trident_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// fakeGeo is a geocoder and router whose answers the test chooses, and
// which counts calls so tests can prove nothing reached it.
type fakeGeo struct {
	calls    atomic.Int64
	geoErr   error
	routeErr error
}

func (f *fakeGeo) Geocode(ctx context.Context, q string) (geo.Place, error) {
	f.calls.Add(1)
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

// TestInvalidParams checks each schema constraint's -32602 wording over
// HTTP, that the tools answer it as an argument error (an isError result
// with the same text from revision 2025-11-25 on), and that validation and
// the capacity check run before geocoding.
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
	for _, tt := range tests[:1] {
		h := kit.Headers()
		h.Set("MCP-Protocol-Version", mcphttp.Revision20251125)
		r := kit.Post(t, ts.URL+"/mcp", h, kit.CallBody("7", tt.tool, tt.args))
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"result":{"isError":true,"content":[{"type":"text","text":%q}]}}`, tt.want)
		if d := kit.JSONDiff(t, []byte(want), r.Body); d != "" {
			t.Errorf("%s %s at 2025-11-25 (-want +got):\n%s", tt.tool, tt.args, d)
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
		if d := kit.JSONDiff(t, []byte(want), mustJSON(t, got)); d != "" {
			t.Errorf("capacity %s (-want +got):\n%s", tt.args, d)
		}
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("geocoder called %d times; validation and capacity must run first", n)
	}
}

// TestToolFailures: a geocoder or router failure is a refusal in the
// catalogue's words, GEOCODE_FAILED when the address or route does not
// resolve and the retryable ROUTING_UNAVAILABLE when a back end could not
// answer, and /metrics counts it under that code.
func TestToolFailures(t *testing.T) {
	const args = `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon"}`
	tests := []struct {
		name    string
		fake    *fakeGeo
		tool    string
		want    string
		outcome string
	}{
		{"no match", &fakeGeo{geoErr: fmt.Errorf("nothing for %q: %w", "x", geo.ErrNoMatch)}, "estimate_fare",
			"Could not estimate fare — address could not be geocoded or the routing service is unavailable.", "geocode_failed"},
		{"no road", &fakeGeo{routeErr: geo.ErrNoMatch}, "start_booking",
			"Could not start booking — address could not be geocoded or the routing service is unavailable.", "geocode_failed"},
		{"router down", &fakeGeo{routeErr: fmt.Errorf("osrm: %w", geo.ErrUnavailable)}, "estimate_fare",
			"Could not estimate fare — the address lookup or routing service is temporarily unavailable. Retry with backoff.", "routing_unavailable"},
		{"geocoder down is retryable too", &fakeGeo{geoErr: fmt.Errorf("nominatim: %w", geo.ErrUnavailable)}, "start_booking",
			"Could not start booking — the address lookup or routing service is temporarily unavailable. Retry with backoff.", "routing_unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := start(t, withFake(tt.fake))
			got := call(t, ts.URL, tt.tool, args)
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"result":{"isError":true,"content":[{"type":"text","text":%q}]}}`, tt.want)
			if d := kit.JSONDiff(t, []byte(want), mustJSON(t, got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			series := `mcp_tool_calls_total{endpoint="/mcp",outcome="` + tt.outcome + `",tool="` + tt.tool + `"} 1`
			if m := kit.Get(t, ts.URL+"/metrics"); !strings.Contains(string(m.Body), series) {
				t.Errorf("/metrics lacks %s", series)
			}
		})
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

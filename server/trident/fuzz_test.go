package trident_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// toolCallSeeds are the argument seeds of FuzzToolCallArguments.
var toolCallSeeds = []string{
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`,
	`{"pickup":"ab","dropoff":"Glasgow Airport"}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"mpv","passengers":6,"meetAndGreet":true}`,
	`{"pickup":"Helensburgh","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":6}`,
	`{"pickup":"xxx","dropoff":"Glasgow Airport","departAt":"2025-12-25T23:59:60Z"}`,
	`{"passengers":1e400}`, `null`, `[]`, `"s"`, `{"pickup":{"a":[1,2]}}`,
}

// FuzzToolCallArguments sends arbitrary argument bytes to every tool through
// the whole handler (front door, SDK, validation, tools) and checks that the
// server never fails: each reply is a JSON-RPC response with the request's
// id, and either a result or an error whose code is -32602 for bad
// arguments (never -32603).
func FuzzToolCallArguments(f *testing.F) {
	for _, seed := range toolCallSeeds {
		f.Add(seed)
	}
	h := newServer(f, nil).Handler()
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) {
			return // the front door answers -32700 first (server/mcphttp's TestRefusals)
		}
		for _, tool := range []string{"estimate_fare", "start_booking", "get_service_info"} {
			body := `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			req.Header = kit.Headers()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("%s %s: HTTP %d %s", tool, args, rec.Code, rec.Body)
			}
			var resp struct {
				ID     json.RawMessage `json:"id"`
				Result *struct {
					IsError bool `json:"isError"`
				} `json:"result"`
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
				t.Fatalf("%s %s: reply is not JSON: %s", tool, args, rec.Body)
			}
			if !bytes.Equal(resp.ID, []byte("42")) || (resp.Result == nil) == (resp.Error == nil) {
				t.Fatalf("%s %s: malformed response %s", tool, args, rec.Body)
			}
			if resp.Error != nil && (resp.Error.Code != -32602 || !strings.HasPrefix(resp.Error.Message, "Invalid params: ")) {
				t.Fatalf("%s %s: error %d %q", tool, args, resp.Error.Code, resp.Error.Message)
			}
		}
	})
}

// BenchmarkEstimateFare measures one tools/call estimate_fare through the
// whole in-process handler: HTTP front door, go-sdk stateless session,
// validation, embedded geocoder and router, tariff, JSON reply. The
// request and response writer are reused (benchCall), so what it counts is
// the server's.
func BenchmarkEstimateFare(b *testing.B) {
	h := newServer(b, nil).Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}}}`
	headers := kit.Headers()
	b.ReportAllocs()
	b.ResetTimer()
	call := benchCall(h, body, headers)
	for b.Loop() {
		if rec := call(); rec.code != 200 || !bytes.Contains(rec.body.Bytes(), []byte(`"fareGBP":62.4`)) {
			b.Fatalf("unexpected reply %d %s", rec.code, rec.body.Bytes())
		}
	}
}

// BenchmarkEstimateFareAlternatives is the call Relay's Trident source
// makes once per search: the places as "lat,lng" pairs and every other
// vehicle class named in alternativeVehicleTypes.
func BenchmarkEstimateFareAlternatives(b *testing.B) {
	h := newServer(b, nil).Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"56.00416,-4.73253","dropoff":"55.8719,-4.43306","vehicleType":"saloon","alternativeVehicleTypes":["estate","executive","luxury","mpv","wav"]}}}`
	headers := kit.Headers()
	b.ReportAllocs()
	b.ResetTimer()
	call := benchCall(h, body, headers)
	for b.Loop() {
		if rec := call(); rec.code != 200 || !bytes.Contains(rec.body.Bytes(), []byte(`"vehicleType":"wav"`)) {
			b.Fatalf("unexpected reply %d %s", rec.code, rec.body.Bytes())
		}
	}
}

// BenchmarkEstimateFareCoordinates is the call as Relay sends it: the
// places as "lat,lng" pairs (Helensburgh Central to Glasgow Airport).
func BenchmarkEstimateFareCoordinates(b *testing.B) {
	h := newServer(b, nil).Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"56.0036,-4.7346","dropoff":"55.8719,-4.43306","vehicleType":"saloon"}}}`
	headers := kit.Headers()
	b.ReportAllocs()
	b.ResetTimer()
	call := benchCall(h, body, headers)
	for b.Loop() {
		if rec := call(); rec.code != 200 || !bytes.Contains(rec.body.Bytes(), []byte(`"fareGBP":`)) {
			b.Fatalf("unexpected reply %d %s", rec.code, rec.body.Bytes())
		}
	}
}

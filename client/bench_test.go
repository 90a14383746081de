package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server"
	tridentserver "github.com/tridenttaxis/trident-mcp/server/trident"
)

// benchResult is the seed's get_service_info response, echoed for any id 1..n
// by a handler that does no work, so both benchmarks measure the client side.
const benchResult = `"result":{"content":[{"type":"text","text":"Trident Taxis · Helensburgh, Lomond, Argyll & Bute (UK)"}],"structuredContent":{"brand":"Trident Taxis","area":"Helensburgh, Lomond, Argyll & Bute (UK)","vehicles":[{"id":"saloon","maxPassengers":4},{"id":"mpv","maxPassengers":7,"note":"8-seater; +100% on local hires"}],"surcharges":{"preBookingGBP":0.4,"airportPickupOrDropGBP":10,"airportMeetAndGreetGBP":25,"eightSeaterLocalMultiplier":2},"tariffs":["T1 day","T2 night/evening","T3 Christmas & New Year"],"bookingUrl":"https://tridenttaxis.online"}}}`

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+benchResult)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkPlainPOST is the baseline: a hand-written net/http POST of the
// same tools/call, decoding the same structured result.
func BenchmarkPlainPOST(b *testing.B) {
	srv := benchServer(b)
	benchPlainPOST(b, srv.Client(), srv.URL+"/mcp")
}

// BenchmarkClientCall is the same call through the typed client: compare
// its ns/op with BenchmarkPlainPOST's for the client's per-call overhead.
func BenchmarkClientCall(b *testing.B) {
	srv := benchServer(b)
	benchClientCall(b, srv.Client(), srv.URL+"/mcp")
}

func benchPlainPOST(b *testing.B, hc *http.Client, endpoint string) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}`)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var f struct {
			Result struct {
				StructuredContent mcptypes.GetServiceInfoOutput `json:"structuredContent"`
			} `json:"result"`
		}
		err = json.NewDecoder(resp.Body).Decode(&f)
		resp.Body.Close()
		if err != nil || f.Result.StructuredContent.Brand != "Trident Taxis" {
			b.Fatalf("decode: %v", err)
		}
	}
}

func benchClientCall(b *testing.B, hc *http.Client, endpoint string) {
	c, err := trident.New(endpoint, client.WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := c.GetServiceInfo(ctx, mcptypes.GetServiceInfoInput{})
		if err != nil || out.Brand != "Trident Taxis" {
			b.Fatalf("call: %v", err)
		}
	}
}

// cannedTransport answers every request in memory, so the benchmarks below
// measure only client-side work, free of loopback noise. With stateless it
// answers server/discover as a 2026-07-28 server does, so that calls take
// the stateless path (_meta, Mcp-* headers); else as an older server, which
// answers every method with the tool result.
type cannedTransport struct{ stateless bool }

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	json.Unmarshal(body, &req)
	result := benchResult
	if t.stateless && req.Method == client.MethodDiscover {
		result = `"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`
	}
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,` + result))),
		Request: r,
	}, nil
}

func BenchmarkPlainPOSTInMemory(b *testing.B) {
	benchPlainPOST(b, &http.Client{Transport: cannedTransport{}}, "http://mcp.test/mcp")
}

func BenchmarkClientCallInMemory(b *testing.B) {
	benchClientCall(b, &http.Client{Transport: cannedTransport{}}, "http://mcp.test/mcp")
}

// BenchmarkClientCallInMemoryStateless is the same call in 2026-07-28.
func BenchmarkClientCallInMemoryStateless(b *testing.B) {
	benchClientCall(b, &http.Client{Transport: cannedTransport{stateless: true}}, "http://mcp.test/mcp")
}

// BenchmarkEstimateFareInProcess is the call Relay's Trident source makes
// once per search when Relay and Trident share a process: estimate_fare
// for six vehicle classes (five as alternatives), in the specification's
// revision, through the in-process transport to a real Trident host. Its
// time is Trident's handler plus the client's own work on both sides of it.
func BenchmarkEstimateFareInProcess(b *testing.B) {
	c, err := trident.New("http://127.0.0.1:1/mcp",
		client.WithHTTPClient(&http.Client{Transport: client.InProcess(tridentHost(b))}),
		client.WithProtocolVersion(client.DocumentedProtocolVersion))
	if err != nil {
		b.Fatal(err)
	}
	saloon := mcptypes.EstimateFareInputVehicleTypeSaloon
	in := mcptypes.EstimateFareInput{
		Pickup: "56.00416,-4.73253", Dropoff: "55.8719,-4.43306", VehicleType: &saloon,
		AlternativeVehicleTypes: []mcptypes.EstimateFareInputAlternativeVehicleTypesItem{"estate", "executive", "luxury", "mpv", "wav"},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := c.EstimateFare(ctx, in)
		if err != nil || len(out.Alternatives) != 5 {
			b.Fatalf("call: %v", err)
		}
	}
}

// tridentHost is a real Trident host's handler, its tariff clock fixed to a
// weekday morning so that every call prices the same.
func tridentHost(tb testing.TB) http.Handler {
	tb.Helper()
	discard := slog.New(slog.DiscardHandler)
	day := time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)
	ep, err := tridentserver.New(&tridentserver.Options{Now: func() time.Time { return day }, Logger: discard})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := server.New(&server.Options{Logger: discard}, ep)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv.Handler()
}

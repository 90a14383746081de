package relay_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// observedRelay serves Relay with a working Uber and a failing Lyft on a
// host whose registry the test reads.
func observedRelay(t *testing.T) (*client.Client, *prometheus.Registry) {
	t.Helper()
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}
	lyft := &fakeSource{err: &sources.Error{Code: mcptypes.ProviderErrorCodeUpstreamError, Message: "Lyft is unavailable", HTTPStatus: 503}}
	ep := mustRelay(t, relay.Options{Sources: map[string]sources.Source{"uber": uber, "lyft": lyft}, OptionTTL: time.Minute, CallTimeout: time.Second})
	reg := prometheus.NewRegistry()
	srv, err := server.New(&server.Options{Logger: discard, Registry: reg}, ep)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	c, err := client.New(ts.URL+relay.Path, client.WithHTTPClient(ts.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c, reg
}

// TestRelayMetrics: a partial search counts each provider attempt by
// provider and outcome with its latency, the search by status, the store's
// operations (one write, which opens its journey) and the event it recorded; a tampered option counts a
// signature refusal by reason. The README lists every relay_ series.
func TestRelayMetrics(t *testing.T) {
	c, reg := observedRelay(t)
	res := nySearch(t, c, nil)
	if res.Status != mcptypes.SearchRidesResultStatusPartial || len(res.Options) == 0 {
		t.Fatalf("status %s with %d options, want partial with Uber's", res.Status, len(res.Options))
	}
	o := res.Options[0]
	o.Price.AmountMinor = 1 // tampered
	if r := refusalOf(t, c, mcptypes.ToolCompareRides, map[string]any{"options": []any{o}, "context": res.RelayContext}); r.Status != mcptypes.RefusalStatusInvalidOption {
		t.Fatalf("compare of a tampered option: %s, want invalid_option", r.Status)
	}
	got := promtest.Series(t, reg)
	for series, want := range map[string]float64{
		`relay_provider_calls_total{endpoint=/mcp/rides,outcome=ok,provider=uber}`:                  1,
		`relay_provider_calls_total{endpoint=/mcp/rides,outcome=failed,provider=lyft}`:              1,
		`relay_provider_calls_total{endpoint=/mcp/rides,outcome=ok,provider=lyft}`:                  0,
		`relay_provider_call_duration_seconds{endpoint=/mcp/rides,outcome=ok,provider=uber}`:        1,
		`relay_searches_total{endpoint=/mcp/rides,status=partial}`:                                  1,
		`relay_searches_total{endpoint=/mcp/rides,status=ok}`:                                       0,
		`relay_store_operation_duration_seconds{endpoint=/mcp/rides,operation=write_call}`:          1,
		`relay_store_errors_total{endpoint=/mcp/rides,operation=write_call}`:                        0,
		`relay_events_recorded_total{endpoint=/mcp/rides,kind=request}`:                             1,
		`relay_signature_refusals_total{endpoint=/mcp/rides,reason=option_signature}`:               1,
		`relay_signature_refusals_total{endpoint=/mcp/rides,reason=option_expired}`:                 0,
		`relay_provider_cooldown_remaining_seconds{endpoint=/mcp/rides,provider=uber}`:              0,
		`relay_provider_budget_per_minute{endpoint=/mcp/rides,provider=uber}`:                       float64(relay.DefaultProviderPerMinute),
		`relay_provider_budget_exhausted_total{endpoint=/mcp/rides,provider=uber}`:                  0,
		`mcp_tool_calls_total{endpoint=/mcp/rides,outcome=relay_invalid_option,tool=compare_rides}`: 1,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
	promtest.CheckDocumented(t, reg, "../../README.md", "relay_")
}

// TestRelaySpans: with tracing on, a search is the front door's span with
// one relay.source span per provider asked (the failing one marked failed)
// and the store's operations beneath it; no span holds a coordinate.
func TestRelaySpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(telemetry.Enable(tp))
	c, _ := observedRelay(t)
	nySearch(t, c, nil)
	var root sdktrace.ReadOnlySpan
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
		if s.Name() == "tools/call search_rides" {
			root = s
		}
		for _, kv := range s.Attributes() {
			if v := kv.Value.Emit(); v == "40.6413" || v == "-73.7781" {
				t.Errorf("span %s holds a coordinate in %s", s.Name(), kv.Key)
			}
		}
	}
	if root == nil {
		t.Fatalf("no front-door span; spans: %v", byName)
	}
	// The search's one store write opens its session, journey and intent
	// with its event: no relay.store begin.
	if _, ok := byName["relay.store begin"]; ok {
		t.Errorf("a relay.store begin span: a search writes once")
	}
	for _, name := range []string{"relay.source uber", "relay.source lyft", "relay.store write_call"} {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no %s span", name)
			continue
		}
		if s.SpanContext().TraceID() != root.SpanContext().TraceID() || s.Parent().SpanID() != root.SpanContext().SpanID() {
			t.Errorf("%s is not a child of the search's span", name)
		}
	}
	if s := byName["relay.source lyft"]; s != nil && s.Status().Description != string(mcptypes.ProviderErrorCodeUpstreamError) {
		t.Errorf("lyft's span status %+v, want failed with %s", s.Status(), mcptypes.ProviderErrorCodeUpstreamError)
	}
}

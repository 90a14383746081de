package metrics_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	return promtest.Series(t, reg)
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveToolCall("/mcp", "estimate_fare", metrics.OutcomeOK, 3*time.Millisecond)
	m.ObserveToolCall("/mcp", "estimate_fare", metrics.Outcome("GEOCODE_FAILED"), time.Millisecond)
	m.ObserveHTTP("/mcp", 200, time.Millisecond)
	m.ObserveHTTP("/mcp", 0, time.Millisecond)    // out of range: one "other" series,
	m.ObserveHTTP("/mcp", 1000, time.Millisecond) // not a series per odd value
	m.RateLimited("/mcp", "start_booking")
	m.ObserveToolCall("/mcp/rides", "search_rides", metrics.OutcomeOK, time.Millisecond)
	done := m.InFlight()

	want := map[string]float64{
		"trident_mcp_http_in_flight_requests{}":                                                           1,
		"trident_mcp_http_requests_total{code=200,route=/mcp}":                                            1,
		"trident_mcp_http_requests_total{code=other,route=/mcp}":                                          2,
		"trident_mcp_http_request_duration_seconds{route=/mcp}":                                           3,
		"trident_mcp_rate_limited_total{endpoint=/mcp,tool=start_booking}":                                1,
		"trident_mcp_tool_calls_total{endpoint=/mcp,outcome=ok,tool=estimate_fare}":                       1,
		"trident_mcp_tool_calls_total{endpoint=/mcp,outcome=geocode_failed,tool=estimate_fare}":           1,
		"trident_mcp_tool_call_duration_seconds{endpoint=/mcp,outcome=ok,tool=estimate_fare}":             1,
		"trident_mcp_tool_call_duration_seconds{endpoint=/mcp,outcome=geocode_failed,tool=estimate_fare}": 1,
		"trident_mcp_tool_calls_total{endpoint=/mcp/rides,outcome=ok,tool=search_rides}":                  1,
		"trident_mcp_tool_call_duration_seconds{endpoint=/mcp/rides,outcome=ok,tool=search_rides}":        1,
	}
	if d := cmp.Diff(want, series(t, reg)); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
	done()
	if got := series(t, reg)["trident_mcp_http_in_flight_requests{}"]; got != 0 {
		t.Errorf("in flight after done = %v, want 0", got)
	}
}

func TestNewOnAUsedRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := metrics.New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.New(reg); err == nil {
		t.Error("a second New on the same registry succeeded; want an error (not a panic)")
	}
}

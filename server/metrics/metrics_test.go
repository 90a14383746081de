package metrics_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/geo"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// series flattens what reg gathers into "name{label=value,...}" -> value,
// counters and gauges by value, histograms by sample count.
func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := f.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
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

func TestGeoCollector(t *testing.T) {
	reg := prometheus.NewRegistry()
	stats := geo.Stats{Lookups: 9, CacheHits: 4, Flights: 5, Requests: 3, Refused: 2, Trips: 1, Recoveries: 1, Breaker: "half-open"}
	reg.MustRegister(metrics.NewGeoCollector(
		metrics.GeoBackend{Name: "nominatim", Stats: func() geo.Stats { return stats }},
		metrics.GeoBackend{Name: "osrm", Stats: func() geo.Stats { return geo.Stats{Breaker: "off"} }},
	))
	got := series(t, reg)
	want := map[string]float64{
		"trident_mcp_geo_lookups_total{backend=nominatim}":                 9,
		"trident_mcp_geo_cache_hits_total{backend=nominatim}":              4,
		"trident_mcp_geo_upstream_requests_total{backend=nominatim}":       3,
		"trident_mcp_geo_refused_total{backend=nominatim}":                 2,
		"trident_mcp_geo_breaker_trips_total{backend=nominatim}":           1,
		"trident_mcp_geo_breaker_recoveries_total{backend=nominatim}":      1,
		"trident_mcp_geo_breaker_state{backend=nominatim,state=closed}":    0,
		"trident_mcp_geo_breaker_state{backend=nominatim,state=half-open}": 1,
		"trident_mcp_geo_breaker_state{backend=nominatim,state=open}":      0,
		"trident_mcp_geo_lookups_total{backend=osrm}":                      0,
		"trident_mcp_geo_cache_hits_total{backend=osrm}":                   0,
		"trident_mcp_geo_upstream_requests_total{backend=osrm}":            0,
		"trident_mcp_geo_refused_total{backend=osrm}":                      0,
		"trident_mcp_geo_breaker_trips_total{backend=osrm}":                0,
		"trident_mcp_geo_breaker_recoveries_total{backend=osrm}":           0,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
}

package metrics_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// populated is a registry holding every series of the package, each with
// one value, as a host with an endpoint in OAuth mode has them: the
// verdict cache registered under the endpoint's label, as the host does.
func populated(t *testing.T) (*prometheus.Registry, func()) {
	t.Helper()
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
	cache := metrics.VerdictCache(func() (uint64, uint64) { return 5, 2 })
	if err := prometheus.WrapRegistererWith(prometheus.Labels{"endpoint": "/mcp"}, reg).Register(cache); err != nil {
		t.Fatal(err)
	}
	return reg, m.InFlight()
}

func TestMetrics(t *testing.T) {
	reg, done := populated(t)
	want := map[string]float64{
		"mcp_http_in_flight_requests{}":                                                           1,
		"mcp_http_requests_total{code=200,route=/mcp}":                                            1,
		"mcp_http_requests_total{code=other,route=/mcp}":                                          2,
		"mcp_http_request_duration_seconds{route=/mcp}":                                           3,
		"mcp_rate_limited_total{endpoint=/mcp,tool=start_booking}":                                1,
		"mcp_tool_calls_total{endpoint=/mcp,outcome=ok,tool=estimate_fare}":                       1,
		"mcp_tool_calls_total{endpoint=/mcp,outcome=geocode_failed,tool=estimate_fare}":           1,
		"mcp_tool_call_duration_seconds{endpoint=/mcp,outcome=ok,tool=estimate_fare}":             1,
		"mcp_tool_call_duration_seconds{endpoint=/mcp,outcome=geocode_failed,tool=estimate_fare}": 1,
		"mcp_tool_calls_total{endpoint=/mcp/rides,outcome=ok,tool=search_rides}":                  1,
		"mcp_tool_call_duration_seconds{endpoint=/mcp/rides,outcome=ok,tool=search_rides}":        1,
		"mcp_auth_verdict_cache_lookups_total{endpoint=/mcp,result=hit}":                          5,
		"mcp_auth_verdict_cache_lookups_total{endpoint=/mcp,result=miss}":                         2,
	}
	if d := cmp.Diff(want, promtest.Series(t, reg)); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
	done()
	if got := promtest.Series(t, reg)["mcp_http_in_flight_requests{}"]; got != 0 {
		t.Errorf("in flight after done = %v, want 0", got)
	}
}

// TestREADMEListsEverySeries holds the README's table of series to what
// the package registers: each series with its labels, and no row of the
// shared layer's prefix that the package does not define.
func TestREADMEListsEverySeries(t *testing.T) {
	reg, _ := populated(t)
	reg.MustRegister(metrics.Readiness(func() bool { return true })) // the host registers it beside New's
	promtest.CheckDocumented(t, reg, "../../README.md", "mcp_")
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

// TestReadiness: mcp_ready follows what the host's readiness says, at
// each scrape.
func TestReadiness(t *testing.T) {
	reg := prometheus.NewRegistry()
	ready := false
	reg.MustRegister(metrics.Readiness(func() bool { return ready }))
	if got := promtest.Series(t, reg)["mcp_ready{}"]; got != 0 {
		t.Errorf("not ready: mcp_ready = %v, want 0", got)
	}
	ready = true
	if got := promtest.Series(t, reg)["mcp_ready{}"]; got != 1 {
		t.Errorf("ready: mcp_ready = %v, want 1", got)
	}
}

// TestSeriesResolvedOnceCountEveryCall: the series a call resolved are
// reused, and every later call, from any goroutine, still counts in its own.
func TestSeriesResolvedOnceCountEveryCall(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 100 {
				m.ObserveToolCall("/mcp", "estimate_fare", []string{metrics.OutcomeOK, "geocode_failed"}[i%2], time.Millisecond)
				m.ObserveHTTP("/mcp", []int{200, 429, 42}[i%3], time.Millisecond)
			}
		})
	}
	wg.Wait()
	s := promtest.Series(t, reg)
	for series, want := range map[string]float64{
		"mcp_tool_calls_total{endpoint=/mcp,outcome=ok,tool=estimate_fare}":             200,
		"mcp_tool_calls_total{endpoint=/mcp,outcome=geocode_failed,tool=estimate_fare}": 200,
		"mcp_tool_call_duration_seconds{endpoint=/mcp,outcome=ok,tool=estimate_fare}":   200,
		"mcp_http_requests_total{code=200,route=/mcp}":                                  136,
		"mcp_http_requests_total{code=429,route=/mcp}":                                  132,
		"mcp_http_requests_total{code=other,route=/mcp}":                                132,
		"mcp_http_request_duration_seconds{route=/mcp}":                                 400,
	} {
		if s[series] != want {
			t.Errorf("%s = %v, want %v", series, s[series], want)
		}
	}
}

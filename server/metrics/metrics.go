// Package metrics defines the server's Prometheus metrics in one place, so
// their names, labels and buckets are reviewed together and label values
// stay a closed set (endpoints are the mounted paths, tool names the
// contracts', outcomes the error catalogue's), which keeps series
// cardinality bounded whatever clients send. One Metrics serves every
// endpoint of a host: each per-call series carries an endpoint label
// holding the endpoint's path.
//
//	m, err := metrics.New(reg)
//	if err != nil { ... }
//	m.ObserveToolCall("/mcp", "estimate_fare", metrics.OutcomeOK, elapsed)
package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a tool call: "ok" or a catalogue code in lower case
// ("geocode_failed", "invalid_arguments", ...), see [Outcome].
const (
	OutcomeOK = "ok"
	// UnknownTool labels calls whose tool name is not served, so that
	// arbitrary names never become label values.
	UnknownTool = "unknown"
)

// Outcome turns a catalogue code ("GEOCODE_FAILED") into an outcome label.
func Outcome(code string) string { return strings.ToLower(code) }

// Metrics holds the collectors. All methods are safe for concurrent use.
type Metrics struct {
	toolCalls    *prometheus.CounterVec
	toolDuration *prometheus.HistogramVec
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	rateLimited  *prometheus.CounterVec
	inFlight     prometheus.Gauge
}

// latencyBuckets span an in-memory quote (well under a millisecond) to an
// HTTP geocoder and router timing out (10 s).
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// New creates the collectors and registers them with reg. It fails when reg
// already holds collectors of these names (say, a registry shared by two
// hosts), rather than panicking as MustRegister would.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trident_mcp_tool_calls_total",
			Help: "tools/call requests by endpoint, tool and outcome (ok, or the error catalogue code in lower case).",
		}, []string{"endpoint", "tool", "outcome"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "trident_mcp_tool_call_duration_seconds",
			Help:    "Time to answer a tools/call, validation to result, by endpoint, tool and outcome.",
			Buckets: latencyBuckets,
		}, []string{"endpoint", "tool", "outcome"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trident_mcp_http_requests_total",
			Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "trident_mcp_http_request_duration_seconds",
			Help:    "HTTP request latency by route.",
			Buckets: latencyBuckets,
		}, []string{"route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trident_mcp_rate_limited_total",
			Help: "Calls refused with 429 by the optional limiter, by endpoint and tool.",
		}, []string{"endpoint", "tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "trident_mcp_http_in_flight_requests",
			Help: "HTTP requests being served.",
		}),
	}
	for _, c := range []prometheus.Collector{m.toolCalls, m.toolDuration, m.httpRequests, m.httpDuration, m.rateLimited, m.inFlight} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	return m, nil
}

// ObserveToolCall records one finished tools/call of the endpoint at path
// endpoint.
func (m *Metrics) ObserveToolCall(endpoint, tool, outcome string, d time.Duration) {
	m.toolCalls.WithLabelValues(endpoint, tool, outcome).Inc()
	m.toolDuration.WithLabelValues(endpoint, tool, outcome).Observe(d.Seconds())
}

// ObserveHTTP records one finished HTTP request; route is the mux pattern,
// never the raw path. A code outside 100-599 is counted as "other", so the
// label stays a closed set.
func (m *Metrics) ObserveHTTP(route string, code int, d time.Duration) {
	label := "other"
	if code >= 100 && code <= 599 {
		label = strconv.Itoa(code)
	}
	m.httpRequests.WithLabelValues(route, label).Inc()
	m.httpDuration.WithLabelValues(route).Observe(d.Seconds())
}

// RateLimited counts one refusal by the limiter of the endpoint at path
// endpoint.
func (m *Metrics) RateLimited(endpoint, tool string) {
	m.rateLimited.WithLabelValues(endpoint, tool).Inc()
}

// InFlight tracks requests being served: call the returned func when done.
func (m *Metrics) InFlight() func() {
	m.inFlight.Inc()
	return m.inFlight.Dec
}

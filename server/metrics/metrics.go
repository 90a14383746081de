// Package metrics defines the server's Prometheus metrics in one place, so
// their names, labels and buckets are reviewed together and label values
// stay a closed set (tool names are the contract's, outcomes the error
// catalogue's), which keeps series cardinality bounded whatever clients send.
//
//	m := metrics.New(reg)
//	m.ObserveToolCall("estimate_fare", metrics.OutcomeOK, elapsed)
package metrics

import (
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

// New creates the collectors and registers them with reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trident_mcp_tool_calls_total",
			Help: "tools/call requests by tool and outcome (ok, or the error catalogue code in lower case).",
		}, []string{"tool", "outcome"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "trident_mcp_tool_call_duration_seconds",
			Help:    "Time to answer a tools/call, validation to result, by tool and outcome.",
			Buckets: latencyBuckets,
		}, []string{"tool", "outcome"}),
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
			Help: "Calls refused with 429 by the optional limiter, by tool.",
		}, []string{"tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "trident_mcp_http_in_flight_requests",
			Help: "HTTP requests being served.",
		}),
	}
	reg.MustRegister(m.toolCalls, m.toolDuration, m.httpRequests, m.httpDuration, m.rateLimited, m.inFlight)
	return m
}

// ObserveToolCall records one finished tools/call.
func (m *Metrics) ObserveToolCall(tool, outcome string, d time.Duration) {
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	m.toolDuration.WithLabelValues(tool, outcome).Observe(d.Seconds())
}

// ObserveHTTP records one finished HTTP request; route is the mux pattern,
// never the raw path.
func (m *Metrics) ObserveHTTP(route string, code int, d time.Duration) {
	m.httpRequests.WithLabelValues(route, itoa(code)).Inc()
	m.httpDuration.WithLabelValues(route).Observe(d.Seconds())
}

// RateLimited counts one refusal by the limiter.
func (m *Metrics) RateLimited(tool string) { m.rateLimited.WithLabelValues(tool).Inc() }

// InFlight tracks requests being served: call the returned func when done.
func (m *Metrics) InFlight() func() {
	m.inFlight.Inc()
	return m.inFlight.Dec
}

func itoa(code int) string {
	if code >= 100 && code <= 599 {
		return string([]byte{byte('0' + code/100), byte('0' + code/10%10), byte('0' + code%10)})
	}
	return "other"
}

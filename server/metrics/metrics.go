// Package metrics defines the series the shared layer exports on /metrics,
// in one place, so their names, labels and buckets are reviewed together
// and label values stay a closed set (endpoints are the mounted paths,
// tool names the contracts', outcomes the error catalogue's), which keeps
// series cardinality bounded whatever clients send.
//
// Names say what they count for any endpoint: what the front door counts
// of each endpoint ([ToolCalls], [RateLimited], [VerdictCacheLookups]) is
// mcp_… with an endpoint label holding the endpoint's path, and what the
// host counts of every route ([HTTPRequests]) is mcp_http_…. One Metrics
// serves every endpoint of a host. An endpoint's own series (its back
// ends', its stores') are defined in its package under its own prefix
// (trident_…, relay_…) and handed to the host through
// mcphttp.Endpoint.Collectors, which registers them with the same endpoint
// label.
//
//	m, err := metrics.New(reg)
//	if err != nil { ... }
//	m.ObserveToolCall("/mcp", "estimate_fare", metrics.OutcomeOK, elapsed)
package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The series' names, for what reads /metrics (tools/cmd/loadbench) and
// the README's table of series.
const (
	// ToolCalls counts tools/call requests {endpoint, tool, outcome}.
	ToolCalls = "mcp_tool_calls_total"
	// ToolCallDuration is the time to answer a tools/call {endpoint, tool, outcome}.
	ToolCallDuration = "mcp_tool_call_duration_seconds"
	// RateLimited counts calls the endpoint's limiter refused {endpoint, tool}.
	RateLimited = "mcp_rate_limited_total"
	// VerdictCacheLookups counts bearer tokens looked up in an OAuth
	// verifier's verdict cache {endpoint, result}.
	VerdictCacheLookups = "mcp_auth_verdict_cache_lookups_total"
	// HTTPRequests counts the host's HTTP requests {route, code}.
	HTTPRequests = "mcp_http_requests_total"
	// HTTPRequestDuration is the host's HTTP request latency {route}.
	HTTPRequestDuration = "mcp_http_request_duration_seconds"
	// HTTPInFlight is the number of HTTP requests being served.
	HTTPInFlight = "mcp_http_in_flight_requests"
	// Ready is 1 while the host's /readyz answers 200, 0 while it answers
	// 503 (starting, an endpoint not ready, draining).
	Ready = "mcp_ready"
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

	// The series already resolved, by their label values. Every call would
	// otherwise look its series up in the vector (validate the values as
	// UTF-8, hash them, take a lock, and for HTTP format the status code):
	// about 3% of BenchmarkEstimateFare. The label values are a closed set,
	// so the caches stay as small as the series.
	toolSeries sync.Map // toolKey → *toolSeries
	httpSeries sync.Map // httpKey → *httpSeries
}

type toolKey struct{ endpoint, tool, outcome string }

type toolSeries struct {
	calls    prometheus.Counter
	duration prometheus.Observer
}

type httpKey struct {
	route string
	code  int
}

type httpSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
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
			Name: ToolCalls,
			Help: "tools/call requests by endpoint, tool and outcome (ok, or the error catalogue code in lower case).",
		}, []string{"endpoint", "tool", "outcome"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    ToolCallDuration,
			Help:    "Time to answer a tools/call, validation to result, by endpoint, tool and outcome.",
			Buckets: latencyBuckets,
		}, []string{"endpoint", "tool", "outcome"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: HTTPRequests,
			Help: "HTTP requests by route (the mux pattern) and status code.",
		}, []string{"route", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    HTTPRequestDuration,
			Help:    "HTTP request latency by route.",
			Buckets: latencyBuckets,
		}, []string{"route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: RateLimited,
			Help: "tools/call requests refused with 429 by the endpoint's rate limit, by endpoint and tool.",
		}, []string{"endpoint", "tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: HTTPInFlight,
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
	k := toolKey{endpoint, tool, outcome}
	ts, ok := m.toolSeries.Load(k)
	if !ok {
		ts, _ = m.toolSeries.LoadOrStore(k, &toolSeries{
			calls:    m.toolCalls.WithLabelValues(endpoint, tool, outcome),
			duration: m.toolDuration.WithLabelValues(endpoint, tool, outcome),
		})
	}
	t := ts.(*toolSeries)
	t.calls.Inc()
	t.duration.Observe(d.Seconds())
}

// ObserveHTTP records one finished HTTP request; route is the mux pattern,
// never the raw path. A code outside 100-599 is counted as "other", so the
// label stays a closed set.
func (m *Metrics) ObserveHTTP(route string, code int, d time.Duration) {
	if code < 100 || code > 599 {
		code = 0 // "other"
	}
	k := httpKey{route, code}
	hs, ok := m.httpSeries.Load(k)
	if !ok {
		label := "other"
		if code != 0 {
			label = strconv.Itoa(code)
		}
		hs, _ = m.httpSeries.LoadOrStore(k, &httpSeries{
			requests: m.httpRequests.WithLabelValues(route, label),
			duration: m.httpDuration.WithLabelValues(route),
		})
	}
	h := hs.(*httpSeries)
	h.requests.Inc()
	h.duration.Observe(d.Seconds())
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

// verdictCacheLookups describes [VerdictCacheLookups]; the endpoint label
// is the host's, added when it registers the collector for an endpoint.
var verdictCacheLookups = prometheus.NewDesc(VerdictCacheLookups,
	"Bearer tokens looked up in the endpoint's verdict cache, by result: hit (answered from a remembered verdict) or miss (checked in full).",
	[]string{"result"}, nil)

// VerdictCache reports an OAuth verifier's verdict cache look-ups, read
// from stats (auth.Verifier.VerdictCacheStats) at scrape time, so an
// operator (and the load benchmark) can see that a client reusing its
// token is answered from the cache rather than by a signature check per
// call. The host registers one per endpoint in OAuth mode, with the
// endpoint's label.
func VerdictCache(stats func() (hits, misses uint64)) prometheus.Collector {
	return verdictCache(stats)
}

type verdictCache func() (hits, misses uint64)

func (c verdictCache) Describe(ch chan<- *prometheus.Desc) { ch <- verdictCacheLookups }

func (c verdictCache) Collect(ch chan<- prometheus.Metric) {
	hits, misses := c()
	ch <- prometheus.MustNewConstMetric(verdictCacheLookups, prometheus.CounterValue, float64(hits), "hit")
	ch <- prometheus.MustNewConstMetric(verdictCacheLookups, prometheus.CounterValue, float64(misses), "miss")
}

// Readiness reports [Ready]: ready is what /readyz decides, asked at each
// scrape, so an alert sees a replica that stays out of its load balancer.
func Readiness(ready func() bool) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: Ready,
		Help: "1 while /readyz answers 200, 0 while it answers 503 (starting, an endpoint not ready, draining).",
	}, func() float64 {
		if ready() {
			return 1
		}
		return 0
	})
}

// Package geometrics reports the Trident endpoint's HTTP geo back ends
// (Nominatim, OSRM) on /metrics: their own counters, read at scrape time.
// The endpoint hands the collector to the host through
// mcphttp.Endpoint.Collectors, which adds the endpoint label. The series
// are Trident's own, so they carry Trident's prefix (trident_geo_…), not
// the shared layer's mcp_….
package geometrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// Backend is one HTTP geocoding or routing back end whose counters
// [Collector] reports: Name ("nominatim", "osrm") becomes its backend
// label, Stats is read at each scrape ([geo.Nominatim.Stats],
// [geo.OSRM.Stats]).
type Backend struct {
	Name  string
	Stats func() geo.Stats
}

// breakerStates are the values of the breaker state label, as
// [geo.Stats].Breaker names them.
var breakerStates = []string{"closed", "half-open", "open"}

var (
	geoLookups    = prometheus.NewDesc("trident_geo_lookups_total", "Lookups that reached an HTTP geo back end's guard, by back end.", []string{"backend"}, nil)
	geoCacheHits  = prometheus.NewDesc("trident_geo_cache_hits_total", "Lookups answered from the back end's answer cache.", []string{"backend"}, nil)
	geoRequests   = prometheus.NewDesc("trident_geo_upstream_requests_total", "HTTP requests sent to the back end.", []string{"backend"}, nil)
	geoRefused    = prometheus.NewDesc("trident_geo_refused_total", "Lookups failed without a request: breaker open, cool-down after a 429, client-side rate limit.", []string{"backend"}, nil)
	geoTrips      = prometheus.NewDesc("trident_geo_breaker_trips_total", "Times the back end's circuit breaker opened.", []string{"backend"}, nil)
	geoRecoveries = prometheus.NewDesc("trident_geo_breaker_recoveries_total", "Times the breaker closed again after a good probe.", []string{"backend"}, nil)
	geoBreaker    = prometheus.NewDesc("trident_geo_breaker_state", "1 for the breaker's current state (closed, half-open, open), 0 for the others; absent when the breaker is off.", []string{"backend", "state"}, nil)
)

// Collector is a prometheus.Collector reporting the HTTP geo back ends'
// own counters, read from their Stats at scrape time, so the guard keeps
// one set of counts and /metrics shows them as they are.
type Collector struct {
	backends []Backend
}

// New reports backends; register it on the host's registry.
func New(backends ...Backend) *Collector {
	return &Collector{backends: backends}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{geoLookups, geoCacheHits, geoRequests, geoRefused, geoTrips, geoRecoveries, geoBreaker} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, b := range c.backends {
		s := b.Stats()
		for d, v := range map[*prometheus.Desc]uint64{
			geoLookups: s.Lookups, geoCacheHits: s.CacheHits, geoRequests: s.Requests,
			geoRefused: s.Refused, geoTrips: s.Trips, geoRecoveries: s.Recoveries,
		} {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), b.Name)
		}
		if s.Breaker == "off" {
			continue
		}
		for _, st := range breakerStates {
			v := 0.0
			if st == s.Breaker {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(geoBreaker, prometheus.GaugeValue, v, b.Name, st)
		}
	}
}

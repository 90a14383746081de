package geometrics_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/internal/promtest"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
	"github.com/tridenttaxis/trident-mcp/server/trident/geometrics"
)

func TestCollector(t *testing.T) {
	reg := prometheus.NewRegistry()
	stats := geo.Stats{Lookups: 9, CacheHits: 4, Flights: 5, Requests: 3, Refused: 2, Trips: 1, Recoveries: 1, Breaker: "half-open"}
	reg.MustRegister(geometrics.New(
		geometrics.Backend{Name: "nominatim", Stats: func() geo.Stats { return stats }},
		geometrics.Backend{Name: "osrm", Stats: func() geo.Stats { return geo.Stats{Breaker: "off"} }},
	))
	got := promtest.Series(t, reg)
	want := map[string]float64{
		"trident_geo_lookups_total{backend=nominatim}":                 9,
		"trident_geo_cache_hits_total{backend=nominatim}":              4,
		"trident_geo_upstream_requests_total{backend=nominatim}":       3,
		"trident_geo_refused_total{backend=nominatim}":                 2,
		"trident_geo_breaker_trips_total{backend=nominatim}":           1,
		"trident_geo_breaker_recoveries_total{backend=nominatim}":      1,
		"trident_geo_breaker_state{backend=nominatim,state=closed}":    0,
		"trident_geo_breaker_state{backend=nominatim,state=half-open}": 1,
		"trident_geo_breaker_state{backend=nominatim,state=open}":      0,
		"trident_geo_lookups_total{backend=osrm}":                      0,
		"trident_geo_cache_hits_total{backend=osrm}":                   0,
		"trident_geo_upstream_requests_total{backend=osrm}":            0,
		"trident_geo_refused_total{backend=osrm}":                      0,
		"trident_geo_breaker_trips_total{backend=osrm}":                0,
		"trident_geo_breaker_recoveries_total{backend=osrm}":           0,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
}

// TestREADMEListsEverySeries holds the README's table of series to the
// collector's, with the endpoint label the host adds to an endpoint's
// collectors, and lists no trident_geo_ series the collector does not have.
func TestREADMEListsEverySeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	prometheus.WrapRegistererWith(prometheus.Labels{"endpoint": "/mcp"}, reg).MustRegister(geometrics.New(
		geometrics.Backend{Name: "nominatim", Stats: func() geo.Stats { return geo.Stats{Breaker: "closed"} }}))
	promtest.CheckDocumented(t, reg, "../../../README.md", "trident_geo_")
}

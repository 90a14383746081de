package trident_test

import (
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/internal/fakegeo"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// TestGeoBackendMetrics: with HTTP back ends, /metrics reports their
// guards' counters under the endpoint: requests sent, cache hits, the
// breaker's state.
func TestGeoBackendMetrics(t *testing.T) {
	nom, osrm := fakegeo.NewNominatim(), fakegeo.NewOSRM()
	defer nom.Close()
	defer osrm.Close()
	g := geo.NewNominatim(nom.URL, geo.WithMinInterval(-1), geo.WithLogger(quietLogger()))
	r := geo.NewOSRM(osrm.URL, geo.WithLogger(quietLogger()))
	ts := start(t, &opts{ep: trident.Options{Geocoder: g, Router: r}})
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"12 Sinclair Street, Helensburgh","dropoff":"3 Colquhoun Square, Helensburgh"}}}`
	for range 2 { // the second is answered from the caches
		if r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), call); r.Status != 200 || !strings.Contains(string(r.Body), "fareGBP") {
			t.Fatalf("estimate_fare: %d %s", r.Status, r.Body)
		}
	}
	m := string(kit.Get(t, ts.URL+"/metrics").Body)
	for _, want := range []string{
		`trident_geo_upstream_requests_total{backend="nominatim",endpoint="/mcp"} 2`,
		`trident_geo_cache_hits_total{backend="nominatim",endpoint="/mcp"} 2`,
		`trident_geo_upstream_requests_total{backend="osrm",endpoint="/mcp"} 1`,
		`trident_geo_breaker_state{backend="osrm",endpoint="/mcp",state="closed"} 1`,
		`trident_geo_breaker_trips_total{backend="nominatim",endpoint="/mcp"} 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		for _, l := range strings.Split(m, "\n") {
			if strings.HasPrefix(l, "trident_geo_") {
				t.Log(l)
			}
		}
	}
}

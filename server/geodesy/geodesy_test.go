package geodesy_test

import (
	"math"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/geodesy"
)

func TestMeters(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		lat1, lon1, lat2, lon2 float64
		want, tolerance        float64
	}{
		{"same point", 55.8719, -4.43306, 55.8719, -4.43306, 0, 0},
		// A quarter of a meridian: pi/2 radians of the mean radius.
		{"pole to equator", 90, 0, 0, 0, math.Pi / 2 * geodesy.EarthRadiusMeters, 1e-6},
		// Helensburgh Central to Glasgow Airport, about 26 km as the crow flies.
		{"Helensburgh to GLA", 56.00416, -4.73253, 55.8719, -4.43306, 23_000, 5_000},
		{"antipodes", 0, 0, 0, 180, math.Pi * geodesy.EarthRadiusMeters, 1e-6},
	} {
		if got := geodesy.Meters(tc.lat1, tc.lon1, tc.lat2, tc.lon2); math.Abs(got-tc.want) > tc.tolerance {
			t.Errorf("%s: %.1f m, want %.1f ± %.1f", tc.name, got, tc.want, tc.tolerance)
		}
		if a, b := geodesy.Meters(tc.lat1, tc.lon1, tc.lat2, tc.lon2), geodesy.Meters(tc.lat2, tc.lon2, tc.lat1, tc.lon1); a != b {
			t.Errorf("%s: not symmetric: %v and %v", tc.name, a, b)
		}
	}
}

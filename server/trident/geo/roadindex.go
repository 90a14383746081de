package geo

import (
	"math"
	"slices"

	"github.com/tridenttaxis/trident-mcp/server/geodesy"
)

// latIndex lists the road graph's nodes by latitude, so that attach looks
// at the few nodes in a band of latitude around a point rather than at every
// node. A band is exact, not a heuristic: the great-circle distance between
// two points is never less than the arc between their parallels, R·|Δφ|, so
// a node outside the band of half-width d is farther than d.
type latIndex struct {
	lats  []float64 // ascending
	lons  []float64 // lons[k] is the longitude of the node at lats[k]
	nodes []int     // nodes[k] is the graph node at lats[k]
}

func newLatIndex(nodes []RoadNode) latIndex {
	x := latIndex{lats: make([]float64, len(nodes)), lons: make([]float64, len(nodes)), nodes: make([]int, len(nodes))}
	for i := range nodes {
		x.nodes[i] = i
	}
	slices.SortStableFunc(x.nodes, func(a, b int) int {
		switch la, lb := nodes[a].Lat, nodes[b].Lat; {
		case la < lb:
			return -1
		case la > lb:
			return 1
		}
		return 0
	})
	for k, i := range x.nodes {
		x.lats[k], x.lons[k] = nodes[i].Lat, nodes[i].Lon
	}
	return x
}

// bandDegrees is the half-width in degrees of latitude outside which every
// point is farther than meters, widened by far more than haversine's
// rounding so that no node at exactly that distance is missed.
func bandDegrees(meters float64) float64 {
	return meters/geodesy.EarthRadiusMeters*(180/math.Pi)*(1+1e-9) + 1e-9
}

// nearest returns the graph node nearest p, the lowest-numbered one of
// equally near nodes (as a scan of every node in order finds it), and its
// distance. It walks out from p's latitude both ways, nearer parallel
// first, until the next parallel is farther than the best node found.
func (x latIndex) nearest(g *roadGraph, p latLon) (int, float64) {
	best, bestD := -1, math.Inf(1)
	hi, _ := slices.BinarySearch(x.lats, p.lat)
	lo := hi - 1
	for lo >= 0 || hi < len(x.lats) {
		var k int
		if hi >= len(x.lats) || lo >= 0 && p.lat-x.lats[lo] < x.lats[hi]-p.lat {
			k, lo = lo, lo-1
		} else {
			k, hi = hi, hi+1
		}
		if math.Abs(x.lats[k]-p.lat) > bandDegrees(bestD) {
			break // this parallel and every one beyond it on both sides is farther (the nearer side was taken first)
		}
		i := x.nodes[k]
		nd := &g.nodes[i]
		if d := haversine(p.lat, p.lon, nd.Lat, nd.Lon); d < bestD || d == bestD && i < best {
			best, bestD = i, d
		}
	}
	return best, bestD
}

// band returns the range of positions in x.lats within meters of lat's
// parallel: every node within meters of a point at lat is in it.
func (x latIndex) band(lat, meters float64) (from, to int) {
	w := bandDegrees(meters)
	from, _ = slices.BinarySearch(x.lats, lat-w)
	to = from
	for to < len(x.lats) && x.lats[to] <= lat+w {
		to++
	}
	return from, to
}

// lonCutDegrees is the difference of longitude beyond which every point of
// the band of meters around lat's parallel (see [latIndex.band]) is farther
// than meters from a point at lat, so that attach computes the distance of
// the few nodes of the band near p rather than of every node across the
// whole width of the country: the band's haversines were 9% of
// BenchmarkEstimateFare. It is exact, not a heuristic: haversine's
// h = sin²(Δφ/2) + cos φ₁·cos φ₂·sin²(Δλ/2) is at least its second term,
// and cos φ₂ is at least its value at the band's edge farther from the
// equator, so d ≤ meters needs sin(Δλ/2) ≤ sin(meters/2R)/√(cos φ₁·cos φ_edge).
// The cut is widened by far more than the rounding of either side, and is
// +Inf where no longitude is out of reach (near a pole).
func lonCutDegrees(lat, meters float64) float64 {
	const rad = math.Pi / 180
	edge := min(90, math.Abs(lat)+bandDegrees(meters))
	c := math.Cos(lat*rad) * math.Cos(edge*rad)
	if c <= 1e-12 {
		return math.Inf(1)
	}
	s := math.Sin(math.Min(math.Pi/2, meters/geodesy.EarthRadiusMeters/2)) / math.Sqrt(c)
	if s >= 1 {
		return math.Inf(1)
	}
	return 2*math.Asin(s)/rad*(1+1e-6) + 1e-9
}

// lonGap is the difference of longitude between a and b (each within
// ±180) the short way round, in degrees.
func lonGap(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > 180 {
		d = 360 - d
	}
	return d
}

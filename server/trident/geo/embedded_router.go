package geo

import (
	"context"
	"fmt"
	"math"
)

// EmbeddedRouter finds driving routes without a network: on the embedded
// road graph (data/roads.json) where a trip starts or ends in the service
// area, and with the calibrated model below elsewhere, as the package
// documentation describes. It is deterministic and symmetric, and safe for
// concurrent use.
type EmbeddedRouter struct{}

var _ Router = (*EmbeddedRouter)(nil)

// NewEmbeddedRouter returns the embedded router.
func NewEmbeddedRouter() *EmbeddedRouter { return &EmbeddedRouter{} }

type latLon struct{ lat, lon float64 }

// Model constants. Changing any of them changes quoted fares: the calibration
// table in embedded_router_test.go must keep passing.
var (
	// detourKnots map a great-circle path length (km) to the road/straight
	// ratio, interpolated linearly and flat beyond the last knot. Short hops
	// wind through streets; longer trips use trunk roads and motorways.
	detourKnots = [...]struct{ km, factor float64 }{{0, 1.35}, {3, 1.25}, {10, 1.17}}

	// clydeBarrier is the River Clyde and the Firth of Clyde from the Clyde
	// Tunnel down to the open firth, as a polyline of (lat, lon). A straight
	// line that crosses it is not drivable: the route goes over one of
	// clydeCrossings instead. East of the tunnel Glasgow's many bridges make
	// the river no detour worth modelling.
	clydeBarrier = [...]latLon{
		{55.8655, -4.3205}, {55.8745, -4.3450}, {55.8790, -4.3650}, {55.8795, -4.3850},
		{55.8950, -4.4050}, {55.9000, -4.4250}, {55.9200, -4.4630}, {55.9280, -4.4900},
		{55.9330, -4.5635}, {55.9350, -4.6000}, {55.9450, -4.6500}, {55.9500, -4.6900},
		{55.9650, -4.7400}, {55.9720, -4.8200}, {55.9500, -4.9000}, {55.8700, -4.9300},
		{55.7500, -4.9500}, {55.5000, -5.0500},
	}
	clydeCrossings = [...]latLon{
		{55.9200, -4.4630}, // Erskine Bridge
		{55.8655, -4.3205}, // Clyde Tunnel, and Glasgow's bridges beyond it
	}

	// crossingAllowanceMeters is added to the road distance of a route that
	// crosses the Clyde: the slip roads and motorway junctions at either end
	// of the crossing that the straight legs to it do not see. It is the
	// constant the reference trip (Helensburgh Central -> Glasgow Airport,
	// 22 miles) is calibrated with.
	crossingAllowanceMeters = 6000.0

	// speedBands give the average speed over successive stretches of the road
	// distance: town streets first, then A roads, then trunk roads, then
	// motorway for the rest.
	speedBands = [...]struct{ upToKm, kmh float64 }{{2, 30}, {10, 55}, {50, 78}, {math.Inf(1), 95}}

	// overheadSeconds covers pulling away and setting down.
	overheadSeconds = 60.0

	// cityCores are city centres where traffic is slow; each end of a trip
	// within cityCoreRadiusMeters of one adds cityCoreSeconds.
	cityCores = [...]latLon{
		{55.8611, -4.2502}, // Glasgow, George Square
		{55.9533, -3.1883}, // Edinburgh, Waverley
		{51.5074, -0.1278}, // London, Charing Cross
		{53.4808, -2.2426}, // Manchester
		{52.4797, -1.9026}, // Birmingham
	}
	cityCoreRadiusMeters = 4000.0
	cityCoreSeconds      = 360.0
)

// Route estimates the driving route between two places. Identical points
// give a zero route; invalid coordinates give [ErrNoMatch]; a cancelled ctx
// gives [ErrUnavailable].
func (EmbeddedRouter) Route(ctx context.Context, from, to Place) (Route, error) {
	if err := ctx.Err(); err != nil {
		return Route{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if !from.Valid() || !to.Valid() {
		return Route{}, fmt.Errorf("%w: invalid coordinates (%v,%v) -> (%v,%v)", ErrNoMatch, from.Lat, from.Lon, to.Lat, to.Lon)
	}
	g, err := loadRoads()
	if err != nil { // the embedded data is broken: a build defect, caught by the tests
		return Route{}, fmt.Errorf("%w: road graph: %w", ErrUnavailable, err)
	}
	a, b := latLon{from.Lat, from.Lon}, latLon{to.Lat, to.Lon}
	if r, ok := g.route(a, b); ok {
		return r, nil
	}
	return estimate(a, b), nil
}

func gc(a, b latLon) float64 { return haversine(a.lat, a.lon, b.lat, b.lon) }

// estimate is the model; see the package documentation.
func estimate(a, b latLon) Route {
	if a == b {
		return Route{}
	}
	path, crossed := gc(a, b), false
	if crossesClyde(a, b) {
		crossed, path = true, math.Inf(1)
		for _, c := range clydeCrossings {
			path = math.Min(path, gc(a, c)+gc(c, b))
		}
	}
	road := path * detourFactor(path/1000)
	if crossed {
		road += crossingAllowanceMeters
	}
	secs := overheadSeconds + driveSeconds(road) + cityCoreDelay(a) + cityCoreDelay(b)
	return Route{DistanceMeters: road, DurationSeconds: secs}
}

// cityCoreDelay is the time lost in a city centre's traffic by a trip that
// starts or ends at p.
func cityCoreDelay(p latLon) float64 {
	for _, c := range cityCores {
		// As in coordinatePlace: a core farther north or south than the
		// radius (and a metre for rounding) is out of reach, which spares
		// the haversine of four of the five cores for nearly every point.
		if math.Abs(p.lat-c.lat)*latArcMeters > cityCoreRadiusMeters+1 {
			continue
		}
		if gc(p, c) <= cityCoreRadiusMeters {
			return cityCoreSeconds
		}
	}
	return 0
}

func detourFactor(km float64) float64 {
	k := detourKnots
	for i := 1; i < len(k); i++ {
		if km < k[i].km {
			t := (km - k[i-1].km) / (k[i].km - k[i-1].km)
			return k[i-1].factor + t*(k[i].factor-k[i-1].factor)
		}
	}
	return k[len(k)-1].factor
}

func driveSeconds(meters float64) float64 {
	km, done, secs := meters/1000, 0.0, 0.0
	for _, b := range speedBands {
		if km <= done {
			break
		}
		stretch := math.Min(km, b.upToKm) - done
		secs += stretch / b.kmh * 3600
		done = b.upToKm
	}
	return secs
}

// crossesClyde reports whether the straight segment a-b crosses the Clyde
// barrier. At this scale a flat (lat, lon·cos lat) projection is exact enough.
func crossesClyde(a, b latLon) bool {
	// Cheap rejection: both ends north of 56.0 or south of 55.5, or both
	// east of the tunnel, cannot cross.
	if a.lat > 56.0 && b.lat > 56.0 || a.lat < 55.5 && b.lat < 55.5 || a.lon > -4.3205 && b.lon > -4.3205 {
		return false
	}
	for i := 1; i < len(clydeBarrier); i++ {
		if segmentsIntersect(a, b, clydeBarrier[i-1], clydeBarrier[i]) {
			return true
		}
	}
	return false
}

// cos56 scales longitude differences to latitude units at the Clyde's latitude.
var cos56 = math.Cos(56 * math.Pi / 180)

func segmentsIntersect(p1, p2, q1, q2 latLon) bool {
	cross := func(o, a, b latLon) float64 {
		k := cos56
		return (a.lon-o.lon)*k*(b.lat-o.lat) - (a.lat-o.lat)*(b.lon-o.lon)*k
	}
	d1, d2 := cross(q1, q2, p1), cross(q1, q2, p2)
	d3, d4 := cross(p1, p2, q1), cross(p1, p2, q2)
	return (d1 > 0) != (d2 > 0) && d1 != 0 && d2 != 0 && (d3 > 0) != (d4 > 0) && d3 != 0 && d4 != 0
}

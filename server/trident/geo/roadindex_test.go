package geo

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// attachByScan is attach as it was before the latitude index: a distance to
// every node. The index must answer exactly what it answers.
func attachByScan(g *roadGraph, p latLon) ([]leg, bool) {
	best, bestD := -1, math.Inf(1)
	airport, airportD := -1, math.Inf(1)
	dist := make([]float64, len(g.nodes))
	for i, nd := range g.nodes {
		dist[i] = haversine(p.lat, p.lon, nd.Lat, nd.Lon)
		if dist[i] < bestD {
			best, bestD = i, dist[i]
		}
		if nd.Kind == "airport" && dist[i] <= airportRadiusMeters && dist[i] < airportD {
			airport, airportD = i, dist[i]
		}
	}
	if airport >= 0 {
		return []leg{{node: airport}}, true
	}
	if best < 0 || bestD > fringeMeters {
		return nil, false
	}
	legs := []leg{approach(best, bestD)}
	limit := bestD*attachSlack + attachExtra
	for len(legs) < attachMax {
		next, nextD := -1, math.Inf(1)
		for i, d := range dist {
			if d <= limit && d < nextD && !hasNode(legs, i) {
				next, nextD = i, d
			}
		}
		if next < 0 {
			break
		}
		legs = append(legs, approach(next, nextD))
	}
	return legs, bestD <= roadAreaMeters
}

func TestAttachIndexMatchesScan(t *testing.T) {
	g, err := loadRoads()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 2026))
	var points []latLon
	for range 20000 { // the graph's area and well beyond it
		points = append(points, latLon{54.5 + 3*rng.Float64(), -7.5 + 5*rng.Float64()})
	}
	for _, nd := range g.nodes { // on a node, beside it, and on its parallel or meridian
		for _, d := range []latLon{{0, 0}, {0.0001, 0}, {0, -0.0001}, {0.02, 0}, {0, 0.05}, {-0.3, 0}} {
			points = append(points, latLon{nd.Lat + d.lat, nd.Lon + d.lon})
		}
	}
	for _, nd := range g.nodes { // at the edge of reach of a node, every way round
		for range 20 {
			d := (fringeMeters*attachSlack + attachExtra) * rng.Float64()
			points = append(points, destination(latLon{nd.Lat, nd.Lon}, 2*math.Pi*rng.Float64(), d))
		}
	}
	points = append(points, latLon{0, 0}, latLon{90, 0}, latLon{-90, 180}, latLon{51.5074, -0.1278}, latLon{56, 179.99}, latLon{56, -180})
	attached := 0
	for _, p := range points {
		want, wantIn := attachByScan(g, p)
		var buf [attachMax]leg
		got, gotIn := g.attach(p, &buf)
		if !slices.Equal(got, want) || gotIn != wantIn {
			t.Fatalf("attach(%v) = %v, %v; the scan of every node says %v, %v", p, got, gotIn, want, wantIn)
		}
		if len(got) > 0 {
			attached++
		}
	}
	if attached < len(points)/10 {
		t.Fatalf("only %d of %d points attached: the test does not exercise the index", attached, len(points))
	}
}

// TestNearestTies: of two nodes on the same parallel at the same distance,
// the lower-numbered is the nearest, as the scan finds it.
func TestNearestTies(t *testing.T) {
	nodes := []RoadNode{{Lat: 56, Lon: -4.6}, {Lat: 56.1, Lon: -4.5}, {Lat: 56, Lon: -4.4}, {Lat: 56, Lon: -4.6}}
	g := &roadGraph{nodes: nodes, index: newLatIndex(nodes)}
	for _, p := range []latLon{{56, -4.5}, {56, -4.6}, {55.9, -4.6}} {
		best, bestD := g.index.nearest(g, p)
		wantD := math.Inf(1)
		want := -1
		for i, nd := range nodes {
			if d := haversine(p.lat, p.lon, nd.Lat, nd.Lon); d < wantD {
				want, wantD = i, d
			}
		}
		if best != want || bestD != wantD {
			t.Errorf("nearest(%v) = %d at %v m, want %d at %v m", p, best, bestD, want, wantD)
		}
	}
}

// TestLonCutKeepsEveryPointInReach: no point within meters of p (on its
// band) lies beyond lonCutDegrees, the whole globe over, at the edge of
// reach included; and the cut does cut at the graph's latitudes.
func TestLonCutKeepsEveryPointInReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2026))
	for range 200000 {
		lat := -90 + 180*rng.Float64()
		if rng.IntN(2) == 0 {
			lat = 50 + 10*rng.Float64() // where the graph is
		}
		meters := []float64{airportRadiusMeters, 5000, fringeMeters*attachSlack + attachExtra, 2e6}[rng.IntN(4)]
		p := latLon{lat, -180 + 360*rng.Float64()}
		// A point at or just inside reach, in any direction.
		bearing := 2 * math.Pi * rng.Float64()
		dist := meters * (1 - 1e-12*rng.Float64())
		q := destination(p, bearing, dist)
		if d := haversine(p.lat, p.lon, q.lat, q.lon); d > meters {
			continue // rounding put it beyond
		}
		w := bandDegrees(meters)
		if math.Abs(q.lat-p.lat) > w {
			t.Fatalf("%v: %v at %v m is outside the band", p, q, meters)
		}
		if g, c := lonGap(p.lon, q.lon), lonCutDegrees(p.lat, meters); g > c {
			t.Fatalf("%v: %v within %v m is %v° of longitude away, cut at %v°", p, q, meters, g, c)
		}
	}
	if c := lonCutDegrees(56, 5000); !(c > 0.08 && c < 0.1) {
		t.Errorf("lonCutDegrees(56, 5000) = %v, want about 0.08°", c)
	}
}

// destination is the point dist meters from p on the initial bearing
// (radians from north), on the sphere haversine measures on.
func destination(p latLon, bearing, dist float64) latLon {
	const rad = math.Pi / 180
	d := dist / 6371008.8
	p1, l1 := p.lat*rad, p.lon*rad
	p2 := math.Asin(math.Sin(p1)*math.Cos(d) + math.Cos(p1)*math.Sin(d)*math.Cos(bearing))
	l2 := l1 + math.Atan2(math.Sin(bearing)*math.Sin(d)*math.Cos(p1), math.Cos(d)-math.Sin(p1)*math.Sin(p2))
	lon := math.Mod(l2/rad+540, 360) - 180
	return latLon{math.Max(-90, math.Min(90, p2/rad)), lon}
}

// TestCityCoreDelayMatchesScan: skipping the cores out of reach by
// latitude changes no answer.
func TestCityCoreDelayMatchesScan(t *testing.T) {
	byScan := func(p latLon) float64 {
		for _, c := range cityCores {
			if gc(p, c) <= cityCoreRadiusMeters {
				return cityCoreSeconds
			}
		}
		return 0
	}
	rng := rand.New(rand.NewPCG(7, 2026))
	var points []latLon
	for _, c := range cityCores {
		for range 20000 { // around each core, its rim included
			points = append(points, destination(c, 2*math.Pi*rng.Float64(), cityCoreRadiusMeters*(0.99+0.02*rng.Float64())))
			points = append(points, latLon{c.lat + 0.1*(rng.Float64()-0.5), c.lon + 0.2*(rng.Float64()-0.5)})
		}
	}
	for range 20000 {
		points = append(points, latLon{-90 + 180*rng.Float64(), -180 + 360*rng.Float64()})
	}
	delayed := 0
	for _, p := range points {
		got, want := cityCoreDelay(p), byScan(p)
		if got != want {
			t.Fatalf("cityCoreDelay(%v) = %v, the scan of every core says %v", p, got, want)
		}
		if got > 0 {
			delayed++
		}
	}
	if delayed < len(points)/10 {
		t.Fatalf("only %d of %d points delayed: the test does not reach the cores", delayed, len(points))
	}
}

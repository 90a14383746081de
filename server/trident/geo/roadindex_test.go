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
	points = append(points, latLon{0, 0}, latLon{90, 0}, latLon{-90, 180}, latLon{51.5074, -0.1278})
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

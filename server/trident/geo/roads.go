package geo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
)

// The road graph of the service area (data/roads.json): what the embedded
// router routes on when a trip starts or ends there. The straight-line model
// cannot know that Oban lies round Loch Lomond or Dunoon across the Firth of
// Clyde; a few hundred hand-checked road sections can.

// RoadNetwork is data/roads.json as written: nodes, roads and ferries. It is
// exported for tools/cmd/check-roads, which reports on the file.
type RoadNetwork struct {
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Sources     []string    `json:"sources"`
	Nodes       []RoadNode  `json:"nodes"`
	Roads       []RoadEdge  `json:"roads"`
	Ferries     []FerryEdge `json:"ferries"`
}

// RoadNode is a town, junction, ferry terminal or airport on the graph.
type RoadNode struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	Kind string  `json:"kind"` // "town", "junction", "ferry" or "airport"
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
	// Gateway, when set, says where the node's roads lead out of the
	// graph's area ("A82 north to Glen Coe and Fort William"). A trip with
	// one end outside the area is routed on the graph to the best gateway
	// and by the calibrated model beyond it.
	Gateway string `json:"gateway,omitempty"`
}

// RoadEdge is a section of road between two nodes, driven both ways.
type RoadEdge struct {
	Road  string  `json:"road"`  // "A82", "M8", "B833", "city streets"
	From  string  `json:"from"`  // node ID
	To    string  `json:"to"`    // node ID
	Miles float64 `json:"miles"` // along the road
	MPH   float64 `json:"mph"`   // typical average speed at quiet times
}

// FerryEdge is a ferry crossing, taken both ways.
type FerryEdge struct {
	Operator string  `json:"operator"`
	From     string  `json:"from"`
	To       string  `json:"to"`
	Miles    float64 `json:"miles"` // the crossing's length, counted in the trip's distance
	// CrossingMinutes is the timetabled crossing; BoardingMinutes the usual
	// wait for a sailing plus check-in and loading. Both count in the trip's
	// duration, and the router chooses a ferry only when that is faster.
	CrossingMinutes float64 `json:"crossingMinutes"`
	BoardingMinutes float64 `json:"boardingMinutes"`
	// Vehicles is false for foot-passenger ferries, which a taxi cannot
	// take: they are listed so that the choice is on record, and never routed.
	Vehicles bool   `json:"vehicles"`
	Note     string `json:"note"`
}

// metersPerMile is the international mile.
const metersPerMile = 1609.344

// Limits the checks in [ParseRoadNetwork] enforce.
const (
	// maxRoadMPH keeps every section at or under the model's motorway band
	// (95 km/h), so no route is faster than the model allows.
	maxRoadMPH = 59
	minRoadMPH = 10
	// A section longer than twice the straight line plus a mile is almost
	// certainly a typo in miles or in a node's position.
	maxRoadDetour      = 2.0
	maxRoadDetourExtra = metersPerMile
)

// ParseRoadNetwork decodes a road graph file and checks it: unknown fields,
// duplicate or unknown node IDs, positions outside Scotland's west, sections
// shorter than the straight line between their ends or implausibly longer,
// speeds outside 10–59 mph, ferries without times, and a graph that is not
// connected. Every problem found is reported, joined.
func ParseRoadNetwork(b []byte) (*RoadNetwork, error) {
	var n RoadNetwork
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return nil, fmt.Errorf("geo: roads: %w", err)
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("geo: roads: "+format, args...)) }
	ids := map[string]int{}
	for i, nd := range n.Nodes {
		if nd.ID == "" || nd.Name == "" {
			bad("node %d has no id or name", i)
		}
		if _, dup := ids[nd.ID]; dup {
			bad("node %q listed twice", nd.ID)
		}
		ids[nd.ID] = i
		switch nd.Kind {
		case "town", "junction", "ferry", "airport":
		default:
			bad("node %q: unknown kind %q", nd.ID, nd.Kind)
		}
		if !(nd.Lat > 55 && nd.Lat < 57 && nd.Lon > -7 && nd.Lon < -3) {
			bad("node %q at %v,%v is outside the area (55-57 N, 3-7 W)", nd.ID, nd.Lat, nd.Lon)
		}
	}
	node := func(id, what string) (RoadNode, bool) {
		i, ok := ids[id]
		if !ok {
			bad("%s: unknown node %q", what, id)
			return RoadNode{}, false
		}
		return n.Nodes[i], true
	}
	seen := map[[2]string]bool{}
	pair := func(a, b, what string) {
		k := [2]string{min(a, b), max(a, b)}
		if seen[k] {
			bad("%s: %s-%s listed twice", what, a, b)
		}
		seen[k] = true
	}
	for _, e := range n.Roads {
		what := fmt.Sprintf("road %s %s-%s", e.Road, e.From, e.To)
		a, ok1 := node(e.From, what)
		b, ok2 := node(e.To, what)
		if !ok1 || !ok2 {
			continue
		}
		pair(e.From, e.To, what)
		straight := haversine(a.Lat, a.Lon, b.Lat, b.Lon)
		m := e.Miles * metersPerMile
		switch {
		case e.From == e.To:
			bad("%s: a loop", what)
		case e.Road == "":
			bad("%s: no road name", what)
		case m < straight:
			bad("%s: %.1f mi is shorter than the straight line (%.2f mi)", what, e.Miles, straight/metersPerMile)
		case m > maxRoadDetour*straight+maxRoadDetourExtra:
			bad("%s: %.1f mi is over twice the straight line (%.2f mi) plus a mile", what, e.Miles, straight/metersPerMile)
		case e.MPH < minRoadMPH || e.MPH > maxRoadMPH:
			bad("%s: %v mph is outside %d-%d", what, e.MPH, minRoadMPH, maxRoadMPH)
		}
	}
	for _, f := range n.Ferries {
		what := fmt.Sprintf("ferry %s %s-%s", f.Operator, f.From, f.To)
		a, ok1 := node(f.From, what)
		b, ok2 := node(f.To, what)
		if !ok1 || !ok2 {
			continue
		}
		pair(f.From, f.To, what)
		if f.Miles*metersPerMile < haversine(a.Lat, a.Lon, b.Lat, b.Lon) || f.CrossingMinutes <= 0 || f.BoardingMinutes < 0 || f.Operator == "" {
			bad("%s: needs an operator, a crossing at least the straight line, and positive times", what)
		}
	}
	if len(errs) == 0 && len(n.Nodes) > 0 {
		for _, id := range unreachable(&n, ids) {
			bad("node %q cannot be reached from %q", id, n.Nodes[0].ID)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &n, nil
}

// unreachable lists the nodes that no road or vehicle ferry connects to the
// first node.
func unreachable(n *RoadNetwork, ids map[string]int) []string {
	adj := make([][]int, len(n.Nodes))
	join := func(a, b string) {
		i, j := ids[a], ids[b]
		adj[i], adj[j] = append(adj[i], j), append(adj[j], i)
	}
	for _, e := range n.Roads {
		join(e.From, e.To)
	}
	for _, f := range n.Ferries {
		if f.Vehicles {
			join(f.From, f.To)
		}
	}
	seen := make([]bool, len(n.Nodes))
	seen[0] = true
	for queue := []int{0}; len(queue) > 0; queue = queue[1:] {
		for _, j := range adj[queue[0]] {
			if !seen[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	var out []string
	for i, ok := range seen {
		if !ok {
			out = append(out, n.Nodes[i].ID)
		}
	}
	return out
}

// roadGraph is a parsed network with the fastest route between every pair of
// nodes precomputed (a hundred-odd nodes: a few hundred kilobytes, built in
// a millisecond or two), so a route is a handful of table look-ups.
type roadGraph struct {
	nodes    []RoadNode
	gateways []int
	// seconds[i][j] is the fastest time from node i to node j, meters[i][j]
	// the length of that route. Both are symmetric. next[i][j] is the node
	// after i on that route, for the tests that check the way.
	seconds, meters [][]float64
	next            [][]int
	index           latIndex
}

// loadRoads parses the embedded road graph once per process.
var loadRoads = sync.OnceValues(func() (*roadGraph, error) {
	b, err := dataFS.ReadFile("data/roads.json")
	if err != nil {
		return nil, err
	}
	n, err := ParseRoadNetwork(b)
	if err != nil {
		return nil, err
	}
	return buildRoadGraph(n), nil
})

// buildRoadGraph runs Floyd–Warshall over the vehicle edges, by time, keeping
// the shorter of equally fast routes. Min and + are exact in the same order
// for (i, j) as for (j, i), so the tables come out exactly symmetric.
func buildRoadGraph(n *RoadNetwork) *roadGraph {
	k := len(n.Nodes)
	g := &roadGraph{nodes: n.Nodes, seconds: make([][]float64, k), meters: make([][]float64, k), next: make([][]int, k), index: newLatIndex(n.Nodes)}
	ids := make(map[string]int, k)
	for i, nd := range n.Nodes {
		ids[nd.ID] = i
		if nd.Gateway != "" {
			g.gateways = append(g.gateways, i)
		}
		g.seconds[i], g.meters[i], g.next[i] = make([]float64, k), make([]float64, k), make([]int, k)
		for j := range g.seconds[i] {
			g.next[i][j] = j
			if j != i {
				g.seconds[i][j] = math.Inf(1)
			}
		}
	}
	link := func(a, b string, m, s float64) {
		i, j := ids[a], ids[b]
		if s < g.seconds[i][j] || s == g.seconds[i][j] && m < g.meters[i][j] {
			g.seconds[i][j], g.seconds[j][i] = s, s
			g.meters[i][j], g.meters[j][i] = m, m
		}
	}
	for _, e := range n.Roads {
		link(e.From, e.To, e.Miles*metersPerMile, e.Miles/e.MPH*3600)
	}
	for _, f := range n.Ferries {
		if f.Vehicles {
			link(f.From, f.To, f.Miles*metersPerMile, (f.CrossingMinutes+f.BoardingMinutes)*60)
		}
	}
	for via := range k {
		sv, mv := g.seconds[via], g.meters[via]
		for i := range k {
			si, mi, ni := g.seconds[i], g.meters[i], g.next[i]
			if math.IsInf(si[via], 1) {
				continue
			}
			for j := range k {
				s := si[via] + sv[j]
				if s < si[j] || s == si[j] && mi[via]+mv[j] < mi[j] {
					si[j], mi[j], ni[j] = s, mi[via]+mv[j], ni[via]
				}
			}
		}
	}
	return g
}

// How a point outside the graph joins it.
const (
	// roadAreaMeters: a point whose nearest node is farther than this is
	// outside the graph's area.
	roadAreaMeters = 10_000
	// fringeMeters: a point outside the area but this near a node (inland
	// Mull, Knapdale, Glen Etive) may still be reached best from the graph
	// by a long approach leg, rather than through a distant gateway.
	fringeMeters = 30_000
	// A point joins the graph at its nearest node and at any other node
	// within attachSlack of that distance (and at most attachMax of them),
	// so that a point between two junctions can leave by either.
	attachSlack = 1.5
	attachExtra = 500.0
	attachMax   = 3
)

// leg is the approach from a point to a node.
type leg struct {
	node            int
	meters, seconds float64
}

// attach returns the approach legs from p to the graph, nearest first, and
// whether p is inside the graph's area; a point outside it has legs only if
// it is within [fringeMeters] of a node. An approach leg is driven as the
// model drives a short trip: the straight line times its detour factor, at
// town speeds. An airport's node stands for the whole airport, its terminals
// and drop-off roads: a point within [airportRadiusMeters] of it is at the
// node, with no approach leg, as the geocoders call such a point the airport.
func (g *roadGraph) attach(p latLon, buf *[attachMax]leg) ([]leg, bool) {
	best, bestD := g.index.nearest(g, p)
	if best < 0 || bestD > fringeMeters { // so no airport is within airportRadiusMeters either
		return nil, false
	}
	// Every node that can matter, an approach leg's or an airport's, is in
	// the band of the farther of the two limits.
	limit := bestD*attachSlack + attachExtra
	type near struct {
		node int
		d    float64
	}
	var space [32]near
	cands := space[:0]
	reach := max(limit, airportRadiusMeters)
	from, to := g.index.band(p.lat, reach)
	cut := lonCutDegrees(p.lat, reach)
	for k := from; k < to; k++ {
		if lonGap(p.lon, g.index.lons[k]) > cut {
			continue // farther than reach: neither an approach leg nor the airport p is at
		}
		i := g.index.nodes[k]
		nd := &g.nodes[i]
		cands = append(cands, near{i, haversine(p.lat, p.lon, nd.Lat, nd.Lon)})
	}
	// Nearest first, and of equally near nodes the lowest-numbered, as a
	// scan of every node in order chooses.
	closer := func(c near, node int, d float64) bool { return c.d < d || c.d == d && c.node < node }
	airport, airportD := -1, math.Inf(1)
	for _, c := range cands {
		if g.nodes[c.node].Kind == "airport" && c.d <= airportRadiusMeters && closer(c, airport, airportD) {
			airport, airportD = c.node, c.d
		}
	}
	if airport >= 0 { // at the airport: leave by its own roads
		buf[0] = leg{node: airport}
		return buf[:1], true
	}
	buf[0] = approach(best, bestD)
	legs := buf[:1]
	for len(legs) < attachMax {
		next, nextD := -1, math.Inf(1)
		for _, c := range cands {
			if c.d <= limit && closer(c, next, nextD) && !hasNode(legs, c.node) {
				next, nextD = c.node, c.d
			}
		}
		if next < 0 {
			break
		}
		legs = append(legs, approach(next, nextD))
	}
	return legs, bestD <= roadAreaMeters
}

func hasNode(legs []leg, i int) bool {
	for _, l := range legs {
		if l.node == i {
			return true
		}
	}
	return false
}

func approach(node int, straight float64) leg {
	m := straight * detourFactor(straight/1000)
	return leg{node: node, meters: m, seconds: driveSeconds(m)}
}

// route finds the road route from a to b, or reports false when neither end
// is in the graph's area (the caller then uses the model). Inside the area it
// is the fastest of the graph routes between the ends' approach legs; with one
// end outside, the fastest graph route to a gateway followed by the model from
// there, or, for an end on the area's fringe, by a long approach leg if that
// is faster. Two ends that join the graph at the same nearest node are a
// local trip, which the model prices as before.
func (g *roadGraph) route(a, b latLon) (Route, bool) {
	p, ok := g.plan(a, b)
	return p.route, ok
}

// roadPlan is a routed trip and the way it goes: the graph nodes passed
// (from the southern, then western, end of a trip inside the area; from the
// inside end of one that leaves it) and whether the model carried it beyond
// the last of them, a gateway.
type roadPlan struct {
	route Route
	// from and to are the first and last nodes passed; [roadGraph.path]
	// lists the way between them, which only the tests need, so a route
	// costs no list.
	from, to int
	beyond   bool
}

// path lists the nodes of the fastest route from i to j, both included.
func (g *roadGraph) path(i, j int) []int {
	p := []int{i}
	for i != j {
		i = g.next[i][j]
		p = append(p, i)
	}
	return p
}

func (g *roadGraph) plan(a, b latLon) (roadPlan, bool) {
	// Sums are taken from the southern (then western) end, so that A->B
	// and B->A add the same numbers in the same order: exactly symmetric.
	if b.lat < a.lat || b.lat == a.lat && b.lon < a.lon {
		a, b = b, a
	}
	var bufA, bufB [attachMax]leg
	la, inA := g.attach(a, &bufA)
	lb, inB := g.attach(b, &bufB)
	switch {
	case !inA && !inB:
		return roadPlan{}, false
	case inA && inB:
		if la[0].node == lb[0].node {
			return roadPlan{route: estimate(a, b), from: la[0].node, to: la[0].node}, true
		}
		return g.between(a, b, la, lb), true
	}
	in, out, legs, outLegs := a, b, la, lb
	if !inA {
		in, out, legs, outLegs = b, a, lb, la
	}
	var best Route
	var from, exit int
	bestS := math.Inf(1)
	for _, x := range legs {
		for _, gw := range g.gateways {
			nd := g.nodes[gw]
			beyond := estimate(latLon{nd.Lat, nd.Lon}, out)
			s := x.seconds + g.seconds[x.node][gw] + beyond.DurationSeconds
			if s < bestS {
				bestS, from, exit = s, x.node, gw
				best = Route{
					DistanceMeters:  x.meters + g.meters[x.node][gw] + beyond.DistanceMeters,
					DurationSeconds: s + cityCoreDelay(in),
				}
			}
		}
	}
	if math.IsInf(bestS, 1) { // a graph without gateways: the model, as outside
		return roadPlan{}, false
	}
	gateway := roadPlan{route: best, from: from, to: exit, beyond: true}
	if len(outLegs) > 0 {
		if direct := g.between(in, out, legs, outLegs); direct.route.DurationSeconds < gateway.route.DurationSeconds {
			return direct, true
		}
	}
	return gateway, true
}

// between is the fastest graph route from a to b, joining the graph by the
// legs la and lb.
func (g *roadGraph) between(a, b latLon, la, lb []leg) roadPlan {
	bestS, bestM := math.Inf(1), 0.0
	var from, to int
	for _, x := range la {
		for _, y := range lb {
			s := x.seconds + g.seconds[x.node][y.node] + y.seconds
			m := x.meters + g.meters[x.node][y.node] + y.meters
			if s < bestS || s == bestS && m < bestM {
				bestS, bestM, from, to = s, m, x.node, y.node
			}
		}
	}
	r := Route{DistanceMeters: bestM, DurationSeconds: overheadSeconds + bestS + cityCoreDelay(a) + cityCoreDelay(b)}
	return roadPlan{route: r, from: from, to: to}
}

package geo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// roadTrips are the service area's main trips with their real road
// distances: the project's best figures for the route a driver takes
// (published route lengths, signed distances, the specification's sample),
// rounded to a half mile. contracts/tariff/README.md (§7, "Road routing and
// coordinate pairs") prints this table with the router's answers; keep the
// two in step (go test ./server/geo -run TestRoadTrips -v prints the rows).
var roadTrips = []struct {
	from, to string
	real     float64  // road miles, ferry crossings included
	way      string   // the route the real figure is for
	via      []string // graph nodes the route must pass, in order
}{
	{"Helensburgh Central Station", "Glasgow Airport", 22, "A814, A82, Erskine Bridge, M8 (the specification's sample)", []string{"helensburgh", "dumbuck", "erskine-bridge-north", "m8-j30", "glasgow-airport"}},
	{"Helensburgh Central Station", "Glasgow Central Station", 25, "A814, A82 Great Western Road", []string{"dumbuck", "anniesland", "glasgow-central"}},
	{"Helensburgh", "Dumbarton", 8.5, "A814 by Cardross", []string{"cardross", "dumbarton"}},
	{"Helensburgh", "Cardross", 4.5, "A814", nil},
	{"Helensburgh", "Rhu", 2.3, "A814", nil},
	{"Helensburgh", "Balloch", 7.8, "A818, A82", []string{"crosskeys", "arden", "balloch"}},
	{"Helensburgh", "Luss", 11.5, "A818, A82", []string{"arden", "luss"}},
	{"Helensburgh", "Garelochhead", 8, "A814 by the Gareloch", []string{"rhu", "faslane", "garelochhead"}},
	{"Helensburgh", "Rosneath", 14.5, "A814, B833 round the head of the Gareloch (no bridge at Rhu)", []string{"garelochhead", "clynder", "rosneath"}},
	{"Helensburgh", "Kilcreggan", 17, "A814, B833", []string{"garelochhead", "rosneath", "kilcreggan"}},
	{"Helensburgh", "Arrochar", 21, "A818, A82, A83 by Tarbet (19 by the slower A814 along Loch Long)", []string{"arden", "tarbet", "arrochar"}},
	{"Helensburgh", "Crianlarich", 37, "A818, A82 by Loch Lomond", []string{"luss", "tarbet", "ardlui", "crianlarich"}},
	{"Helensburgh Central Station", "Oban", 77, "A818, A82 round Loch Lomond, A85 by Tyndrum", []string{"tarbet", "crianlarich", "tyndrum", "dalmally", "connel", "oban"}},
	{"Helensburgh", "Inveraray", 41, "A82, A83 by the Rest and Be Thankful", []string{"tarbet", "rest-and-be-thankful", "inveraray"}},
	{"Helensburgh", "Lochgilphead", 65, "A82, A83", []string{"inveraray", "lochgilphead"}},
	{"Helensburgh", "Campbeltown", 117, "A82, A83 by Tarbert", []string{"inveraray", "tarbert", "campbeltown"}},
	{"Helensburgh", "Dunoon", 37, "Erskine Bridge, M8, A8, Western Ferries McInroy's Point-Hunter's Quay (3 mi crossing)", []string{"erskine-bridge-north", "greenock", "mcinroys-point", "hunters-quay", "dunoon"}},
	{"Helensburgh", "Greenock", 28.5, "Erskine Bridge, M8, A8", []string{"erskine-bridge-north", "m8-j30", "port-glasgow", "greenock"}},
	{"Helensburgh", "Rothesay", 45, "Erskine Bridge, A78, CalMac Wemyss Bay-Rothesay (7 mi crossing)", []string{"greenock", "wemyss-bay", "rothesay"}},
	{"Helensburgh", "Glasgow Prestwick Airport", 52, "Erskine Bridge, M8, A737, A78", []string{"m8-j29", "dalry", "monkton", "prestwick-airport"}},
	{"Helensburgh Central Station", "Edinburgh Airport", 60, "A82, M8", []string{"charing-cross", "m8-j8", "newbridge", "edinburgh-airport"}},
	{"Helensburgh", "Stirling", 37, "A818, A82, A811 by Drymen", []string{"balloch", "drymen", "stirling"}},
	{"Helensburgh", "Fort William", 86, "A82 by Loch Lomond, Rannoch Moor and Glen Coe", []string{"tarbet", "tyndrum", "glencoe", "fort-william"}},
	{"Glasgow Central Station", "Glasgow Airport", 8.5, "M8", []string{"kingston", "m8-j28", "glasgow-airport"}},
	{"Glasgow Airport", "Glasgow Prestwick Airport", 35, "M8, M77, A77", []string{"m8-j22", "newton-mearns", "bellfield", "prestwick-airport"}},
	{"Glasgow Airport", "Oban", 92, "M8, Erskine Bridge, A82, A85", []string{"erskine-bridge-north", "arden", "crianlarich", "oban"}},
	{"Glasgow Central Station", "Oban", 96, "A82, A85", []string{"anniesland", "arden", "crianlarich", "oban"}},
	{"Glasgow", "Dunoon", 34, "M8, A8, Western Ferries (3 mi crossing)", []string{"m8-j30", "mcinroys-point", "hunters-quay", "dunoon"}},
	{"Dunoon", "Glasgow Airport", 26, "Western Ferries, A8, M8", []string{"hunters-quay", "mcinroys-point", "m8-j29", "glasgow-airport"}},
	{"Dunoon", "Rothesay", 29, "A815, B836, A886, CalMac Colintraive-Rhubodach", []string{"sandbank", "auchenbreck", "colintraive", "rhubodach", "rothesay"}},
	{"Tarbert", "Tighnabruaich", 11, "CalMac Tarbert-Portavadie (4 mi crossing), B8000", []string{"tarbert", "portavadie", "tighnabruaich"}},
	{"Inveraray", "Oban", 38, "A819 to the A85 by Kilchurn", []string{"inveraray", "a819-junction", "lochawe", "oban"}},
	{"Lochgilphead", "Oban", 35, "A816 (35 miles of it)", []string{"lochgilphead", "kilmartin", "kilmelford", "oban"}},
	{"Oban", "Oban Airport", 6.5, "A85, Connel Bridge", []string{"connel", "oban-airport"}},
	{"Oban", "Fort William", 46, "A85, A828 by Appin", []string{"connel", "benderloch", "ballachulish", "fort-william"}},
	{"Oban", "Tobermory", 31, "CalMac Oban-Craignure (10 mi crossing), A849, A848", []string{"oban-ferry", "craignure", "salen-mull", "tobermory"}},
	{"Tarbet", "Campbeltown", 98.5, "the whole A83 (SABRE: 98.6 mi)", []string{"tarbet", "arrochar", "rest-and-be-thankful", "inveraray", "lochgilphead", "tarbert", "kennacraig", "campbeltown"}},
	{"Campbeltown", "Campbeltown Airport", 3.5, "A83, B843", nil},
	{"Campbeltown", "Glasgow Airport", 131, "A83, A82, Erskine Bridge, M8", []string{"campbeltown", "tarbert", "inveraray", "tarbet", "erskine-bridge-north", "glasgow-airport"}},
	{"PA46", "Islay Airport", 17, "A846 from Port Askaig by Bridgend and Bowmore", []string{"port-askaig", "bowmore", "islay-airport"}},
	{"Helensburgh", "London Heathrow Airport", 420, "M8, M74, M6 (the model beyond the M74 gateway)", []string{"m8-j22", "m74-raith"}},
}

// roadTolerance is the accuracy the issue asks for: distanceMiles within
// 10 % of the real road distance. A quote is in whole miles, so for short
// trips the half mile of rounding is allowed as well.
func roadTolerance(real float64) float64 { return math.Max(0.10*real, 0.5) }

// TestRoadTrips is the accuracy table: every trip's routed miles within 10 %
// of its real road distance, its quoted (whole) miles too, allowing for the
// rounding, and its route by the way named.
func TestRoadTrips(t *testing.T) {
	g := embedded(t)
	roads, err := loadRoads()
	if err != nil {
		t.Fatal(err)
	}
	r := NewEmbeddedRouter()
	ctx := context.Background()
	var table strings.Builder
	fmt.Fprintln(&table, "| trip | real road miles | router miles (quoted) | error | minutes | route |")
	fmt.Fprintln(&table, "| --- | --- | --- | --- | --- | --- |")
	worst := 0.0
	for _, tt := range roadTrips {
		a, err1 := g.Geocode(ctx, tt.from)
		b, err2 := g.Geocode(ctx, tt.to)
		if err1 != nil || err2 != nil {
			t.Fatalf("geocode: %v, %v", err1, err2)
		}
		got, err := r.Route(ctx, a, b)
		if err != nil {
			t.Fatal(err)
		}
		mi := got.DistanceMeters / metersPerMile
		quoted := quotedMiles(got)
		e := (mi - tt.real) / tt.real
		worst = math.Max(worst, math.Abs(e))
		fmt.Fprintf(&table, "| %s → %s | %g | %.1f (%.0f) | %+.1f %% | %.0f | %s |\n", tt.from, tt.to, tt.real, mi, quoted, 100*e, quotedMinutes(got), tt.way)
		if math.Abs(e) > 0.10 || math.Abs(quoted-tt.real) > roadTolerance(tt.real) {
			t.Errorf("%s -> %s: %.0f mi (raw %.2f), real %g mi: off by %+.1f %%", tt.from, tt.to, quoted, mi, tt.real, 100*e)
		}
		plan, ok := roads.plan(latLon{a.Lat, a.Lon}, latLon{b.Lat, b.Lon})
		if !ok {
			t.Errorf("%s -> %s: not routed on the road graph", tt.from, tt.to)
			continue
		}
		if ids := nodeIDs(roads, plan); !inOrder(ids, tt.via) {
			t.Errorf("%s -> %s goes %v; want it through %v", tt.from, tt.to, ids, tt.via)
		}
	}
	t.Logf("worst error %.1f %%\n%s", 100*worst, table.String())
}

// nodeIDs names the nodes of a plan in the direction they are listed.
func nodeIDs(g *roadGraph, plan roadPlan) []string {
	nodes := g.path(plan.from, plan.to)
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = g.nodes[n].ID
	}
	return ids
}

// inOrder reports whether want occurs in ids in order, or in reverse order
// (a plan lists its nodes from the southern end).
func inOrder(ids, want []string) bool {
	sub := func(ids []string) bool {
		i := 0
		for _, id := range ids {
			if i < len(want) && id == want[i] {
				i++
			}
		}
		return i == len(want)
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	return sub(ids) || sub(rev)
}

// Undiscovered Scotland's Oban - Lochgilphead - Inveraray - Oban tour
// (A816, A83, A819, A85) is "93 miles long, all on good quality main roads".
func TestRoadsPublishedLoop(t *testing.T) {
	g := embedded(t)
	r := NewEmbeddedRouter()
	ctx := context.Background()
	stops := []string{"Oban", "Lochgilphead", "Inveraray", "Oban"}
	total := 0.0
	for i := 1; i < len(stops); i++ {
		a, _ := g.Geocode(ctx, stops[i-1])
		b, _ := g.Geocode(ctx, stops[i])
		got, err := r.Route(ctx, a, b)
		if err != nil {
			t.Fatal(err)
		}
		total += got.DistanceMeters / metersPerMile
	}
	if math.Abs(total-93)/93 > 0.10 {
		t.Errorf("the loop is %.1f mi, published 93", total)
	}
	t.Logf("Oban - Lochgilphead - Inveraray - Oban: %.1f mi (published 93)", total)
}

// The sea lochs and firths the straight line crosses: the road is much
// longer, and the ferries appear as ferries, with their time.
func TestRoadRoutesGoRoundTheWater(t *testing.T) {
	g := embedded(t)
	r := NewEmbeddedRouter()
	ctx := context.Background()
	route := func(from, to string) Route {
		a, _ := g.Geocode(ctx, from)
		b, _ := g.Geocode(ctx, to)
		got, err := r.Route(ctx, a, b)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Oban is 47 miles away as the model flies; by road it is round Loch Lomond.
	if got := route("Helensburgh Central Station", "Oban"); quotedMiles(got) < 70 {
		t.Errorf("Helensburgh -> Oban: %.0f mi, want the road round Loch Lomond (70+)", quotedMiles(got))
	}
	// Dunoon is 6 miles across the Firth of Clyde: the route either goes by
	// road round Loch Long (58 mi) or through Gourock and on the ferry, whose
	// 20-minute crossing and wait are in the duration.
	d := route("Helensburgh", "Dunoon")
	if quotedMiles(d) < 30 || quotedMinutes(d) < 75 {
		t.Errorf("Helensburgh -> Dunoon: %.0f mi, %.0f min; want no bridge across the Clyde", quotedMiles(d), quotedMinutes(d))
	}
	// Rhu and Rosneath face each other across the narrows of the Gareloch.
	if got := route("Rhu", "Rosneath"); quotedMiles(got) < 10 {
		t.Errorf("Rhu -> Rosneath: %.0f mi; want the road round the head of the Gareloch", quotedMiles(got))
	}
}

// A point on the area's fringe, 13 km from the nearest node (inland Mull),
// is reached from the graph by a long approach leg, not through a distant
// gateway and the model beyond it.
func TestRoadsFringePoint(t *testing.T) {
	roads, err := loadRoads()
	if err != nil {
		t.Fatal(err)
	}
	g := embedded(t)
	oban, _ := g.Geocode(context.Background(), "Oban")
	mull, err := g.Geocode(context.Background(), "PA62")
	if err != nil {
		t.Fatal(err)
	}
	plan, ok := roads.plan(latLon{oban.Lat, oban.Lon}, latLon{mull.Lat, mull.Lon})
	if !ok || plan.beyond {
		t.Fatalf("Oban -> inland Mull: %+v, %v; want a graph route", plan, ok)
	}
	if ids := nodeIDs(roads, plan); !inOrder(ids, []string{"oban-ferry", "craignure"}) {
		t.Errorf("Oban -> inland Mull goes %v; want the Craignure ferry", ids)
	}
	if mi := quotedMiles(plan.route); mi > 30 {
		t.Errorf("Oban -> inland Mull: %.0f mi", mi)
	}
}

// Gourock's ferry to Dunoon carries foot passengers only: a taxi cannot use
// it, so the graph never does, and Gourock -> Dunoon goes by Western Ferries
// from McInroy's Point.
func TestRoadsPassengerFerryNotRouted(t *testing.T) {
	roads, err := loadRoads()
	if err != nil {
		t.Fatal(err)
	}
	g := embedded(t)
	a, _ := g.Geocode(context.Background(), "Gourock Ferry Terminal")
	b, _ := g.Geocode(context.Background(), "Dunoon Pier")
	plan, ok := roads.plan(latLon{a.Lat, a.Lon}, latLon{b.Lat, b.Lon})
	if !ok {
		t.Fatal("not routed on the graph")
	}
	ids := nodeIDs(roads, plan)
	if !inOrder(ids, []string{"mcinroys-point", "hunters-quay"}) {
		t.Errorf("Gourock -> Dunoon goes %v; want Western Ferries", ids)
	}
}

// Routes on the graph are symmetric and deterministic, and an end outside
// the area goes by a gateway and the model, the same both ways.
func TestRoadRoutesSymmetric(t *testing.T) {
	r := NewEmbeddedRouter()
	ctx := context.Background()
	pts := []Place{
		helensburghCentral, glasgowAirport,
		{Lat: 56.4153, Lon: -5.4718},   // Oban
		{Lat: 55.9503, Lon: -4.9273},   // Dunoon
		{Lat: 55.4258, Lon: -5.6076},   // Campbeltown
		{Lat: 56.6220, Lon: -6.0680},   // Tobermory
		{Lat: 51.4700, Lon: -0.4543},   // Heathrow: outside the area
		{Lat: 57.4778, Lon: -4.2247},   // Inverness: outside
		{Lat: 55.9533, Lon: -3.1883},   // Edinburgh
		{Lat: 56.00614, Lon: -4.72648}, // Helensburgh town
	}
	for _, a := range pts {
		for _, b := range pts {
			ab, err1 := r.Route(ctx, a, b)
			ba, err2 := r.Route(ctx, b, a)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if ab != ba {
				t.Errorf("%v <-> %v: %+v vs %+v", a, b, ab, ba)
			}
			if a != b && (ab.DistanceMeters < DistanceMeters(a, b) || ab.DurationSeconds <= 0) {
				t.Errorf("%v -> %v: %+v is shorter than the straight line", a, b, ab)
			}
		}
	}
}

// Outside the graph's area the calibrated model answers exactly as before.
func TestRoadsModelOutsideArea(t *testing.T) {
	london := latLon{51.5074, -0.1278}
	manchester := latLon{53.4808, -2.2426}
	got, err := NewEmbeddedRouter().Route(context.Background(), Place{Lat: london.lat, Lon: london.lon}, Place{Lat: manchester.lat, Lon: manchester.lon})
	if err != nil {
		t.Fatal(err)
	}
	if want := estimate(london, manchester); got != want {
		t.Errorf("London -> Manchester = %+v, want the model's %+v", got, want)
	}
}

// The checks of ParseRoadNetwork, one broken file each.
func TestParseRoadNetworkRefuses(t *testing.T) {
	const nodes = `"nodes": [
		{"id": "a", "name": "A", "kind": "town", "lat": 56.0, "lon": -4.7},
		{"id": "b", "name": "B", "kind": "town", "lat": 56.0, "lon": -4.6}]`
	tests := []struct{ name, file, want string }{
		{"unknown field", `{` + nodes + `, "roads": [], "ferries": [], "extra": 1}`, "unknown field"},
		{"unknown node", `{` + nodes + `, "roads": [{"road": "A1", "from": "a", "to": "c", "miles": 5, "mph": 30}], "ferries": []}`, `unknown node "c"`},
		{"shorter than the straight line", `{` + nodes + `, "roads": [{"road": "A1", "from": "a", "to": "b", "miles": 3, "mph": 30}], "ferries": []}`, "shorter than the straight line"},
		{"far too long", `{` + nodes + `, "roads": [{"road": "A1", "from": "a", "to": "b", "miles": 40, "mph": 30}], "ferries": []}`, "over twice"},
		{"too fast", `{` + nodes + `, "roads": [{"road": "A1", "from": "a", "to": "b", "miles": 5, "mph": 70}], "ferries": []}`, "mph"},
		{"listed twice", `{` + nodes + `, "roads": [{"road": "A1", "from": "a", "to": "b", "miles": 5, "mph": 30}, {"road": "A1", "from": "b", "to": "a", "miles": 5, "mph": 30}], "ferries": []}`, "listed twice"},
		{"ferry with no time", `{` + nodes + `, "roads": [], "ferries": [{"operator": "X", "from": "a", "to": "b", "miles": 5, "crossingMinutes": 0, "boardingMinutes": 5, "vehicles": true, "note": ""}]}`, "positive times"},
		{"only a foot ferry joins them", `{` + nodes + `, "roads": [], "ferries": [{"operator": "X", "from": "a", "to": "b", "miles": 5, "crossingMinutes": 20, "boardingMinutes": 5, "vehicles": false, "note": ""}]}`, "cannot be reached"},
		{"outside the area", `{"nodes": [{"id": "a", "name": "A", "kind": "town", "lat": 51.5, "lon": -0.1}], "roads": [], "ferries": []}`, "outside the area"},
		{"bad kind", `{"nodes": [{"id": "a", "name": "A", "kind": "castle", "lat": 56, "lon": -4.7}], "roads": [], "ferries": []}`, "unknown kind"},
	}
	for _, tt := range tests {
		_, err := ParseRoadNetwork([]byte(tt.file))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	// And the shipped file passes.
	b, err := dataFS.ReadFile("data/roads.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseRoadNetwork(b); err != nil {
		t.Fatal(errors.Unwrap(err), err)
	}
}

func BenchmarkRoadRoute(b *testing.B) {
	r := NewEmbeddedRouter()
	ctx := context.Background()
	oban := Place{Lat: 56.4153, Lon: -5.4718}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = r.Route(ctx, helensburghCentral, oban)
	}
}

package geo

import (
	"context"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCoordinatePairs(t *testing.T) {
	g := embedded(t)
	gla, err := g.Geocode(context.Background(), "Glasgow Airport")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  Place
	}{
		{"56.0036,-4.7346", Place{Name: "56.0036,-4.7346", Lat: 56.0036, Lon: -4.7346, Kind: KindPoint}},
		{"  56.0036 ,  -4.7346 ", Place{Name: "56.0036,-4.7346", Lat: 56.0036, Lon: -4.7346, Kind: KindPoint}},
		{"+56.00416,-4.73253", Place{Name: "56.00416,-4.73253", Lat: 56.00416, Lon: -4.73253, Kind: KindPoint}},
		{"56,-4", Place{Name: "56,-4", Lat: 56, Lon: -4, Kind: KindPoint}},
		{"51.5074,-0.1278", Place{Name: "51.5074,-0.1278", Lat: 51.5074, Lon: -0.1278, Kind: KindPoint}},
		// At an airport: the exact point, named and priced as the airport.
		{"55.8719,-4.43306", Place{Name: gla.Name, Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA", Postcode: gla.Postcode}},
		{"55.8650,-4.4330", Place{Name: gla.Name, Lat: 55.865, Lon: -4.433, Kind: KindAirport, IATA: "GLA", Postcode: gla.Postcode}}, // the terminal, 0.8 km
		// Inchinnan Road north of the runway: 1.9 km from the reference point
		// is the airport, 2.2 km is not.
		{"55.8890,-4.4330", Place{Name: gla.Name, Lat: 55.889, Lon: -4.433, Kind: KindAirport, IATA: "GLA", Postcode: gla.Postcode}},
		{"55.8917,-4.4330", Place{Name: "55.8917,-4.433", Lat: 55.8917, Lon: -4.433, Kind: KindPoint}},
	}
	for _, tt := range tests {
		got, err := g.Geocode(context.Background(), tt.query)
		if err != nil {
			t.Errorf("Geocode(%q): %v", tt.query, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Geocode(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

func TestCoordinatePairsRefused(t *testing.T) {
	g := embedded(t)
	tests := []struct{ query, why string }{
		{"91,0", "latitude 91 is outside -90..90"},
		{"-90.0001,-4", "latitude -90.0001 is outside -90..90"},
		{"56,181", "longitude 181 is outside -180..180"},
		{"56,-180.5", "longitude -180.5 is outside -180..180"},
		{"90,180", "outside the UK"},
		{"40.7128,-74.0060", "outside the UK"}, // New York
		{"48.8566,2.3522", "outside the UK"},   // Paris
		{"0,0", "outside the UK"},
	}
	for _, tt := range tests {
		_, err := g.Geocode(context.Background(), tt.query)
		if !errors.Is(err, ErrNoMatch) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Geocode(%q) = %v, want ErrNoMatch saying %q", tt.query, err, tt.why)
		}
	}
}

// Text that only looks a little like coordinates is geocoded as text.
func TestCoordinatePairLookalikes(t *testing.T) {
	for _, q := range []string{"56.0036", "56.0036,-4.7346,10", "56.0036 -4.7346", "56.0036;-4.7346", "1234,5", "56.,-4.7", "N56.0036,W4.7346", "Infinity,0", "NaN,NaN", "56.0036,-4.7346 Helensburgh", "12 Sinclair Street, Helensburgh"} {
		if _, ok, _ := coordinatePlace(q); ok {
			t.Errorf("%q read as a coordinate pair", q)
		}
	}
	// A street address that starts with a number is still an address.
	p, err := embedded(t).Geocode(context.Background(), "12 Sinclair Street, Helensburgh")
	if err != nil || p.Kind == KindPoint {
		t.Errorf("address: %+v, %v", p, err)
	}
}

// The Nominatim geocoder answers a pair itself, without a request.
func TestNominatimCoordinatePair(t *testing.T) {
	ts, calls := nominatimServer(t, map[string]fixture{})
	n := NewNominatim(ts.URL, WithUserAgent("trident-test/1.0"))
	p, err := n.Geocode(context.Background(), "55.8650, -4.4330")
	if err != nil || p.Kind != KindAirport || p.IATA != "GLA" || p.Lat != 55.865 || p.Lon != -4.433 {
		t.Errorf("Geocode = %+v, %v; want Glasgow Airport at the exact point", p, err)
	}
	if _, err := n.Geocode(context.Background(), "91,0"); !errors.Is(err, ErrNoMatch) {
		t.Errorf("out of range: %v", err)
	}
	if c := calls.Load(); c != 0 {
		t.Errorf("%d requests sent for coordinate pairs", c)
	}
}

// The specification's trip given as coordinates, as Relay sends it, is the
// same 22 miles with the airport surcharge: coordinates at the airport route
// from the airport's node.
func TestCoordinateTripPricesLikeNamedTrip(t *testing.T) {
	g := embedded(t)
	r := NewEmbeddedRouter()
	ctx := context.Background()
	for _, pair := range [][2]string{
		{"56.00416,-4.73253", "55.8719,-4.43306"}, // the gazetteer's positions
		{"56.0036,-4.7346", "55.8719,-4.4331"},    // the Helensburgh Central
		{"56.0036,-4.7346", "55.8650,-4.4330"},    // to the terminal building
	} {
		a, err1 := g.Geocode(ctx, pair[0])
		b, err2 := g.Geocode(ctx, pair[1])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !b.IsAirport() || a.IsAirport() {
			t.Errorf("%v: airport kinds %v, %v", pair, a.Kind, b.Kind)
		}
		got, err := r.Route(ctx, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if quotedMiles(got) != 22 || quotedMinutes(got) != 33 {
			t.Errorf("%v: %.0f mi %.0f min (%+v), want 22 mi 33 min", pair, quotedMiles(got), quotedMinutes(got), got)
		}
	}
}

// coordinatePairRE is the regular expression [splitCoordinatePair] replaced:
// the definition of a coordinate pair the hand parser must keep.
var coordinatePairRE = regexp.MustCompile(`^\s*([+-]?\d{1,3}(?:\.\d{1,15})?)\s*,\s*([+-]?\d{1,3}(?:\.\d{1,15})?)\s*$`)

// checkSplitLikeRegexp fails when the hand parser and the regular
// expression read q differently.
func checkSplitLikeRegexp(t *testing.T, q string) {
	t.Helper()
	lat, lon, ok := splitCoordinatePair(q)
	m := coordinatePairRE.FindStringSubmatch(q)
	if ok != (m != nil) || ok && (lat != m[1] || lon != m[2]) {
		t.Errorf("splitCoordinatePair(%q) = %q, %q, %v; the regular expression reads %q", q, lat, lon, ok, m)
	}
}

func TestSplitCoordinatePairMatchesRegexp(t *testing.T) {
	for _, q := range []string{
		"56.0036,-4.7346", "  56.0036 ,  -4.7346 ", "+56.00416,-4.73253", "56,-4", "-0,-0", "+0,+0",
		"\t56\n,\r-4\f", "56\v,-4", "56\u00a0,-4", "５６,-4", "56,-4\n", "\n56,-4",
		"1,2", "123,456", "1234,5", "1,2345", "+,1", "-,1", "1,+", "+-1,2", "--1,2", "1,,2", ",1", "1,", ",",
		"56.,-4.7", "56.0,-4.", ".5,1", "1,.5", "56..0,1", "56.0.0,1",
		"1.123456789012345,2.123456789012345", "1.1234567890123456,2", "1,2.1234567890123456",
		"56.0036", "56.0036,-4.7346,10", "56.0036 -4.7346", "56.0036;-4.7346", "N56.0036,W4.7346",
		"Infinity,0", "NaN,NaN", "56.0036,-4.7346 Helensburgh", "12 Sinclair Street, Helensburgh",
		"", " ", "56 .0,1", "56. 0,1", "1e2,3", "0x1,2", "1_0,2", "\xff1,2", "1,2\xff",
	} {
		checkSplitLikeRegexp(t, q)
	}
}

func FuzzCoordinatePair(f *testing.F) {
	for _, s := range []string{"56.0036,-4.7346", " 90 , 180 ", "-0,-0", "999,999", "56.000000000000001,-4.1", "1,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		checkSplitLikeRegexp(t, q)
		p, ok, err := coordinatePlace(q)
		if !ok {
			return
		}
		if err != nil {
			if !errors.Is(err, ErrNoMatch) {
				t.Fatalf("%q: %v is not ErrNoMatch", q, err)
			}
			return
		}
		if !p.Valid() || p.Lat < ukMinLat || p.Lat > ukMaxLat || p.Lon < ukMinLon || p.Lon > ukMaxLon || p.Name == "" {
			t.Fatalf("%q: %+v", q, p)
		}
	})
}

// The latitude cut in coordinatePlace skips only airports the full
// distance would also leave out: around every airport, at the edge of the
// radius north, south and on the diagonals, it names the airport a search
// of every airport names.
func TestCoordinateAirportCutLikeFullSearch(t *testing.T) {
	const deg = airportRadiusMeters / latArcMeters // the radius in degrees of latitude
	for _, a := range airports() {
		for _, f := range []float64{0, 0.5, 0.999, 0.9999, 1, 1.0001, 1.001, 1.5} {
			for _, dir := range [][2]float64{{1, 0}, {-1, 0}, {0.7, 0.7}, {-0.7, 1}, {0.2, -1.4}} {
				lat, lon := a.Lat+dir[0]*f*deg, a.Lon+dir[1]*f*deg
				q := strconv.FormatFloat(lat, 'f', 6, 64) + "," + strconv.FormatFloat(lon, 'f', 6, 64)
				got, ok, err := coordinatePlace(q)
				if !ok || err != nil {
					continue // outside the UK: no airport either way
				}
				want := KindPoint
				var name string
				best := math.Inf(1)
				for _, b := range airports() {
					if d := DistanceMeters(got, b); d <= airportRadiusMeters && d < best {
						best, want, name = d, KindAirport, b.Name
					}
				}
				if got.Kind != want || want == KindAirport && got.Name != name {
					t.Errorf("%s (near %s): %s %q, want %s %q", q, a.Name, got.Kind, got.Name, want, name)
				}
			}
		}
	}
}

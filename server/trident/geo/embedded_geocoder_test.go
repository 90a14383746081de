package geo

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func embedded(t testing.TB) *EmbeddedGeocoder {
	t.Helper()
	g, err := NewEmbeddedGeocoder()
	if err != nil {
		t.Fatalf("NewEmbeddedGeocoder: %v", err)
	}
	return g
}

// approx compares coordinates to about 10 m, so the table can use rounded
// numbers.
var approx = cmpopts.EquateApprox(0, 1e-4)

func TestEmbeddedGeocodeResolves(t *testing.T) {
	g := embedded(t)
	tests := []struct {
		query string
		want  Place
	}{
		// The spec's own forms.
		{"Helensburgh Central Station", Place{Name: "Helensburgh Central Station", Lat: 56.00416, Lon: -4.73253, Kind: KindStation, Postcode: "G84 7HL"}},
		{"Helensburgh Central Station, Helensburgh G84 7HL", Place{Name: "Helensburgh Central Station", Lat: 56.00416, Lon: -4.73253, Kind: KindStation, Postcode: "G84 7HL"}},
		{"Glasgow Airport", Place{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA", Postcode: "PA3 2SW"}},
		{"Glasgow Airport (GLA), Paisley PA3 2SW", Place{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA", Postcode: "PA3 2SW"}},
		{"GLA", Place{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA", Postcode: "PA3 2SW"}},
		{"gla", Place{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA", Postcode: "PA3 2SW"}},
		// Case, punctuation and spacing do not matter.
		{"  helensburgh CENTRAL station!! ", Place{Name: "Helensburgh Central Station", Lat: 56.00416, Lon: -4.73253, Kind: KindStation, Postcode: "G84 7HL"}},
		{"Helensburgh Central Railway Station", Place{Name: "Helensburgh Central Station", Lat: 56.00416, Lon: -4.73253, Kind: KindStation, Postcode: "G84 7HL"}},
		{"glasgow international airport", Place{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA", Postcode: "PA3 2SW"}},
		{"Hunters Quay", Place{Name: "Hunter's Quay Ferry Terminal", Lat: 55.9706, Lon: -4.9119, Kind: KindFerry}},
		{"Arrochar & Tarbet", Place{Name: "Arrochar & Tarbet Station", Lat: 56.204, Lon: -4.7227, Kind: KindStation}},
		{"arrochar and tarbet station", Place{Name: "Arrochar & Tarbet Station", Lat: 56.204, Lon: -4.7227, Kind: KindStation}},
		// Postcodes: a known full postcode is its place's position; otherwise
		// the district centroid; otherwise the area's post town.
		{"G84 7HL", Place{Name: "G84 7HL", Lat: 56.00416, Lon: -4.73253, Kind: KindPostcode, Postcode: "G84 7HL", Region: "Helensburgh Central Station"}},
		{"g847hl", Place{Name: "G84 7HL", Lat: 56.00416, Lon: -4.73253, Kind: KindPostcode, Postcode: "G84 7HL", Region: "Helensburgh Central Station"}},
		{"PA3 2SW", Place{Name: "PA3 2SW", Lat: 55.8719, Lon: -4.43306, Kind: KindPostcode, Postcode: "PA3 2SW", Region: "Glasgow Airport"}},
		{"G84 9XX", Place{Name: "G84 9XX", Lat: 56.006, Lon: -4.737, Kind: KindPostcode, Postcode: "G84 9XX", Region: "Helensburgh"}},
		{"G84", Place{Name: "G84", Lat: 56.006, Lon: -4.737, Kind: KindPostcode, Postcode: "G84", Region: "Helensburgh"}},
		{"EH1 1YZ", Place{Name: "EH1 1YZ", Lat: 55.95206, Lon: -3.19648, Kind: KindPostcode, Postcode: "EH1 1YZ", Region: "Edinburgh"}},
		// Towns; ambiguous names prefer the service area, then population,
		// unless the query names the council area.
		{"Helensburgh", Place{Name: "Helensburgh", Lat: 56.00614, Lon: -4.72648, Kind: KindTown, Region: "Argyll and Bute, Scotland"}},
		{"Dumbarton", Place{Name: "Dumbarton", Lat: 55.94433, Lon: -4.57061, Kind: KindTown, Region: "West Dunbartonshire, Scotland"}},
		{"Balloch", Place{Name: "Balloch", Lat: 56, Lon: -4.58333, Kind: KindTown, Region: "West Dunbartonshire, Scotland"}},
		{"Balloch, Highland", Place{Name: "Balloch", Lat: 57.49194, Lon: -4.11713, Kind: KindTown, Region: "Highland, Scotland"}},
		{"Alexandria", Place{Name: "Alexandria", Lat: 55.99379, Lon: -4.5864, Kind: KindTown, Region: "West Dunbartonshire, Scotland"}},
		{"Belfast City Airport", Place{Name: "George Best Belfast City Airport", Lat: 54.6181, Lon: -5.8725, Kind: KindAirport, IATA: "BHD"}},
		{"Cove", Place{Name: "Cove", Lat: 55.993, Lon: -4.857, Kind: KindTown}},
		{"Newport", Place{Name: "Newport", Lat: 51.58774, Lon: -2.99835, Kind: KindTown, Region: "Newport, Wales"}},
		{"Melbourne, Derbyshire", Place{Name: "Melbourne", Lat: 52.8219, Lon: -1.42522, Kind: KindTown, Region: "Derbyshire, England"}},
		{"Melbourne, UK", Place{Name: "Melbourne", Lat: 52.8219, Lon: -1.42522, Kind: KindTown, Region: "Derbyshire, England"}},
		{"Perth", Place{Name: "Perth", Lat: 56.39522, Lon: -3.43139, Kind: KindTown, Region: "Perth and Kinross, Scotland"}},
		{"Glasgow City Centre", Place{Name: "Glasgow", Lat: 55.86515, Lon: -4.25763, Kind: KindTown, Region: "Glasgow City, Scotland"}},
		{"Helensburgh, Scotland, UK", Place{Name: "Helensburgh", Lat: 56.00614, Lon: -4.72648, Kind: KindTown, Region: "Argyll and Bute, Scotland"}},
		// A station's bare name is the town; with "Station" it is the station.
		{"Balloch Station", Place{Name: "Balloch Station", Lat: 56.00257, Lon: -4.58359, Kind: KindStation}},
		{"Glasgow Central", Place{Name: "Glasgow Central Station", Lat: 55.8591, Lon: -4.2581, Kind: KindStation, Postcode: "G1 3SL"}},
		{"Glasgow", Place{Name: "Glasgow", Lat: 55.86515, Lon: -4.25763, Kind: KindTown, Region: "Glasgow City, Scotland"}},
		// Addresses: the most specific known part wins.
		{"12 Sinclair Street, Helensburgh", Place{Name: "Helensburgh", Lat: 56.00614, Lon: -4.72648, Kind: KindTown, Region: "Argyll and Bute, Scotland"}},
		{"12 Sinclair Street Helensburgh", Place{Name: "Helensburgh", Lat: 56.00614, Lon: -4.72648, Kind: KindTown, Region: "Argyll and Bute, Scotland"}},
		{"12 Sinclair Street, Helensburgh, G84 8TU", Place{Name: "G84 8TU", Lat: 56.006, Lon: -4.737, Kind: KindPostcode, Postcode: "G84 8TU", Region: "Helensburgh"}},
		{"Glasgow Road, Dumbarton", Place{Name: "Dumbarton", Lat: 55.94433, Lon: -4.57061, Kind: KindTown, Region: "West Dunbartonshire, Scotland"}},
		{"The Hill House, Upper Colquhoun Street, Helensburgh G84 9AJ", Place{Name: "The Hill House", Lat: 56.0155, Lon: -4.7267, Kind: KindLandmark, Postcode: "G84 9AJ"}},
		{"Queen Elizabeth University Hospital, 1345 Govan Road, Glasgow G51 4TF", Place{Name: "Queen Elizabeth University Hospital", Lat: 55.862, Lon: -4.339, Kind: KindHospital, Postcode: "G51 4TF"}},
		{"Vale of Leven", Place{Name: "Vale of Leven Hospital", Lat: 55.9955, Lon: -4.587, Kind: KindHospital, Postcode: "G83 0UA"}},
		{"A82, Luss", Place{Name: "Luss", Lat: 56.101, Lon: -4.6385, Kind: KindTown}},
		// Airports from OpenFlights.
		{"Heathrow", Place{Name: "London Heathrow Airport", Lat: 51.4706, Lon: -0.46194, Kind: KindAirport, IATA: "LHR"}},
		{"Dublin Airport", Place{Name: "Dublin Airport", Lat: 53.4213, Lon: -6.27007, Kind: KindAirport, IATA: "DUB"}},
		{"MAN", Place{Name: "Manchester Airport", Lat: 53.3537, Lon: -2.27495, Kind: KindAirport, IATA: "MAN"}},
		{"Edinburgh Airport", Place{Name: "Edinburgh Airport", Lat: 55.95, Lon: -3.3725, Kind: KindAirport, IATA: "EDI", Postcode: "EH12 9DN"}},
		{"Luton", Place{Name: "Luton", Lat: 51.87967, Lon: -0.41748, Kind: KindTown, Region: "Luton, England"}},
		{"Luton Airport", Place{Name: "London Luton Airport", Lat: 51.8747, Lon: -0.36833, Kind: KindAirport, IATA: "LTN"}},
	}
	for _, tt := range tests {
		got, err := g.Geocode(context.Background(), tt.query)
		if err != nil {
			t.Errorf("Geocode(%q): %v", tt.query, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, approx); diff != "" {
			t.Errorf("Geocode(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

func TestEmbeddedGeocodeRefuses(t *testing.T) {
	g := embedded(t)
	for _, q := range []string{
		"", "   ", "\t\n", "xxx", "asdf", "qwerty", "zzzz", "123 Main St", "123 Main Street", "your address",
		"TBD", "N/A", "n/a", "test", "null", "undefined", "???", "12345", "!!!",
		"Times Square, New York", "Paris, France", "Paris France", "Berlin", "Berlin, Germany",
		"Melbourne", "Sydney, Australia", "1600 Pennsylvania Avenue, Washington DC", "Tokyo",
		"123 Main Street, Springfield, USA", "man", "M8 junction 30", "Hospital", "Main Street",
		string(make([]byte, maxQueryBytes+1)),
	} {
		got, err := g.Geocode(context.Background(), q)
		if !errors.Is(err, ErrNoMatch) {
			t.Errorf("Geocode(%q) = %+v, %v; want ErrNoMatch", q, got, err)
		}
	}
}

func TestEmbeddedGeocodeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := embedded(t).Geocode(ctx, "Glasgow Airport"); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("Geocode with cancelled ctx = %v", err)
	}
}

// Every curated place must be found by its own name: a new entry whose name
// collides with a stronger one shows up here.
func TestEmbeddedCuratedNamesResolveToThemselves(t *testing.T) {
	g := embedded(t)
	rows, err := readTable("places.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		got, err := g.Geocode(context.Background(), r["name"])
		if err != nil {
			t.Errorf("Geocode(%q): %v", r["name"], err)
			continue
		}
		if got.Name != r["name"] || string(got.Kind) != r["kind"] {
			t.Errorf("Geocode(%q) = %s (%s), want itself (%s)", r["name"], got.Name, got.Kind, r["kind"])
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := map[string]string{
		"Hunter's Quay":            "hunters quay",
		"Arrochar & Tarbet":        "arrochar and tarbet",
		"  Stoke-on-Trent ":        "stoke on trent",
		"Ynys Môn":                 "ynys mon",
		"Saint James, Paisley":     "st james paisley",
		"GLASGOW   Central.":       "glasgow central",
		"Llanfair­pwll (Anglesey)": "llanfairpwll anglesey",
		"":                         "",
		"!!!":                      "",
	}
	for in, want := range tests {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitOutward(t *testing.T) {
	tests := []struct {
		in   string
		area string
		ok   bool
	}{
		{"g84", "g", true}, {"pa3", "pa", true}, {"sw1a", "sw", true}, {"ec1a", "ec", true},
		{"w1", "w", true}, {"g", "", false}, {"84", "", false}, {"abc1", "", false}, {"g84xy", "", false},
	}
	for _, tt := range tests {
		area, ok := splitOutward(tt.in)
		if area != tt.area || ok != tt.ok {
			t.Errorf("splitOutward(%q) = %q, %v; want %q, %v", tt.in, area, ok, tt.area, tt.ok)
		}
	}
}

// The geocoder is shared by all requests: concurrent use must give the same
// answers (run with -race to check for data races too).
func TestEmbeddedGeocodeConcurrent(t *testing.T) {
	g := embedded(t)
	want := map[string]Place{}
	for _, q := range benchQueries {
		p, _ := g.Geocode(context.Background(), q)
		want[q] = p
	}
	done := make(chan error)
	for w := 0; w < 4; w++ {
		go func() {
			for i := 0; i < 200; i++ {
				q := benchQueries[(i+w)%len(benchQueries)]
				if p, _ := g.Geocode(context.Background(), q); p != want[q] {
					done <- errors.New(q)
					return
				}
			}
			done <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Errorf("concurrent Geocode(%q) differed", err)
		}
	}
}

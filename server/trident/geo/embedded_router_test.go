package geo

import (
	"context"
	"errors"
	"math"
	"testing"
)

// The server quotes distanceMiles = round(m / 1609.344) and durationSeconds =
// round(s / 60) * 60; these helpers compute the same.
func quotedMiles(r Route) float64   { return math.Round(r.DistanceMeters / metersPerMile) }
func quotedMinutes(r Route) float64 { return math.Round(r.DurationSeconds / 60) }

// TestEmbeddedRouterCalibration is the calibration table of the model. The
// first row is exact and fixed by the spec's sample payloads (22 miles, 1980
// seconds); the others are ranges around real driving figures.
func TestEmbeddedRouterCalibration(t *testing.T) {
	g := embedded(t)
	r := NewEmbeddedRouter()
	tests := []struct {
		from, to            string
		minMiles, maxMiles  float64
		minMinutes, maxMins float64
	}{
		{"Helensburgh Central Station", "Glasgow Airport", 22, 22, 33, 33},         // the spec's reference trip
		{"Helensburgh Central Station", "Glasgow Central Station", 23, 26, 40, 48}, // ~25 mi, ~45 min via A82
		{"Helensburgh", "Dumbarton", 8, 9, 15, 20},                                 // ~8 mi along the A814
		{"Helensburgh Central Station", "Edinburgh Airport", 58, 64, 70, 80},       // ~60 mi, ~1h15
		{"Helensburgh", "Rhu", 1, 3, 4, 9},                                         // town hop
		{"Helensburgh Central Station", "Helensburgh Upper Station", 1, 1, 2, 5},   // across town
		{"Helensburgh", "Cardross", 4, 5, 9, 14},                                   // ~4 mi
		{"Helensburgh", "Balloch", 6, 8, 12, 17},                                   // ~7 mi
		{"Helensburgh", "Greenock", 27, 33, 38, 50},                                // round by the Erskine Bridge
		{"Helensburgh", "Glasgow Prestwick Airport", 48, 55, 60, 70},               // ~50 mi
		{"Glasgow Central Station", "Glasgow Airport", 7, 10, 15, 25},              // ~8.5 mi on the M8
		{"Helensburgh", "London Heathrow Airport", 400, 440, 420, 480},             // ~420 mi, ~7h15
	}
	for _, tt := range tests {
		a, err1 := g.Geocode(context.Background(), tt.from)
		b, err2 := g.Geocode(context.Background(), tt.to)
		if err1 != nil || err2 != nil {
			t.Fatalf("geocode: %v, %v", err1, err2)
		}
		got, err := r.Route(context.Background(), a, b)
		if err != nil {
			t.Fatal(err)
		}
		mi, mins := quotedMiles(got), quotedMinutes(got)
		if mi < tt.minMiles || mi > tt.maxMiles || mins < tt.minMinutes || mins > tt.maxMins {
			t.Errorf("%s -> %s: %.0f mi %.0f min (raw %.1f m, %.1f s); want %v-%v mi, %v-%v min",
				tt.from, tt.to, mi, mins, got.DistanceMeters, got.DurationSeconds, tt.minMiles, tt.maxMiles, tt.minMinutes, tt.maxMins)
		}
	}
}

// The reference trip exactly as the server computes it from the spec's
// sample request, with margins: a model change that brings it within 100 m or
// 10 s of a rounding boundary fails here before it flips a quote.
func TestEmbeddedRouterReferenceMargins(t *testing.T) {
	got, err := NewEmbeddedRouter().Route(context.Background(), helensburghCentral, glasgowAirport)
	if err != nil {
		t.Fatal(err)
	}
	if m := got.DistanceMeters; m < 21.5*metersPerMile+100 || m > 22.5*metersPerMile-100 {
		t.Errorf("distance %.1f m is within 100 m of a mile boundary (or outside 22 miles)", m)
	}
	if s := got.DurationSeconds; s < 1950+10 || s > 2010-10 {
		t.Errorf("duration %.1f s is within 10 s of a minute boundary (or outside 33 min)", s)
	}
	if got, want := math.Round(got.DurationSeconds/60)*60, 1980.0; got != want {
		t.Errorf("durationSeconds = %v, want %v", got, want)
	}
}

func TestEmbeddedRouterProperties(t *testing.T) {
	g := embedded(t)
	r := NewEmbeddedRouter()
	ctx := context.Background()
	// A deterministic spread of places: every 37th gazetteer entry.
	var ps []Place
	for i := 0; i < len(g.places); i += 37 {
		ps = append(ps, g.places[i])
	}
	for i := 0; i+1 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		ab, err1 := r.Route(ctx, a, b)
		ba, err2 := r.Route(ctx, b, a)
		if err1 != nil || err2 != nil {
			t.Fatalf("Route: %v %v", err1, err2)
		}
		if ab != ba {
			t.Errorf("%s <-> %s not symmetric: %+v vs %+v", a.Name, b.Name, ab, ba)
		}
		again, _ := r.Route(ctx, a, b)
		if again != ab {
			t.Errorf("%s -> %s not deterministic", a.Name, b.Name)
		}
		if gcm := DistanceMeters(a, b); gcm > 0 && (ab.DistanceMeters < gcm*1.1 || ab.DurationSeconds <= 0) {
			t.Errorf("%s -> %s: road %.0f m vs straight %.0f m, %.0f s", a.Name, b.Name, ab.DistanceMeters, gcm, ab.DurationSeconds)
		}
		if v := ab.DistanceMeters / ab.DurationSeconds * 3.6; v > 95 {
			t.Errorf("%s -> %s: average %.0f km/h is faster than the motorway band", a.Name, b.Name, v)
		}
	}
}

func TestEmbeddedRouterEdgeCases(t *testing.T) {
	r := NewEmbeddedRouter()
	if got, err := r.Route(context.Background(), glasgowAirport, glasgowAirport); err != nil || got != (Route{}) {
		t.Errorf("same place: %+v, %v; want zero route", got, err)
	}
	for _, bad := range []Place{{Lat: math.NaN()}, {Lat: 0, Lon: 181}, {Lat: -91}} {
		if _, err := r.Route(context.Background(), bad, glasgowAirport); !errors.Is(err, ErrNoMatch) {
			t.Errorf("Route from %+v = %v, want ErrNoMatch", bad, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Route(ctx, helensburghCentral, glasgowAirport); !errors.Is(err, ErrUnavailable) {
		t.Errorf("cancelled ctx: %v", err)
	}
}

func TestCrossesClyde(t *testing.T) {
	tests := []struct {
		a, b Place
		want bool
	}{
		{helensburghCentral, glasgowAirport, true},
		{helensburghCentral, Place{Lat: 55.94838, Lon: -4.76121}, true},  // Greenock
		{helensburghCentral, Place{Lat: 55.86515, Lon: -4.25763}, false}, // Glasgow, same bank
		{glasgowAirport, Place{Lat: 55.83173, Lon: -4.43254}, false},     // Paisley, same bank
		{Place{Lat: 55.8591, Lon: -4.2581}, glasgowAirport, false},       // east of the Clyde Tunnel
	}
	for _, tt := range tests {
		if got := crossesClyde(latLon{tt.a.Lat, tt.a.Lon}, latLon{tt.b.Lat, tt.b.Lon}); got != tt.want {
			t.Errorf("crossesClyde(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}

func TestDistanceMetersAndIsAirport(t *testing.T) {
	// Helensburgh Central to Glasgow Airport, straight: 23.75 km.
	if d := DistanceMeters(helensburghCentral, glasgowAirport); math.Abs(d-23752) > 5 {
		t.Errorf("DistanceMeters = %.1f, want ~23752", d)
	}
	if d := DistanceMeters(glasgowAirport, glasgowAirport); d != 0 {
		t.Errorf("DistanceMeters to itself = %v", d)
	}
	if !glasgowAirport.IsAirport() || helensburghCentral.IsAirport() {
		t.Error("IsAirport wrong")
	}
}

package geo

import (
	"context"
	"testing"
)

// benchQueries mix the forms the tools receive: named places, full
// addresses, postcodes, towns, codes, and junk that must be refused.
var benchQueries = []string{
	"Helensburgh Central Station",
	"Glasgow Airport",
	"Helensburgh Central Station, Helensburgh G84 7HL",
	"Glasgow Airport (GLA), Paisley PA3 2SW",
	"G84 7HL",
	"Dumbarton",
	"12 Sinclair Street, Helensburgh, G84 8TU",
	"Queen Elizabeth University Hospital, 1345 Govan Road, Glasgow G51 4TF",
	"GLA",
	"xxx",
	"Paris, France",
	"123 Main St",
}

func BenchmarkGeocode(b *testing.B) {
	g := embedded(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_, _ = g.Geocode(ctx, benchQueries[i%len(benchQueries)])
	}
}

// BenchmarkGeocodeResolved is the success path alone (errors allocate their
// message).
func BenchmarkGeocodeResolved(b *testing.B) {
	g := embedded(b)
	ctx := context.Background()
	qs := benchQueries[:9]
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := g.Geocode(ctx, qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGeocodeCoordinates is the form Relay sends: "lat,lng" pairs,
// at a town and at an airport (resolved without the gazetteer's search).
func BenchmarkGeocodeCoordinates(b *testing.B) {
	g := embedded(b)
	ctx := context.Background()
	qs := []string{"56.0036,-4.7346", "55.8719,-4.43306", " 55.8650 , -4.4330 ", "51.5074,-0.1278"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := g.Geocode(ctx, qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmbeddedRoute(b *testing.B) {
	r := NewEmbeddedRouter()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = r.Route(ctx, helensburghCentral, glasgowAirport)
	}
}

// BenchmarkBuildGazetteer is the one-off start-up cost.
func BenchmarkBuildGazetteer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildEmbedded(); err != nil {
			b.Fatal(err)
		}
	}
}

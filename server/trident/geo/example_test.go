package geo_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// The spec's reference trip, quoted the way the server quotes it.
func Example() {
	ctx := context.Background()
	g, err := geo.NewEmbeddedGeocoder()
	if err != nil {
		panic(err)
	}
	from, _ := g.Geocode(ctx, "Helensburgh Central Station")
	to, _ := g.Geocode(ctx, "Glasgow Airport (GLA), Paisley PA3 2SW")
	r, _ := geo.NewEmbeddedRouter().Route(ctx, from, to)
	fmt.Printf("%s -> %s (airport: %v)\n", from.Name, to.Name, to.IsAirport())
	fmt.Printf("%.0f miles, %.0f seconds\n", math.Round(r.DistanceMeters/1609.344), math.Round(r.DurationSeconds/60)*60)

	_, err = g.Geocode(ctx, "123 Main St")
	fmt.Println(err)
	// Output:
	// Helensburgh Central Station -> Glasgow Airport (airport: true)
	// 22 miles, 1980 seconds
	// geo: no match: "123 Main St": placeholder, not an address
}

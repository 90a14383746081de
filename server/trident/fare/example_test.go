package fare_test

import (
	"fmt"
	"os"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
)

// The seed's estimate_fare sample: an executive car from Helensburgh Central
// Station to Glasgow Airport by day.
func ExampleTariff_Quote() {
	data, err := os.ReadFile("../../../contracts/trident/tariff/argyll-2024-04.json")
	if err != nil {
		panic(err)
	}
	t, err := fare.Parse(data)
	if err != nil {
		panic(err)
	}
	t = t.WithClock(func() time.Time { return time.Date(2024, 6, 12, 10, 0, 0, 0, time.UTC) })

	q, err := t.Quote(fare.Trip{
		Vehicle:         "executive",
		DistanceMiles:   t.RoundDistanceMiles(35_300),  // metres, from the router
		DurationSeconds: t.RoundDurationSeconds(1_962), // seconds, from the router
		Pickup:          fare.Endpoint{Lat: 56.00416, Lon: -4.73253},
		Dropoff:         fare.Endpoint{Lat: 55.87190, Lon: -4.43306, Airport: true},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(fare.FormatGBP(q.FarePence), q.Band, q.AirportSurchargeGBP, q.TariffVersion)
	fmt.Println(q.AppliedRules)
	// Output:
	// £62.40 day 10 argyll-2024-04
	// [Executive rate applied Airport pickup/drop fee +£10]
}

package fare_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
)

// FuzzQuote checks that no trip panics and that every accepted trip costs a
// non-negative whole number of pence, reported consistently in pounds.
func FuzzQuote(f *testing.F) {
	tariff := loadTariff(f)
	f.Add("executive", 22.0, 1980.0, int64(0), false, 56.00416, -4.73253, false, 55.8719, -4.43306, true, false, 0)
	f.Add("mpv", 22.0, 1980.0, int64(0), false, 56.00416, -4.73253, false, 55.8719, -4.43306, true, true, 6)
	f.Add("mpv", 5.0, 600.0, int64(1735164000), true, 56.0147, -4.7795, false, 56.0033, -4.5833, false, true, 7)
	f.Add("", 0.0, 0.0, int64(-62135596800), false, 0.0, 0.0, false, 0.0, 0.0, false, false, 0)
	f.Add("saloon", 1000.0, 1e9, int64(1<<40), true, 90.0, 180.0, true, -90.0, -180.0, true, true, 4)
	f.Add("bus", math.NaN(), math.Inf(1), int64(math.MinInt64), true, math.NaN(), math.Inf(-1), false, 1e308, -1e308, false, true, -1)
	f.Fuzz(func(t *testing.T, vehicle string, miles, seconds float64, departUnix int64, prebooked bool,
		plat, plon float64, pair bool, dlat, dlon float64, dair, mg bool, passengers int) {
		var depart time.Time
		if departUnix != 0 {
			depart = time.Unix(departUnix, 0)
		}
		q, err := tariff.Quote(fare.Trip{
			Vehicle: vehicle, DistanceMiles: miles, DurationSeconds: seconds, Depart: depart, Prebooked: prebooked,
			Pickup:       fare.Endpoint{Lat: plat, Lon: plon, Airport: pair},
			Dropoff:      fare.Endpoint{Lat: dlat, Lon: dlon, Airport: dair},
			MeetAndGreet: mg, Passengers: passengers,
		})
		if err != nil {
			if !errors.Is(err, fare.ErrUnknownVehicle) && !errors.Is(err, fare.ErrInvalidTrip) && !errors.Is(err, fare.ErrCapacity) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		if q.FarePence < 0 {
			t.Fatalf("negative fare %d", q.FarePence)
		}
		if q.FareGBP != float64(q.FarePence)/100 || math.Round(q.FareGBP*100) != float64(q.FarePence) {
			t.Fatalf("FareGBP %v does not match %d pence", q.FareGBP, q.FarePence)
		}
		if q.Band != fare.Day && q.Band != fare.Night && q.Band != fare.Holiday {
			t.Fatalf("band %q", q.Band)
		}
		if q.TariffVersion == "" {
			t.Fatal("no tariff version")
		}
	})
}

func BenchmarkQuote(b *testing.B) {
	tariff := loadTariff(b)
	trip := fare.Trip{
		Vehicle: "mpv", DistanceMiles: 22, DurationSeconds: 1980, Passengers: 6, MeetAndGreet: true,
		Pickup: helensburgh, Dropoff: glasgowAirport, Depart: time.Date(2024, 12, 24, 21, 0, 0, 0, time.UTC),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tariff.Quote(trip); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	data := mustRead(b, tariffPath)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fare.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

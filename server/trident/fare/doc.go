// Package fare prices a taxi trip under the operator's fixed-price tariff.
//
// The tariff is data, not code: contracts/trident/tariff/argyll-2024-04.json holds the
// council's meter figures (Argyll & Bute, Tariffs 1-3), the clock and calendar
// windows that pick a band, the operator's per-vehicle rate mapping and its
// surcharges, and the brand and area that get_service_info reports. This
// package holds no fare constants; it reads the file with [Parse], and
// contracts/trident/tariff/README.md explains every figure and where the operator's
// fixed prices depart from the meter.
//
// A quote is
//
//	round_up_10p( meter(band', miles) × vehicle multiplier ) + airport fee + meet & greet + pre-booking fee
//
// where band' is the band of the departure time in Europe/London, moved one
// band up for five or more passengers in a large vehicle, and meter() is the
// council's flag plus its per-unit charge counted pro rata. Money is computed in
// exact integer fractions of a penny, so a quote never suffers float error and
// always comes out in whole pence.
//
// Typical use:
//
//	t, err := fare.Parse(data) // data: the tariff JSON, e.g. embedded from contracts/
//	if err != nil { ... }
//	q, err := t.Quote(fare.Trip{
//		Vehicle:         "executive",
//		DistanceMiles:   t.RoundDistanceMiles(routeMeters),
//		DurationSeconds: t.RoundDurationSeconds(routeSeconds),
//		Dropoff:         fare.Endpoint{Lat: 55.8719, Lon: -4.4331, Airport: true},
//	})
//	// q.FareGBP == 62.4, q.Band == fare.Day, q.AppliedRules == ["Executive rate applied", "Airport pickup/drop fee +£10"]
//
// A zero [Trip.Depart] means "now", read from the tariff's clock; tests and the
// sample replay pin it with [Tariff.WithClock].
package fare

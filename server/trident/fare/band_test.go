package fare_test

import (
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
)

var london = func() *time.Location {
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		panic(err)
	}
	return loc
}()

func local(y int, m time.Month, d, hh, mm, ss int) time.Time {
	return time.Date(y, m, d, hh, mm, ss, 0, london)
}

// TestBandAt walks, through the band quotes report, every boundary of the council's notice, in local time.
func TestBandAt(t *testing.T) {
	tariff := loadTariff(t)
	tests := []struct {
		name string
		at   time.Time
		want fare.Band
	}{
		// The daily windows.
		{"07:00 day starts", local(2024, 6, 12, 7, 0, 0), fare.Day},
		{"06:59:59 still night", local(2024, 6, 12, 6, 59, 59), fare.Night},
		{"06:59", local(2024, 6, 12, 6, 59, 0), fare.Night},
		{"21:59:59 still day", local(2024, 6, 12, 21, 59, 59), fare.Day},
		{"22:00 night starts", local(2024, 6, 12, 22, 0, 0), fare.Night},
		{"midnight", local(2024, 6, 13, 0, 0, 0), fare.Night},
		{"noon", local(2024, 6, 12, 12, 0, 0), fare.Day},
		{"winter day", local(2024, 1, 15, 9, 0, 0), fare.Day},

		// Christmas Eve: day until 18:00, T2 until 22:00, then T3.
		{"24 Dec 17:59", local(2024, 12, 24, 17, 59, 59), fare.Day},
		{"24 Dec 18:00", local(2024, 12, 24, 18, 0, 0), fare.Night},
		{"24 Dec 21:59", local(2024, 12, 24, 21, 59, 0), fare.Night},
		{"24 Dec 22:00", local(2024, 12, 24, 22, 0, 0), fare.Holiday},
		{"24 Dec 06:59 (night before)", local(2024, 12, 24, 6, 59, 0), fare.Night},
		{"25 Dec noon", local(2024, 12, 25, 12, 0, 0), fare.Holiday},
		{"26 Dec 23:00", local(2024, 12, 26, 23, 0, 0), fare.Holiday},
		{"27 Dec 06:59", local(2024, 12, 27, 6, 59, 59), fare.Holiday},
		{"27 Dec 07:00", local(2024, 12, 27, 7, 0, 0), fare.Day},
		{"27 Dec 22:00", local(2024, 12, 27, 22, 0, 0), fare.Night},

		// Hogmanay and New Year.
		{"31 Dec 17:59", local(2024, 12, 31, 17, 59, 0), fare.Day},
		{"31 Dec 18:00", local(2024, 12, 31, 18, 0, 0), fare.Night},
		{"31 Dec 21:59", local(2024, 12, 31, 21, 59, 59), fare.Night},
		{"31 Dec 22:00", local(2024, 12, 31, 22, 0, 0), fare.Holiday},
		{"1 Jan 00:00", local(2025, 1, 1, 0, 0, 0), fare.Holiday},
		{"1 Jan noon", local(2025, 1, 1, 12, 0, 0), fare.Holiday},
		{"2 Jan 06:59", local(2025, 1, 2, 6, 59, 59), fare.Holiday},
		{"2 Jan 07:00", local(2025, 1, 2, 7, 0, 0), fare.Night},
		{"2 Jan noon", local(2025, 1, 2, 12, 0, 0), fare.Night},
		{"2 Jan 23:00", local(2025, 1, 2, 23, 0, 0), fare.Night},
		{"3 Jan 06:59", local(2025, 1, 3, 6, 59, 0), fare.Night},
		{"3 Jan 07:00", local(2025, 1, 3, 7, 0, 0), fare.Day},
		{"30 Dec noon", local(2024, 12, 30, 12, 0, 0), fare.Day},
		{"23 Dec 18:00 is an ordinary evening", local(2024, 12, 23, 18, 0, 0), fare.Day},

		// Daylight saving, given as UTC instants. 2025: BST from 01:00 UTC
		// 30 March to 01:00 UTC 26 October.
		{"21:30 UTC the day before BST = 21:30 GMT", time.Date(2025, 3, 29, 21, 30, 0, 0, time.UTC), fare.Day},
		{"21:30 UTC on the first BST day = 22:30 BST", time.Date(2025, 3, 30, 21, 30, 0, 0, time.UTC), fare.Night},
		{"06:30 UTC before the change = 06:30 GMT", time.Date(2025, 3, 29, 6, 30, 0, 0, time.UTC), fare.Night},
		{"06:30 UTC after the change = 07:30 BST", time.Date(2025, 3, 30, 6, 30, 0, 0, time.UTC), fare.Day},
		{"21:30 UTC in summer = 22:30 BST", time.Date(2025, 7, 1, 21, 30, 0, 0, time.UTC), fare.Night},
		{"21:30 UTC on the last BST evening = 22:30 BST", time.Date(2025, 10, 25, 21, 30, 0, 0, time.UTC), fare.Night},
		{"21:30 UTC after BST ends = 21:30 GMT", time.Date(2025, 10, 26, 21, 30, 0, 0, time.UTC), fare.Day},
		{"06:30 UTC on the day BST ends = 06:30 GMT", time.Date(2025, 10, 26, 6, 30, 0, 0, time.UTC), fare.Night},
		{"the same instant in another zone", time.Date(2025, 7, 1, 23, 30, 0, 0, time.FixedZone("CEST", 2*3600)), fare.Night},
		// A New Year edge in UTC: 31 Dec 22:00 GMT is 22:00 UTC.
		{"31 Dec 21:59 UTC", time.Date(2024, 12, 31, 21, 59, 0, 0, time.UTC), fare.Night},
		{"31 Dec 22:00 UTC", time.Date(2024, 12, 31, 22, 0, 0, 0, time.UTC), fare.Holiday},
		// A leap day is an ordinary day.
		{"29 Feb 23:00", local(2024, 2, 29, 23, 0, 0), fare.Night},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The band a quote reports is the band in force at Depart.
			q, err := tariff.Quote(fare.Trip{Vehicle: "saloon", DistanceMiles: 1, DurationSeconds: 120, Depart: tt.at})
			if err != nil {
				t.Fatal(err)
			}
			if q.Band != tt.want {
				t.Errorf("band at %s = %s, want %s", tt.at.In(london).Format(time.RFC3339), q.Band, tt.want)
			}
		})
	}
}

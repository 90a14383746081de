package conformance

import (
	"fmt"
	"slices"
	"time"
)

// Trip draws the arguments of a quote for the fare oracle's property cases:
// two different places the oracle knows, a vehicle from the tool's enum, a
// passenger count the vehicle seats (when the tool takes one), meet & greet
// asked for, declined or left out, and most often a departure drawn
// uniformly across the given year, written in UTC or with another offset.
// Like [Generator.Valid], it is reproducible from the seed.
func (g *Generator) Trip(in *Schema, t *Tariff, places []string, year int) map[string]any {
	args := map[string]any{}
	i := g.rng.IntN(len(places))
	j := (i + 1 + g.rng.IntN(len(places)-1)) % len(places)
	args["pickup"], args["dropoff"] = places[i], places[j]
	vehicle := t.DefaultVehicle
	if vt := in.Properties["vehicleType"]; vt != nil && len(vt.Enum) > 0 {
		vehicle, _ = vt.Enum[g.rng.IntN(len(vt.Enum))].(string)
		args["vehicleType"] = vehicle
	}
	if p := in.Properties["passengers"]; p != nil && g.rng.IntN(3) > 0 {
		most := t.Vehicles[vehicle].Capacity
		if p.Maximum != nil {
			most = min(most, int(*p.Maximum))
		}
		args["passengers"] = 1 + g.rng.IntN(max(most, 1))
	}
	if in.Properties["meetAndGreet"] != nil {
		switch g.rng.IntN(3) {
		case 0:
			args["meetAndGreet"] = true
		case 1:
			args["meetAndGreet"] = false
		}
	}
	if in.Properties["departAt"] != nil && g.rng.IntN(8) > 0 {
		start := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
		end := time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC)
		at := start.Add(time.Duration(g.rng.Int64N(int64(end.Sub(start)/time.Second))) * time.Second)
		args["departAt"] = g.formatInstant(at)
	}
	return args
}

// offsets are the zones departures are written in besides UTC.
var offsets = []int{60, -300, 330, 540, -210, 0, 765}

func (g *Generator) formatInstant(at time.Time) string {
	switch g.rng.IntN(4) {
	case 0:
		return at.UTC().Format("2006-01-02T15:04:05Z")
	case 1:
		return at.UTC().Add(time.Duration(g.rng.IntN(1000)) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	default:
		off := offsets[g.rng.IntN(len(offsets))]
		return at.In(time.FixedZone(fmt.Sprintf("UTC%+d", off), off*60)).Format(time.RFC3339)
	}
}

// lastSunday returns the last Sunday of month in year: the day the UK's
// clocks change in March and October.
func lastSunday(year int, month time.Month) time.Time {
	d := time.Date(year, month+1, 0, 12, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// instantIn returns the first whole hour from start whose departure the
// tariff prices in band, or false when none falls within two years.
func instantIn(t *Tariff, band string, start time.Time) (time.Time, bool) {
	for at := start.Truncate(time.Hour); at.Before(start.AddDate(2, 0, 0)); at = at.Add(time.Hour) {
		if t.BandAt(at) == band {
			return at, true
		}
	}
	return time.Time{}, false
}

// bandBoundaries lists, for the band specs, both sides of every boundary of
// the tariff's windows in year: each daily window's opening and closing on a
// winter day, a summer day and the two days the clocks change, the clock
// change itself, and each dated window's opening and closing.
func bandBoundaries(t *Tariff, year int) []Boundary {
	spring, autumn := lastSunday(year, time.March), lastSunday(year, time.October)
	dates := []time.Time{
		time.Date(year, time.January, 20, 0, 0, 0, 0, time.UTC),
		time.Date(year, time.July, 15, 0, 0, 0, 0, time.UTC),
		spring, autumn,
	}
	bs := t.Boundaries(dates, year)
	for _, d := range []time.Time{spring, autumn} {
		// In the UK the clocks change at 01:00 UTC.
		bs = append(bs, Boundary{At: time.Date(d.Year(), d.Month(), d.Day(), 1, 0, 0, 0, time.UTC),
			What: d.Format("2006-01-02") + " 01:00 UTC, the clocks change"})
	}
	slices.SortStableFunc(bs, func(a, b Boundary) int { return a.At.Compare(b.At) })
	return slices.CompactFunc(bs, func(a, b Boundary) bool { return a.At.Equal(b.At) })
}

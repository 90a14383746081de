package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Unit tests of the fare oracle against the figures the tariff's README
// works out by hand (contracts/trident/tariff/README.md §2, §4, §5): if the oracle
// disagrees with them, it is the oracle that is wrong.

func mustTariff(t *testing.T) *Tariff {
	t.Helper()
	tf, err := LoadTariff()
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

func TestOracleGivesTheSeedFigures(t *testing.T) {
	tf := mustTariff(t)
	exec, err := tf.Price(Trip{Vehicle: "executive", Airport: true}, 22, "day")
	if err != nil {
		t.Fatal(err)
	}
	if exec.FarePence != 6240 || exec.AirportPence != 1000 {
		t.Errorf("executive to the airport: %d (airport %d), want 6240 (1000)\n%s", exec.FarePence, exec.AirportPence, exec.Working)
	}
	if d := cmp.Diff([]string{"Executive rate applied", "Airport pickup/drop fee +£10"}, exec.Rules); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	mpv, err := tf.Price(Trip{Vehicle: "mpv", Passengers: 6, MeetAndGreet: true, Airport: true}, 22, "day")
	if err != nil {
		t.Fatal(err)
	}
	if mpv.FarePence != 11800 {
		t.Errorf("8-seater, 6 passengers, meet & greet: %d, want 11800\n%s", mpv.FarePence, mpv.Working)
	}
}

func TestOracleGivesTheWorkedTable(t *testing.T) {
	tf := mustTariff(t)
	rows := []struct {
		vehicle    string
		passengers int
		want       [3]int64 // day, night, holiday
	}{
		{"saloon", 0, [3]int64{4770, 5600, 6970}},
		{"estate", 0, [3]int64{4770, 5600, 6970}},
		{"wav", 0, [3]int64{4770, 5600, 6970}},
		{"executive", 0, [3]int64{5240, 6160, 7670}},
		{"5seater", 0, [3]int64{5300, 6220, 7740}},
		{"mpv", 4, [3]int64{7060, 8300, 10320}},
		{"mpv", 5, [3]int64{8300, 10320, 10480}},
	}
	for _, r := range rows {
		for i, band := range []string{"day", "night", "holiday"} {
			e, err := tf.Price(Trip{Vehicle: r.vehicle, Passengers: r.passengers}, 22, band)
			if err != nil {
				t.Fatal(err)
			}
			if e.FarePence != r.want[i] {
				t.Errorf("%s ×%d %s: %s, want %s\n%s", r.vehicle, r.passengers, band, pounds(e.FarePence), pounds(r.want[i]), e.Working)
			}
		}
	}
	short, _ := tf.Price(Trip{Vehicle: "saloon"}, 0, "day")
	if short.FarePence != 320 {
		t.Errorf("the shortest hire: %s, want £3.20", pounds(short.FarePence))
	}
}

func TestOracleBandsFollowTheWallClock(t *testing.T) {
	tf := mustTariff(t)
	tests := []struct{ at, want string }{
		{"2026-07-01T21:30:00Z", "night"}, // 22:30 BST
		{"2026-07-01T20:59:59Z", "day"},   // 21:59:59 BST
		{"2027-01-20T21:59:59Z", "day"},   // GMT
		{"2027-01-20T22:00:00Z", "night"},
		{"2027-01-20T06:59:59Z", "night"},
		{"2027-01-20T07:00:00Z", "day"},
		{"2026-12-24T17:59:59Z", "day"},
		{"2026-12-24T18:00:00Z", "night"},
		{"2026-12-24T22:00:00Z", "holiday"},
		{"2026-12-25T12:00:00Z", "holiday"},
		{"2026-12-27T06:59:59Z", "holiday"},
		{"2026-12-27T07:00:00Z", "day"},
		{"2026-12-31T18:00:00Z", "night"},
		{"2027-01-01T12:00:00Z", "holiday"},
		{"2027-01-02T06:59:00Z", "holiday"},
		{"2027-01-02T07:00:00Z", "night"},
		{"2027-01-02T12:00:00Z", "night"},
		{"2027-01-03T07:00:00Z", "day"},
		{"2027-03-28T05:59:59Z", "night"}, // the spring change: 06:59:59 BST
		{"2027-03-28T06:00:00Z", "day"},   // 07:00 BST
		{"2026-10-25T06:59:59Z", "night"}, // after the autumn change: GMT again
		{"2026-07-01T23:30:00+01:00", "night"},
		{"2026-07-01T09:00:00-05:00", "day"}, // 15:00 BST
	}
	for _, tt := range tests {
		at, err := time.Parse(time.RFC3339, tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := tf.BandAt(at); got != tt.want {
			t.Errorf("BandAt(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
}

func TestOracleKnowsThePlaces(t *testing.T) {
	tf := mustTariff(t)
	tests := []struct {
		a, b           string
		airport, local Kind
	}{
		{"Helensburgh Central Station", "Balloch", No, Yes},
		{"Helensburgh Central Station", "Glasgow Airport", Yes, No},
		{"Glasgow Airport", "Helensburgh Central Station", Yes, No},
		{"Rhu", "Arrochar", No, No},
		{"Helensburgh", "Somewhere Unknown", Unknown, Unknown},
		{"Edinburgh Airport", "Somewhere Unknown", Yes, No},
	}
	for _, tt := range tests {
		ap, lo := KnownPlaces.TripKinds(tf, tt.a, tt.b)
		if ap != tt.airport || lo != tt.local {
			t.Errorf("%s→%s: airport %v local %v, want %v %v", tt.a, tt.b, ap, lo, tt.airport, tt.local)
		}
	}
}

func TestOracleJudgesAndExplains(t *testing.T) {
	tf := mustTariff(t)
	o := &Oracle{Tariff: tf, Places: KnownPlaces}
	call := Call{Tool: "estimate_fare", Args: map[string]any{
		"pickup": "Helensburgh Central Station", "dropoff": "Balloch", "vehicleType": "mpv", "departAt": "2026-07-01T21:30:00Z"}}
	good := Answer{FareGBP: 43.9, DistanceMiles: 7, DurationSeconds: 840, Rate: "night", TariffVersion: tf.Version,
		AirportSurchargeGBP: new(float64), HasRules: true,
		AppliedRules: []string{"Night tariff (T2)", "8-seater local hire x2", "Pre-booking fee +£0.40"}}
	if v := o.Judge(call, good); v.Skip != "" || len(v.Problems) != 0 {
		t.Fatalf("a right quote was judged wrong: %+v", v)
	}
	utc := good
	utc.Rate, utc.FareGBP = "day", 37.0
	if v := o.Judge(call, utc); len(v.Problems) == 0 {
		t.Error("a day quote for 22:30 BST passed")
	}
	other := good
	other.TariffVersion = "argyll-2030-01"
	if v := o.Judge(call, other); v.Skip == "" {
		t.Error("a quote from another tariff version was judged, not skipped")
	}
	// Unknown places: either kind is accepted, but the band still is not.
	unknown := Call{Tool: "estimate_fare", Args: map[string]any{"pickup": "Qz Unknown", "dropoff": "Balloch", "vehicleType": "mpv", "departAt": "2026-07-01T21:30:00Z"}}
	if v := o.Judge(unknown, good); len(v.Problems) != 0 {
		t.Errorf("a local reading of an unknown place was refused: %v", v.Problems)
	}
	if v := o.Judge(unknown, utc); len(v.Problems) == 0 {
		t.Error("an unknown place excused a wrong band")
	}
}

func TestBandBoundariesCoverEveryWindow(t *testing.T) {
	tf := mustTariff(t)
	if d := lastSunday(2026, time.March); d.Day() != 29 {
		t.Errorf("last Sunday of March 2026: %v", d)
	}
	if d := lastSunday(2026, time.October); d.Day() != 25 {
		t.Errorf("last Sunday of October 2026: %v", d)
	}
	bs := bandBoundaries(tf, 2027)
	seen := map[string]bool{}
	for i, b := range bs {
		if i > 0 && !bs[i-1].At.Before(b.At) {
			t.Errorf("boundaries not strictly ordered at %s", b.What)
		}
		// At each boundary the band changes, or the clocks do.
		if before, at := tf.BandAt(b.At.Add(-time.Second)), tf.BandAt(b.At); before == at && !strings.Contains(b.What, "clocks change") {
			t.Errorf("%s (%s): %s on both sides", b.What, b.At.Format(time.RFC3339), at)
		}
		seen[b.At.In(tf.Zone).Format("01-02T15:04")] = true
	}
	for _, want := range []string{"12-24T18:00", "12-24T22:00", "12-27T07:00", "12-31T18:00", "12-31T22:00", "01-02T07:00", "01-03T07:00",
		"03-28T07:00", "03-28T22:00", "10-31T07:00", "10-31T22:00", "07-15T07:00", "01-20T22:00"} {
		if !seen[want] {
			t.Errorf("no boundary at %s local", want)
		}
	}
}

func TestTripGeneratorIsValidAndReproducible(t *testing.T) {
	tf := mustTariff(t)
	c, err := LoadContracts()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"estimate_fare", "start_booking"} {
		in := c.Tools[tool].Input
		a, b := NewGenerator(7, tool), NewGenerator(7, tool)
		for i := 0; i < 200; i++ {
			args := a.Trip(in, tf, KnownPlaces.Names(), 2027)
			if d := cmp.Diff(args, b.Trip(in, tf, KnownPlaces.Names(), 2027)); d != "" {
				t.Fatalf("same seed, different trips:\n%s", d)
			}
			if err := Validate(c.Tools[tool].InputSchema, mustMarshal(t, args)); err != nil {
				t.Fatalf("%s: generated trip %v is invalid: %v", tool, args, err)
			}
			if args["pickup"] == args["dropoff"] {
				t.Fatalf("a trip from %v to itself", args["pickup"])
			}
			if p, ok := args["passengers"].(int); ok && p > tf.Vehicles[args["vehicleType"].(string)].Capacity {
				t.Fatalf("%d passengers in a %v", p, args["vehicleType"])
			}
		}
	}
}

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"strings"
	"time"
)

// The fare oracle: the suite's own reading of the contract's tariff file
// (contracts/trident/tariff, described in its README), written without looking at
// how any server prices. Given what a server says of a trip's distance and
// the call's arguments, it says what the tariff makes of them: the fare, the
// band reported as `rate`, the airport fee and the `appliedRules`. It never
// routes: distance comes from the server's own answer, so the oracle holds
// whatever distance engine a server uses.

// Tariff is the part of the tariff file the oracle prices with.
type Tariff struct {
	Version string
	Brand   string
	Area    string
	Zone    *time.Location
	// Bands are in the file's order, lowest first; a large group moves one up.
	Bands []TariffBand

	daily   []window
	special []window

	LargeMinPassengers int
	LargeTopExtraPence int64
	LargeTopExtraRule  string

	StepPence      int64
	DefaultVehicle string
	Vehicles       map[string]TariffVehicle
	VehicleOrder   []string

	PreBooking   Surcharge
	Airport      Surcharge
	MeetAndGreet Surcharge
	// MeetAndGreetNeedsAirport: asked for on a trip with no airport end,
	// meet & greet is ignored and not charged.
	MeetAndGreetNeedsAirport bool
	Local                    LocalHire
}

// TariffBand is one tariff band and its meter.
type TariffBand struct {
	ID, Code, Label, Rule, GroupRule string
	FlagPence, FlagYards             int64
	UnitPence, UnitYards             int64
}

// TariffVehicle is one vehicle class of the tariff.
type TariffVehicle struct {
	ID         string
	Capacity   int
	Multiplier *big.Rat
	Rule       string
	Large      bool
	LocalHire  bool
	Listed     bool
	Note       string
}

// Surcharge is a fixed amount and the rule that names it.
type Surcharge struct {
	Pence int64
	Rule  string
}

// LocalHire is the 8-seater local-hire rule: its multiplier replaces the
// vehicle's when both ends lie within RadiusMiles of the centre.
type LocalHire struct {
	Multiplier  *big.Rat
	Rule        string
	Lat, Lon    float64
	RadiusMiles float64
}

// window is a half-open span [from, to) of a day (daily) or of a year
// (special), in minutes, that selects a band. to < from wraps.
type window struct {
	from, to int
	band     string
	note     string
}

// The tariff file as written. Unknown fields are refused: a tariff that
// says something the oracle does not model must not be judged as if it did not.
type tariffFile struct {
	Schema   string `json:"$schema"`
	Version  string `json:"version"`
	Operator struct {
		Brand string `json:"brand"`
		Area  string `json:"area"`
	} `json:"operator"`
	Source   json.RawMessage `json:"source"` // recorded, not priced (tariff README §4)
	TimeZone string          `json:"timeZone"`
	Bands    []struct {
		ID        string `json:"id"`
		Code      string `json:"code"`
		Label     string `json:"label"`
		Rule      string `json:"rule"`
		GroupRule string `json:"groupRule"`
		Meter     struct {
			FlagPence int64 `json:"flagPence"`
			FlagYards int64 `json:"flagYards"`
			UnitPence int64 `json:"unitPence"`
			UnitYards int64 `json:"unitYards"`
		} `json:"meter"`
	} `json:"bands"`
	Schedule struct {
		Daily   []fileWindow `json:"daily"`
		Special []fileWindow `json:"special"`
	} `json:"schedule"`
	LargeVehicleGroups struct {
		MinPassengers     int    `json:"minPassengers"`
		TopBandExtraPence int64  `json:"topBandExtraPence"`
		TopBandExtraRule  string `json:"topBandExtraRule"`
	} `json:"largeVehicleGroups"`
	FixedPrice struct {
		Distance string `json:"distance"`
		Rounding struct {
			StepPence int64  `json:"stepPence"`
			Mode      string `json:"mode"`
		} `json:"rounding"`
	} `json:"fixedPrice"`
	Rounding struct {
		DistanceMiles   string `json:"distanceMiles"`
		DurationMinutes string `json:"durationMinutes"`
	} `json:"rounding"`
	Limits         json.RawMessage `json:"limits"`
	DefaultVehicle string          `json:"defaultVehicle"`
	Vehicles       []struct {
		ID              string `json:"id"`
		Capacity        int    `json:"capacity"`
		MeterMultiplier string `json:"meterMultiplier"`
		Rule            string `json:"rule"`
		Large           bool   `json:"large"`
		LocalHire       bool   `json:"localHire"`
		Listed          bool   `json:"listed"`
		Note            string `json:"note"`
	} `json:"vehicles"`
	Surcharges struct {
		PreBooking   fileSurcharge `json:"preBooking"`
		Airport      fileSurcharge `json:"airport"`
		MeetAndGreet struct {
			fileSurcharge
			RequiresAirport bool `json:"requiresAirport"`
		} `json:"meetAndGreet"`
		EightSeaterLocal struct {
			Multiplier string `json:"multiplier"`
			Rule       string `json:"rule"`
			Centre     struct {
				Lat  float64 `json:"lat"`
				Lon  float64 `json:"lon"`
				Name string  `json:"name"`
			} `json:"centre"`
			RadiusMiles float64 `json:"radiusMiles"`
		} `json:"eightSeaterLocal"`
	} `json:"surcharges"`
}

type fileWindow struct {
	From string `json:"from"`
	To   string `json:"to"`
	Band string `json:"band"`
	Note string `json:"note"`
}

type fileSurcharge struct {
	Pence int64  `json:"pence"`
	Rule  string `json:"rule"`
}

// ParseTariff reads a tariff file. It refuses what the oracle does not
// model (another distance or rounding rule, unknown fields) rather than
// price it wrongly.
func ParseTariff(b []byte) (*Tariff, error) {
	var f tariffFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("tariff: %w (the fare oracle models every field it reads; teach conformance/oracle.go about new ones)", err)
	}
	if f.FixedPrice.Distance != "pro-rata" || f.FixedPrice.Rounding.Mode != "up" || f.FixedPrice.Rounding.StepPence <= 0 {
		return nil, fmt.Errorf("tariff %s: the oracle models pro-rata distance rounded up to a step, not %q/%q/%d",
			f.Version, f.FixedPrice.Distance, f.FixedPrice.Rounding.Mode, f.FixedPrice.Rounding.StepPence)
	}
	if f.Rounding.DistanceMiles != "nearest" || f.Rounding.DurationMinutes != "nearest" {
		return nil, fmt.Errorf("tariff %s: the oracle models distance and duration rounded to the nearest unit, not %q/%q",
			f.Version, f.Rounding.DistanceMiles, f.Rounding.DurationMinutes)
	}
	zone, err := time.LoadLocation(f.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("tariff %s: time zone %q: %w", f.Version, f.TimeZone, err)
	}
	t := &Tariff{
		Version: f.Version, Brand: f.Operator.Brand, Area: f.Operator.Area, Zone: zone,
		LargeMinPassengers:       f.LargeVehicleGroups.MinPassengers,
		LargeTopExtraPence:       f.LargeVehicleGroups.TopBandExtraPence,
		LargeTopExtraRule:        f.LargeVehicleGroups.TopBandExtraRule,
		StepPence:                f.FixedPrice.Rounding.StepPence,
		DefaultVehicle:           f.DefaultVehicle,
		Vehicles:                 map[string]TariffVehicle{},
		PreBooking:               Surcharge(f.Surcharges.PreBooking),
		Airport:                  Surcharge(f.Surcharges.Airport),
		MeetAndGreet:             Surcharge(f.Surcharges.MeetAndGreet.fileSurcharge),
		MeetAndGreetNeedsAirport: f.Surcharges.MeetAndGreet.RequiresAirport,
	}
	bands := map[string]bool{}
	for _, b := range f.Bands {
		m := b.Meter
		if m.UnitYards <= 0 {
			return nil, fmt.Errorf("tariff %s: band %s has no unit yards", f.Version, b.ID)
		}
		t.Bands = append(t.Bands, TariffBand{ID: b.ID, Code: b.Code, Label: b.Label, Rule: b.Rule, GroupRule: b.GroupRule,
			FlagPence: m.FlagPence, FlagYards: m.FlagYards, UnitPence: m.UnitPence, UnitYards: m.UnitYards})
		bands[b.ID] = true
	}
	parse := func(w fileWindow, daily bool) (window, error) {
		from, err1 := minuteOf(w.From, daily)
		to, err2 := minuteOf(w.To, daily)
		if err := firstErr(err1, err2); err != nil {
			return window{}, fmt.Errorf("tariff %s: window %s–%s: %w", f.Version, w.From, w.To, err)
		}
		if !bands[w.Band] {
			return window{}, fmt.Errorf("tariff %s: window %s–%s names unknown band %q", f.Version, w.From, w.To, w.Band)
		}
		return window{from: from, to: to, band: w.Band, note: w.Note}, nil
	}
	for _, w := range f.Schedule.Daily {
		x, err := parse(w, true)
		if err != nil {
			return nil, err
		}
		t.daily = append(t.daily, x)
	}
	for _, w := range f.Schedule.Special {
		x, err := parse(w, false)
		if err != nil {
			return nil, err
		}
		t.special = append(t.special, x)
	}
	for _, v := range f.Vehicles {
		r, ok := new(big.Rat).SetString(v.MeterMultiplier)
		if !ok {
			return nil, fmt.Errorf("tariff %s: vehicle %s: multiplier %q is not a decimal or a fraction", f.Version, v.ID, v.MeterMultiplier)
		}
		t.Vehicles[v.ID] = TariffVehicle{ID: v.ID, Capacity: v.Capacity, Multiplier: r, Rule: v.Rule,
			Large: v.Large, LocalHire: v.LocalHire, Listed: v.Listed, Note: v.Note}
		t.VehicleOrder = append(t.VehicleOrder, v.ID)
	}
	if _, ok := t.Vehicles[t.DefaultVehicle]; !ok {
		return nil, fmt.Errorf("tariff %s: default vehicle %q is not listed", f.Version, t.DefaultVehicle)
	}
	l := f.Surcharges.EightSeaterLocal
	lm, ok := new(big.Rat).SetString(l.Multiplier)
	if !ok {
		return nil, fmt.Errorf("tariff %s: local-hire multiplier %q", f.Version, l.Multiplier)
	}
	t.Local = LocalHire{Multiplier: lm, Rule: l.Rule, Lat: l.Centre.Lat, Lon: l.Centre.Lon, RadiusMiles: l.RadiusMiles}
	return t, nil
}

// minuteOf reads "15:04" (daily) or "01-02T15:04" (special) as minutes of
// the day, or of a year whose every month has 31 days (only the order matters).
func minuteOf(s string, daily bool) (int, error) {
	var mo, d, h, m int
	if daily {
		if _, err := fmt.Sscanf(s, "%d:%d", &h, &m); err != nil || len(s) != 5 {
			return 0, fmt.Errorf("%q is not HH:MM", s)
		}
	} else if _, err := fmt.Sscanf(s, "%d-%dT%d:%d", &mo, &d, &h, &m); err != nil || len(s) != 11 {
		return 0, fmt.Errorf("%q is not MM-DDTHH:MM", s)
	}
	if h > 23 || m > 59 || mo > 12 || d > 31 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return ((mo*31+d)*24+h)*60 + m, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (w window) holds(at int) bool {
	if w.from <= w.to {
		return w.from <= at && at < w.to
	}
	return at >= w.from || at < w.to
}

// BandAt returns the band of a departure at t: the wall clock of the
// tariff's time zone, the dated windows first, in order, then the daily ones.
// Every window includes its start and excludes its end.
func (t *Tariff) BandAt(at time.Time) string {
	l := at.In(t.Zone)
	day := l.Hour()*60 + l.Minute()
	year := ((int(l.Month())*31+l.Day())*24)*60 + day
	for _, w := range t.special {
		if w.holds(year) {
			return w.band
		}
	}
	for _, w := range t.daily {
		if w.holds(day) {
			return w.band
		}
	}
	return ""
}

// Boundary is an instant where a window of the tariff opens or closes.
type Boundary struct {
	At   time.Time
	What string // e.g. "daily 22:00 (night)" or "special 12-24T22:00 (Christmas …)"
}

// Boundaries returns the instants, in the tariff's zone, where each window
// opens and closes on the given local dates (daily windows) and in the given
// year (dated windows; a window that wraps the new year closes in year+1).
func (t *Tariff) Boundaries(dates []time.Time, year int) []Boundary {
	var out []Boundary
	for _, d := range dates {
		for _, w := range t.daily {
			for _, m := range []int{w.from, w.to} {
				at := time.Date(d.Year(), d.Month(), d.Day(), m/60, m%60, 0, 0, t.Zone)
				out = append(out, Boundary{At: at, What: fmt.Sprintf("%s %02d:%02d local (%s window %s)", d.Format("2006-01-02"), m/60, m%60, w.band, clockSpan(w))})
			}
		}
	}
	for _, w := range t.special {
		for i, m := range []int{w.from, w.to} {
			mo, rest := m/(31*24*60), m%(31*24*60)
			dd, rest := rest/(24*60), rest%(24*60)
			y := year
			if i == 1 && w.to < w.from {
				y++
			}
			at := time.Date(y, time.Month(mo), dd, rest/60, rest%60, 0, 0, t.Zone)
			edge := "opens"
			if i == 1 {
				edge = "closes"
			}
			out = append(out, Boundary{At: at, What: fmt.Sprintf("%s %s (%s)", w.note, edge, w.band)})
		}
	}
	return out
}

func clockSpan(w window) string {
	return fmt.Sprintf("%02d:%02d–%02d:%02d", w.from/60, w.from%60, w.to/60, w.to%60)
}

// Band returns the band called id and its index, or -1.
func (t *Tariff) Band(id string) (TariffBand, int) {
	for i, b := range t.Bands {
		if b.ID == id {
			return b, i
		}
	}
	return TariffBand{}, -1
}

// Trip is what the tariff prices beside the distance: the call's arguments
// and the kinds of its two places.
type Trip struct {
	Vehicle      string
	Prebooked    bool // departAt given
	MeetAndGreet bool
	Passengers   int // 0: not given (estimate_fare never gives it)
	Airport      bool
	Local        bool
}

// Expected is what the tariff makes of a trip.
type Expected struct {
	FarePence    int64
	Rate         string
	AirportPence int64
	Rules        []string
	// Working shows how the figure was reached, for failure messages.
	Working string
}

// Price prices trip over miles (whole miles, as the tariff rounds them) for
// a departure in band.
func (t *Tariff) Price(trip Trip, miles int64, band string) (Expected, error) {
	b, bi := t.Band(band)
	if bi < 0 {
		return Expected{}, fmt.Errorf("the tariff has no band %q", band)
	}
	v, ok := t.Vehicles[trip.Vehicle]
	if !ok {
		return Expected{}, fmt.Errorf("the tariff has no vehicle %q", trip.Vehicle)
	}
	e := Expected{Rate: band}
	var w strings.Builder
	if b.Rule != "" {
		e.Rules = append(e.Rules, b.Rule)
	}
	meterBand := b
	extra := int64(0)
	if trip.Passengers >= t.LargeMinPassengers && t.LargeMinPassengers > 0 && v.Large {
		if bi+1 < len(t.Bands) {
			meterBand = t.Bands[bi+1]
			e.Rules = append(e.Rules, meterBand.GroupRule)
			fmt.Fprintf(&w, "%d passengers in a large vehicle: metered at %s; ", trip.Passengers, meterBand.Code)
		} else {
			extra = t.LargeTopExtraPence
			e.Rules = append(e.Rules, t.LargeTopExtraRule)
			fmt.Fprintf(&w, "%d passengers in a large vehicle at the top band: +%dp on the meter; ", trip.Passengers, extra)
		}
	}
	yards := miles * 1760
	meter := big.NewRat(meterBand.FlagPence+extra, 1)
	if beyond := yards - meterBand.FlagYards; beyond > 0 {
		meter.Add(meter, big.NewRat(beyond*meterBand.UnitPence, meterBand.UnitYards))
	}
	mult, rule, why := v.Multiplier, v.Rule, trip.Vehicle
	if v.LocalHire && trip.Local {
		mult, rule, why = t.Local.Multiplier, t.Local.Rule, trip.Vehicle+" on a local hire"
	}
	if rule != "" {
		e.Rules = append(e.Rules, rule)
	}
	scaled := new(big.Rat).Mul(meter, mult)
	base := ceilStep(scaled, t.StepPence)
	fmt.Fprintf(&w, "%s meter for %d mi = %sp; × %s (%s) = %sp; up to %dp = %dp",
		meterBand.Code, miles, meter.FloatString(2), mult.RatString(), why, scaled.FloatString(2), t.StepPence, base)
	e.FarePence = base
	if trip.Airport {
		e.FarePence += t.Airport.Pence
		e.AirportPence = t.Airport.Pence
		e.Rules = append(e.Rules, t.Airport.Rule)
		fmt.Fprintf(&w, "; + airport %dp", t.Airport.Pence)
	}
	if trip.MeetAndGreet && (trip.Airport || !t.MeetAndGreetNeedsAirport) {
		e.FarePence += t.MeetAndGreet.Pence
		e.Rules = append(e.Rules, t.MeetAndGreet.Rule)
		fmt.Fprintf(&w, "; + meet & greet %dp", t.MeetAndGreet.Pence)
	}
	if trip.Prebooked {
		e.FarePence += t.PreBooking.Pence
		e.Rules = append(e.Rules, t.PreBooking.Rule)
		fmt.Fprintf(&w, "; + pre-booking %dp", t.PreBooking.Pence)
	}
	fmt.Fprintf(&w, " = %s", pounds(e.FarePence))
	e.Working = w.String()
	return e, nil
}

// ceilStep rounds r up to a whole multiple of step.
func ceilStep(r *big.Rat, step int64) int64 {
	q := new(big.Rat).Quo(r, big.NewRat(step, 1))
	n := new(big.Int).Div(q.Num(), q.Denom()) // floor for positive values
	if new(big.Rat).SetInt(n).Cmp(q) < 0 {
		n.Add(n, big.NewInt(1))
	}
	return n.Int64() * step
}

// pounds formats pence as the quotes do: £62.40.
func pounds(p int64) string { return fmt.Sprintf("£%d.%02d", p/100, p%100) }

// Kind is what the oracle knows of a place property.
type Kind int

const (
	// Unknown: the place is not in the oracle's table, or too near the edge
	// of the local area to say; the oracle accepts either answer.
	Unknown Kind = iota
	No
	Yes
)

func (k Kind) options() []bool {
	switch k {
	case Yes:
		return []bool{true}
	case No:
		return []bool{false}
	}
	return []bool{false, true}
}

// Call is a tools/call the suite made, as the oracle reads it.
type Call struct {
	Tool string
	Args map[string]any
}

// Answer is what a successful quote said, from structuredContent.
type Answer struct {
	FareGBP         float64
	DistanceMiles   float64
	DurationSeconds float64
	Rate            string
	TariffVersion   string
	// Only estimate_fare reports these.
	AirportSurchargeGBP *float64
	AppliedRules        []string
	HasRules            bool
	// Only start_booking: the fare= of bookingUrl.
	URLFare *string
}

// AnswerOf reads the quote of a successful result. ok is false for a tool
// that quotes no fare.
func AnswerOf(tool string, structured json.RawMessage) (a Answer, ok bool, err error) {
	var sc struct {
		FareGBP             *float64        `json:"fareGBP"`
		DistanceMiles       float64         `json:"distanceMiles"`
		DurationSeconds     float64         `json:"durationSeconds"`
		Rate                string          `json:"rate"`
		TariffVersion       string          `json:"tariffVersion"`
		AirportSurchargeGBP *float64        `json:"airportSurchargeGBP"`
		AppliedRules        json.RawMessage `json:"appliedRules"`
	}
	switch tool {
	case "estimate_fare":
	case "start_booking":
		var outer struct {
			BookingURL string          `json:"bookingUrl"`
			Quote      json.RawMessage `json:"quote"`
		}
		if err := json.Unmarshal(structured, &outer); err != nil {
			return a, false, err
		}
		inner, _, err := AnswerOf("estimate_fare", outer.Quote)
		if err != nil {
			return a, false, fmt.Errorf("quote: %w", err)
		}
		inner.AirportSurchargeGBP, inner.AppliedRules, inner.HasRules = nil, nil, false
		if u, err := url.Parse(outer.BookingURL); err == nil && u.Query().Has("fare") {
			f := u.Query().Get("fare")
			inner.URLFare = &f
		}
		return inner, true, nil
	default:
		return a, false, nil
	}
	if err := json.Unmarshal(structured, &sc); err != nil {
		return a, false, err
	}
	if sc.FareGBP == nil {
		return a, false, fmt.Errorf("no fareGBP")
	}
	a = Answer{FareGBP: *sc.FareGBP, DistanceMiles: sc.DistanceMiles, DurationSeconds: sc.DurationSeconds,
		Rate: sc.Rate, TariffVersion: sc.TariffVersion, AirportSurchargeGBP: sc.AirportSurchargeGBP}
	if len(sc.AppliedRules) > 0 && string(sc.AppliedRules) != "null" {
		a.HasRules = true
		if err := json.Unmarshal(sc.AppliedRules, &a.AppliedRules); err != nil {
			return a, false, fmt.Errorf("appliedRules: %w", err)
		}
	}
	return a, true, nil
}

// Oracle judges quotes by the tariff.
type Oracle struct {
	Tariff *Tariff
	Places *PlaceTable
	// Clock, when set, is the server's frozen fare clock: the departure of a
	// call without departAt. Unset, such a call's band is taken as reported.
	Clock *time.Time
}

// Verdict is the oracle's judgement of one quote.
type Verdict struct {
	// Skip, when not empty, is why the oracle refused to judge.
	Skip string
	// Problems lists every way the quote departs from the tariff.
	Problems []string
	// Expected is what the tariff gives (the candidate nearest the answer
	// when the places' kinds were not all known).
	Expected Expected
	// Band is the band the oracle expected, and BandJudged whether it was
	// the oracle's own (false: a call without departAt and no clock).
	Band       string
	BandJudged bool
}

// Judge prices call by the tariff and compares the answer with it.
func (o *Oracle) Judge(c Call, a Answer) Verdict {
	t := o.Tariff
	if a.TariffVersion != t.Version {
		return Verdict{Skip: fmt.Sprintf("the server prices with tariff %q; the oracle knows only %q (%s), so it does not judge this quote", a.TariffVersion, t.Version, TariffSource)}
	}
	var v Verdict
	trip := Trip{Vehicle: t.DefaultVehicle}
	if s, ok := c.Args["vehicleType"].(string); ok {
		trip.Vehicle = s
	}
	trip.MeetAndGreet, _ = c.Args["meetAndGreet"].(bool)
	if p, ok := c.Args["passengers"].(float64); ok {
		trip.Passengers = int(p)
	} else if p, ok := c.Args["passengers"].(int); ok {
		trip.Passengers = p
	} else if p, ok := c.Args["passengers"].(int64); ok {
		trip.Passengers = int(p)
	}
	switch d := c.Args["departAt"].(type) {
	case string:
		at, err := time.Parse(time.RFC3339Nano, d)
		if err != nil {
			return Verdict{Skip: fmt.Sprintf("departAt %q does not parse as RFC 3339 (%v); the oracle cannot place it", d, err)}
		}
		trip.Prebooked = true
		v.Band, v.BandJudged = t.BandAt(at), true
	default:
		if o.Clock != nil {
			v.Band, v.BandJudged = t.BandAt(*o.Clock), true
		} else {
			v.Band = a.Rate
		}
	}
	if _, bi := t.Band(v.Band); bi < 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("rate %q is not a band of tariff %s", a.Rate, t.Version))
		return v
	}
	if a.DistanceMiles != math.Round(a.DistanceMiles) {
		v.Problems = append(v.Problems, fmt.Sprintf("distanceMiles %v is not whole miles: the tariff rounds the routed distance to the nearest mile and prices that (rounding.distanceMiles)", a.DistanceMiles))
	}
	if math.Mod(a.DurationSeconds, 60) != 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("durationSeconds %v is not whole minutes: the tariff rounds the duration to the nearest minute (rounding.durationMinutes)", a.DurationSeconds))
	}
	pickup, _ := c.Args["pickup"].(string)
	dropoff, _ := c.Args["dropoff"].(string)
	airport, local := o.Places.TripKinds(t, pickup, dropoff)
	miles := int64(math.Round(a.DistanceMiles))

	var best []string
	for _, ap := range airport.options() {
		for _, lo := range local.options() {
			trip.Airport, trip.Local = ap, lo
			e, err := t.Price(trip, miles, v.Band)
			if err != nil {
				v.Problems = append(v.Problems, err.Error())
				return v
			}
			diffs := compareQuote(e, a, v.BandJudged)
			if best == nil || len(diffs) < len(best) {
				best, v.Expected = diffs, e
			}
			if len(diffs) == 0 {
				return v
			}
		}
	}
	where := fmt.Sprintf("%s %s→%s, %s, %s band", c.Tool, pickup, dropoff, trip.Vehicle, v.Band)
	for _, d := range best {
		v.Problems = append(v.Problems, fmt.Sprintf("fare oracle (%s): %s [tariff: %s]", where, d, v.Expected.Working))
	}
	return v
}

// compareQuote lists how a differs from e.
func compareQuote(e Expected, a Answer, bandJudged bool) []string {
	var out []string
	if got := math.Round(a.FareGBP * 100); got != float64(e.FarePence) || math.Abs(a.FareGBP*100-got) > 1e-6 {
		out = append(out, fmt.Sprintf("fareGBP %v, the tariff gives %s", a.FareGBP, pounds(e.FarePence)))
	}
	if bandJudged && a.Rate != e.Rate {
		out = append(out, fmt.Sprintf("rate %q, the tariff gives %q for this departure", a.Rate, e.Rate))
	}
	if a.AirportSurchargeGBP != nil && math.Round(*a.AirportSurchargeGBP*100) != float64(e.AirportPence) {
		out = append(out, fmt.Sprintf("airportSurchargeGBP %v, the tariff gives %s", *a.AirportSurchargeGBP, pounds(e.AirportPence)))
	}
	if a.HasRules && !equalStrings(a.AppliedRules, e.Rules) {
		out = append(out, fmt.Sprintf("appliedRules %q, the tariff gives %q", a.AppliedRules, e.Rules))
	}
	if a.URLFare != nil {
		if want := fmt.Sprintf("%d.%02d", e.FarePence/100, e.FarePence%100); *a.URLFare != want {
			out = append(out, fmt.Sprintf("bookingUrl fare=%s, the tariff gives %s", *a.URLFare, want))
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

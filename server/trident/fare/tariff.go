package fare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	// The band schedule is read in Europe/London; embedding the zone database
	// makes that work on machines without /usr/share/zoneinfo (scratch
	// containers, minimal CI images).
	_ "time/tzdata"
)

// Band is a tariff band: the council's Tariff 1, 2 or 3.
type Band string

// The bands named by the council's notice and by the tools' "rate" field.
const (
	Day     Band = "day"     // Tariff 1
	Night   Band = "night"   // Tariff 2: nights, Christmas Eve and Hogmanay evenings, 2 January
	Holiday Band = "holiday" // Tariff 3: Christmas and New Year
)

// Tariff is a parsed, validated tariff file. It is immutable and safe for
// concurrent use; [Tariff.WithClock] returns a copy with another clock.
type Tariff struct {
	version string
	loc     *time.Location
	now     func() time.Time

	bands     []band
	bandIndex map[Band]int
	daily     []window // minutes of the day, [from, to), may wrap midnight
	special   []window // keys of the year (see yearKey), [from, to), may wrap New Year

	groupMin       int
	groupTopExtra  int64
	groupTopRule   string
	proRata        bool
	roundStep      int64
	roundMode      roundMode
	distanceRound  roundMode
	durationRound  roundMode
	maxMiles       float64
	defaultVehicle string

	vehicles     map[string]*vehicle
	vehicleOrder []string

	preBooking   fee
	airport      fee
	meetAndGreet fee
	mgAirport    bool // meet & greet charged only when an end is an airport
	local        localHire

	info ServiceInfo
}

type band struct {
	id        Band
	code      string
	label     string
	rule      string
	groupRule string
	flag      int64 // pence
	flagYards int64
	unit      int64 // pence
	unitYards int64
}

type window struct {
	from, to int
	band     int
}

func (w window) contains(k int) bool {
	if w.from <= w.to {
		return w.from <= k && k < w.to
	}
	return k >= w.from || k < w.to
}

type vehicle struct {
	id        string
	capacity  int
	mult      frac
	rule      string
	large     bool
	localHire bool
}

type fee struct {
	pence int64
	rule  string
}

type localHire struct {
	mult        frac
	rule        string
	lat, lon    float64
	radiusMiles float64
	multiplier  float64 // mult as a number, for ServiceInfo
}

// ServiceInfo is the operator data get_service_info reports (all but
// bookingUrl, which is configuration). Field names follow the tool's output
// schema.
type ServiceInfo struct {
	Brand      string           `json:"brand"`
	Area       string           `json:"area"`
	Vehicles   []ServiceVehicle `json:"vehicles"`
	Surcharges Surcharges       `json:"surcharges"`
	Tariffs    []string         `json:"tariffs"`
}

// ServiceVehicle is one vehicle listed by get_service_info.
type ServiceVehicle struct {
	ID            string `json:"id"`
	MaxPassengers int    `json:"maxPassengers"`
	Note          string `json:"note,omitempty"`
}

// Surcharges summarises the operator's surcharges in pounds.
type Surcharges struct {
	PreBookingGBP              float64 `json:"preBookingGBP"`
	AirportPickupOrDropGBP     float64 `json:"airportPickupOrDropGBP"`
	AirportMeetAndGreetGBP     float64 `json:"airportMeetAndGreetGBP"`
	EightSeaterLocalMultiplier float64 `json:"eightSeaterLocalMultiplier"`
}

// ErrInvalidTariff wraps every error [Parse] returns.
var ErrInvalidTariff = errors.New("fare: invalid tariff")

// Parse reads and validates a tariff file (the format of
// contracts/trident/tariff/tariff.schema.json). Unknown fields are errors, so a typo
// in the data cannot silently drop a rule. The error names the offending
// field.
func Parse(data []byte) (*Tariff, error) {
	var f fileTariff
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTariff, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the tariff object", ErrInvalidTariff)
	}
	t, err := build(&f)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTariff, err)
	}
	return t, nil
}

// WithClock returns a copy of t whose quotes read "now" from now when a trip
// has no departure time. A nil now restores the wall clock.
func (t *Tariff) WithClock(now func() time.Time) *Tariff {
	c := *t
	if now == nil {
		now = time.Now
	}
	c.now = now
	return &c
}

// Version is the tariff's version tag, reported as tariffVersion.
func (t *Tariff) Version() string { return t.version }

// Capacity is the most passengers vehicle may carry; ok is false for a vehicle
// the tariff does not know.
func (t *Tariff) Capacity(vehicle string) (capacity int, ok bool) {
	v, ok := t.vehicles[vehicle]
	if !ok {
		return 0, false
	}
	return v.capacity, true
}

// DefaultVehicle is the vehicle quoted when a trip names none.
func (t *Tariff) DefaultVehicle() string { return t.defaultVehicle }

// ServiceInfo returns the operator data for get_service_info. The caller owns
// the result.
func (t *Tariff) ServiceInfo() ServiceInfo {
	info := t.info
	info.Vehicles = slices.Clone(t.info.Vehicles)
	info.Tariffs = slices.Clone(t.info.Tariffs)
	return info
}

// metresPerMile is the international mile; a unit definition, not a fare.
const metresPerMile = 1609.344

// RoundDistanceMiles converts a routed distance to the whole miles that are
// quoted and shown, by the tariff's rounding rule. Negative or NaN input gives 0.
func (t *Tariff) RoundDistanceMiles(meters float64) float64 {
	if !(meters > 0) {
		return 0
	}
	return t.distanceRound.apply(meters / metresPerMile)
}

// RoundDurationSeconds rounds a routed duration to whole minutes by the
// tariff's rounding rule and returns it in seconds. Negative or NaN input gives 0.
func (t *Tariff) RoundDurationSeconds(sec float64) float64 {
	if !(sec > 0) {
		return 0
	}
	return t.durationRound.apply(sec/60) * 60
}

type roundMode string

const (
	roundNearest roundMode = "nearest"
	roundUp      roundMode = "up"
	roundDown    roundMode = "down"
)

func (m roundMode) apply(x float64) float64 {
	switch m {
	case roundUp:
		return math.Ceil(x)
	case roundDown:
		return math.Floor(x)
	default:
		return math.Round(x)
	}
}

// divRound divides num by den (both > 0 for den) with the mode's rounding.
func (m roundMode) divRound(num, den int64) int64 {
	q, r := num/den, num%den
	switch m {
	case roundUp:
		if r > 0 {
			q++
		}
	case roundDown:
	default:
		if 2*r >= den {
			q++
		}
	}
	return q
}

func parseRoundMode(s, field string) (roundMode, error) {
	switch m := roundMode(s); m {
	case roundNearest, roundUp, roundDown:
		return m, nil
	}
	return "", fmt.Errorf("%s: rounding mode %q is not one of nearest, up, down", field, s)
}

// fileTariff mirrors tariff.schema.json.
type fileTariff struct {
	Schema   string `json:"$schema"`
	Version  string `json:"version"`
	Operator struct {
		Brand string `json:"brand"`
		Area  string `json:"area"`
	} `json:"operator"`
	Source struct {
		Authority             string `json:"authority"`
		Notice                string `json:"notice"`
		Effective             string `json:"effective"`
		WaitingPencePerMinute *int64 `json:"waitingPencePerMinute"`
		TelephoneBookingPence *int64 `json:"telephoneBookingPence"`
	} `json:"source"`
	TimeZone string `json:"timeZone"`
	Bands    []struct {
		ID        Band   `json:"id"`
		Code      string `json:"code"`
		Label     string `json:"label"`
		Rule      string `json:"rule"`
		GroupRule string `json:"groupRule"`
		Meter     *struct {
			FlagPence int64 `json:"flagPence"`
			FlagYards int64 `json:"flagYards"`
			UnitPence int64 `json:"unitPence"`
			UnitYards int64 `json:"unitYards"`
		} `json:"meter"`
	} `json:"bands"`
	Schedule struct {
		Daily []struct {
			From string `json:"from"`
			To   string `json:"to"`
			Band Band   `json:"band"`
		} `json:"daily"`
		Special []struct {
			From string `json:"from"`
			To   string `json:"to"`
			Band Band   `json:"band"`
			Note string `json:"note"`
		} `json:"special"`
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
	Limits struct {
		MaxDistanceMiles float64 `json:"maxDistanceMiles"`
	} `json:"limits"`
	DefaultVehicle string `json:"defaultVehicle"`
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
		PreBooking   fileFee `json:"preBooking"`
		Airport      fileFee `json:"airport"`
		MeetAndGreet struct {
			fileFee
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

type fileFee struct {
	Pence int64  `json:"pence"`
	Rule  string `json:"rule"`
}

// Bounds that keep every quote inside int64 arithmetic (see quote.go). The
// schema states the same bounds.
const (
	maxPence      = 10_000_000
	maxYards      = 100_000
	maxUnitPence  = 10_000
	maxLimitMiles = 100_000
)

func build(f *fileTariff) (*Tariff, error) {
	if f.Version == "" {
		return nil, errors.New("version: missing")
	}
	if f.Operator.Brand == "" || f.Operator.Area == "" {
		return nil, errors.New("operator: brand and area are required")
	}
	loc, err := time.LoadLocation(f.TimeZone)
	if err != nil || f.TimeZone == "" {
		return nil, fmt.Errorf("timeZone: %q is not a known IANA zone", f.TimeZone)
	}
	t := &Tariff{
		version:   f.Version,
		loc:       loc,
		now:       time.Now,
		bandIndex: map[Band]int{},
		vehicles:  map[string]*vehicle{},
	}

	if len(f.Bands) == 0 {
		return nil, errors.New("bands: at least one band is required")
	}
	for i, b := range f.Bands {
		field := fmt.Sprintf("bands[%d]", i)
		if b.ID == "" || b.Code == "" || b.Label == "" {
			return nil, fmt.Errorf("%s: id, code and label are required", field)
		}
		if _, dup := t.bandIndex[b.ID]; dup {
			return nil, fmt.Errorf("%s: band %q is listed twice", field, b.ID)
		}
		if i > 0 && (b.Rule == "" || b.GroupRule == "") {
			return nil, fmt.Errorf("%s: every band above the first needs rule and groupRule", field)
		}
		m := b.Meter
		if m == nil {
			return nil, fmt.Errorf("%s.meter: missing", field)
		}
		if m.FlagPence < 0 || m.FlagPence > maxPence || m.UnitPence < 0 || m.UnitPence > maxUnitPence ||
			m.FlagYards < 0 || m.FlagYards > maxYards || m.UnitYards < 1 || m.UnitYards > maxYards {
			return nil, fmt.Errorf("%s.meter: figures out of range", field)
		}
		t.bandIndex[b.ID] = i
		t.bands = append(t.bands, band{
			id: b.ID, code: b.Code, label: b.Label, rule: b.Rule, groupRule: b.GroupRule,
			flag: m.FlagPence, flagYards: m.FlagYards, unit: m.UnitPence, unitYards: m.UnitYards,
		})
		t.info.Tariffs = append(t.info.Tariffs, b.Label)
	}

	if err := t.buildSchedule(f); err != nil {
		return nil, err
	}

	g := f.LargeVehicleGroups
	if g.MinPassengers < 1 || g.TopBandExtraPence < 0 || g.TopBandExtraPence > maxPence || g.TopBandExtraRule == "" {
		return nil, errors.New("largeVehicleGroups: minPassengers >= 1, topBandExtraPence in range and topBandExtraRule are required")
	}
	t.groupMin, t.groupTopExtra, t.groupTopRule = g.MinPassengers, g.TopBandExtraPence, g.TopBandExtraRule

	switch f.FixedPrice.Distance {
	case "pro-rata":
		t.proRata = true
	case "drops":
	default:
		return nil, fmt.Errorf("fixedPrice.distance: %q is not one of pro-rata, drops", f.FixedPrice.Distance)
	}
	if s := f.FixedPrice.Rounding.StepPence; s < 1 || s > 10_000 {
		return nil, fmt.Errorf("fixedPrice.rounding.stepPence: %d is not in 1..10000", s)
	}
	t.roundStep = f.FixedPrice.Rounding.StepPence
	if t.roundMode, err = parseRoundMode(f.FixedPrice.Rounding.Mode, "fixedPrice.rounding.mode"); err != nil {
		return nil, err
	}
	if t.distanceRound, err = parseRoundMode(f.Rounding.DistanceMiles, "rounding.distanceMiles"); err != nil {
		return nil, err
	}
	if t.durationRound, err = parseRoundMode(f.Rounding.DurationMinutes, "rounding.durationMinutes"); err != nil {
		return nil, err
	}
	if m := f.Limits.MaxDistanceMiles; !(m > 0 && m <= maxLimitMiles) {
		return nil, fmt.Errorf("limits.maxDistanceMiles: %v is not in (0, %d]", m, maxLimitMiles)
	}
	t.maxMiles = f.Limits.MaxDistanceMiles

	if len(f.Vehicles) == 0 {
		return nil, errors.New("vehicles: at least one vehicle is required")
	}
	for i, v := range f.Vehicles {
		field := fmt.Sprintf("vehicles[%d]", i)
		if v.ID == "" {
			return nil, fmt.Errorf("%s.id: missing", field)
		}
		if _, dup := t.vehicles[v.ID]; dup {
			return nil, fmt.Errorf("%s: vehicle %q is listed twice", field, v.ID)
		}
		if v.Capacity < 1 || v.Capacity > 16 {
			return nil, fmt.Errorf("%s.capacity: %d is not in 1..16", field, v.Capacity)
		}
		mult, err := parseFrac(v.MeterMultiplier)
		if err != nil {
			return nil, fmt.Errorf("%s.meterMultiplier: %v", field, err)
		}
		if v.Note != "" && !v.Listed {
			return nil, fmt.Errorf("%s.note: only a listed vehicle carries a note", field)
		}
		t.vehicles[v.ID] = &vehicle{
			id: v.ID, capacity: v.Capacity, mult: mult, rule: v.Rule, large: v.Large, localHire: v.LocalHire,
		}
		t.vehicleOrder = append(t.vehicleOrder, v.ID)
		if v.Listed {
			t.info.Vehicles = append(t.info.Vehicles, ServiceVehicle{ID: v.ID, MaxPassengers: v.Capacity, Note: v.Note})
		}
	}
	if _, ok := t.vehicles[f.DefaultVehicle]; !ok {
		return nil, fmt.Errorf("defaultVehicle: %q is not among vehicles", f.DefaultVehicle)
	}
	t.defaultVehicle = f.DefaultVehicle
	def := t.vehicles[f.DefaultVehicle]
	for _, id := range t.vehicleOrder {
		v := t.vehicles[id]
		if v.rule == "" && v.mult != def.mult {
			return nil, fmt.Errorf("vehicles: %q is priced unlike the default vehicle, so it needs a rule naming its rate", id)
		}
	}

	s := &f.Surcharges
	for _, fe := range []struct {
		name string
		in   fileFee
		out  *fee
	}{
		{"surcharges.preBooking", s.PreBooking, &t.preBooking},
		{"surcharges.airport", s.Airport, &t.airport},
		{"surcharges.meetAndGreet", s.MeetAndGreet.fileFee, &t.meetAndGreet},
	} {
		if fe.in.Pence < 0 || fe.in.Pence > maxPence || fe.in.Rule == "" {
			return nil, fmt.Errorf("%s: pence in 0..%d and a rule are required", fe.name, maxPence)
		}
		*fe.out = fee{pence: fe.in.Pence, rule: fe.in.Rule}
	}
	t.mgAirport = s.MeetAndGreet.RequiresAirport

	l := s.EightSeaterLocal
	lm, err := parseFrac(l.Multiplier)
	if err != nil {
		return nil, fmt.Errorf("surcharges.eightSeaterLocal.multiplier: %v", err)
	}
	if l.Rule == "" || !(l.RadiusMiles > 0) || math.Abs(l.Centre.Lat) > 90 || math.Abs(l.Centre.Lon) > 180 {
		return nil, errors.New("surcharges.eightSeaterLocal: rule, a centre and radiusMiles > 0 are required")
	}
	t.local = localHire{
		mult: lm, rule: l.Rule, lat: l.Centre.Lat, lon: l.Centre.Lon, radiusMiles: l.RadiusMiles,
		multiplier: lm.float(),
	}

	t.info.Brand, t.info.Area = f.Operator.Brand, f.Operator.Area
	t.info.Surcharges = Surcharges{
		PreBookingGBP:              penceToGBP(t.preBooking.pence),
		AirportPickupOrDropGBP:     penceToGBP(t.airport.pence),
		AirportMeetAndGreetGBP:     penceToGBP(t.meetAndGreet.pence),
		EightSeaterLocalMultiplier: t.local.multiplier,
	}
	return t, nil
}

func (t *Tariff) buildSchedule(f *fileTariff) error {
	bandOf := func(field string, id Band) (int, error) {
		i, ok := t.bandIndex[id]
		if !ok {
			return 0, fmt.Errorf("%s: band %q is not among bands", field, id)
		}
		return i, nil
	}
	var covered [minutesPerDay]int
	for i, w := range f.Schedule.Daily {
		field := fmt.Sprintf("schedule.daily[%d]", i)
		from, err1 := parseClock(w.From)
		to, err2 := parseClock(w.To)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s: %v", field, err)
		}
		if from == to {
			return fmt.Errorf("%s: empty window", field)
		}
		b, err := bandOf(field, w.Band)
		if err != nil {
			return err
		}
		win := window{from: from, to: to, band: b}
		for m := range minutesPerDay {
			if win.contains(m) {
				covered[m]++
			}
		}
		t.daily = append(t.daily, win)
	}
	for m, n := range covered {
		if n != 1 {
			return fmt.Errorf("schedule.daily: %02d:%02d is covered by %d windows, want exactly 1", m/60, m%60, n)
		}
	}
	for i, w := range f.Schedule.Special {
		field := fmt.Sprintf("schedule.special[%d]", i)
		from, err1 := parseYearTime(w.From)
		to, err2 := parseYearTime(w.To)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s: %v", field, err)
		}
		if from == to {
			return fmt.Errorf("%s: empty window", field)
		}
		b, err := bandOf(field, w.Band)
		if err != nil {
			return err
		}
		t.special = append(t.special, window{from: from, to: to, band: b})
	}
	return nil
}

const minutesPerDay = 24 * 60

// parseClock reads "hh:mm" as minutes after midnight.
func parseClock(s string) (int, error) {
	var h, m int
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("time %q is not hh:mm", s)
	}
	if _, err := fmt.Sscanf(s, "%02d:%02d", &h, &m); err != nil || h > 23 || m > 59 || h < 0 || m < 0 {
		return 0, fmt.Errorf("time %q is not hh:mm", s)
	}
	return h*60 + m, nil
}

// parseYearTime reads "MM-DDThh:mm" as a yearKey.
func parseYearTime(s string) (int, error) {
	date, clock, ok := strings.Cut(s, "T")
	var mo, d int
	if !ok || len(date) != 5 || date[2] != '-' {
		return 0, fmt.Errorf("date-time %q is not MM-DDThh:mm", s)
	}
	if _, err := fmt.Sscanf(date, "%02d-%02d", &mo, &d); err != nil || mo < 1 || mo > 12 || d < 1 ||
		d > daysIn(time.Month(mo)) {
		return 0, fmt.Errorf("date-time %q is not MM-DDThh:mm (or no such day)", s)
	}
	m, err := parseClock(clock)
	if err != nil {
		return 0, fmt.Errorf("date-time %q: %v", s, err)
	}
	return yearKey(time.Month(mo), d, m), nil
}

// daysIn is the most days month can have (29 for February).
func daysIn(m time.Month) int {
	return time.Date(2024, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// yearKey orders local times within a year, ignoring the year: month, then
// day, then minute of the day.
func yearKey(m time.Month, day, minute int) int {
	return (int(m)*32+day)*minutesPerDay + minute
}

func penceToGBP(p int64) float64 { return float64(p) / 100 }

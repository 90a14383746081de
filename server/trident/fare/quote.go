package fare

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Endpoint is one end of a trip, as the geocoder resolved it.
type Endpoint struct {
	Lat, Lon float64
	// Airport is true when the place is an airport: it triggers the airport
	// pickup/drop fee and allows meet & greet.
	Airport bool
}

// Trip is what a quote is asked for.
type Trip struct {
	// Vehicle is a vehicle id of the tariff; "" quotes the default vehicle.
	Vehicle string
	// DistanceMiles is the driving distance, already rounded by the caller
	// with [Tariff.RoundDistanceMiles] so that the quote matches the miles shown.
	// It is counted to the nearest yard.
	DistanceMiles float64
	// DurationSeconds is the driving time. Fixed prices do not charge for it
	// (the council's waiting charge applies to a running meter, not a quote);
	// it is only checked for sanity.
	DurationSeconds float64
	// Depart picks the band; the zero time means now, read from the clock set
	// with [Tariff.WithClock].
	Depart time.Time
	// Prebooked is true when the passenger booked ahead (gave departAt): the
	// pre-booking fee applies.
	Prebooked bool
	// Pickup and Dropoff locate the ends, for the airport fee and for the
	// 8-seater's local-hire rule (both ends near the centre).
	Pickup, Dropoff Endpoint
	// MeetAndGreet asks for an airport meet & greet; it is charged when an
	// end is an airport (when the tariff says it requires one).
	MeetAndGreet bool
	// Passengers is the party size; 0 means not given. Five or more in a
	// large vehicle move the fare a band up.
	Passengers int
}

// Quote is a priced trip.
type Quote struct {
	// FareGBP is FarePence in pounds, the total the passenger pays.
	FareGBP   float64
	FarePence int64
	// Band is the band of the departure time, reported as "rate". A group
	// moved up a band still reports the band of the clock; AppliedRules
	// names the move.
	Band Band
	// AirportSurchargeGBP is the airport fee included in FareGBP, 0 if none.
	AirportSurchargeGBP float64
	// AppliedRules names, in a fixed order, each rule that changed the fare
	// from the default vehicle's fare in the day band: band, large group,
	// vehicle rate (or local hire), airport fee, meet & greet, pre-booking.
	AppliedRules  []string
	TariffVersion string
}

// Errors of [Tariff.Quote]; match them with errors.Is.
var (
	// ErrUnknownVehicle: the trip names a vehicle the tariff does not price.
	ErrUnknownVehicle = errors.New("fare: unknown vehicle")
	// ErrInvalidTrip: a distance, duration or passenger count out of range.
	ErrInvalidTrip = errors.New("fare: invalid trip")
	// ErrCapacity: more passengers than the vehicle seats (a [*CapacityError]).
	ErrCapacity = errors.New("fare: capacity exceeded")
)

// CapacityError reports a party larger than the vehicle seats.
type CapacityError struct {
	Vehicle    string
	Capacity   int
	Passengers int
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("fare: vehicle %q seats up to %d passengers, but %d were requested", e.Vehicle, e.Capacity, e.Passengers)
}

// Is makes errors.Is(err, ErrCapacity) hold.
func (e *CapacityError) Is(target error) bool { return target == ErrCapacity }

const yardsPerMile = 1760

// Quote prices trip. The fare is
//
//	round(meter(band', yards) × multiplier) + airport fee + meet & greet + pre-booking fee
//
// with band' the departure band moved up for a large group, the multiplier the
// vehicle's (or the local-hire one), and round the tariff's fixed-price
// rounding (up to the next 10p in argyll-2024-04). See the package doc and
// contracts/trident/tariff/README.md.
func (t *Tariff) Quote(trip Trip) (Quote, error) {
	id := trip.Vehicle
	if id == "" {
		id = t.defaultVehicle
	}
	v, ok := t.vehicles[id]
	if !ok {
		return Quote{}, fmt.Errorf("%w %q (want one of %s)", ErrUnknownVehicle, trip.Vehicle, strings.Join(t.vehicleOrder, ", "))
	}
	switch d := trip.DistanceMiles; {
	case math.IsNaN(d) || d < 0 || d > t.maxMiles:
		return Quote{}, fmt.Errorf("%w: distance %v miles is not in 0..%v", ErrInvalidTrip, d, t.maxMiles)
	case math.IsNaN(trip.DurationSeconds) || trip.DurationSeconds < 0 || math.IsInf(trip.DurationSeconds, 0):
		return Quote{}, fmt.Errorf("%w: duration %v seconds is not a non-negative number", ErrInvalidTrip, trip.DurationSeconds)
	case trip.Passengers < 0:
		return Quote{}, fmt.Errorf("%w: %d passengers", ErrInvalidTrip, trip.Passengers)
	case trip.Passengers > v.capacity:
		return Quote{}, &CapacityError{Vehicle: v.id, Capacity: v.capacity, Passengers: trip.Passengers}
	}

	depart := trip.Depart
	if depart.IsZero() {
		depart = t.now()
	}
	clockBand := t.bandIndexAt(depart)
	rules := make([]string, 0, 6)
	if r := t.bands[clockBand].rule; clockBand > 0 && r != "" {
		rules = append(rules, r)
	}

	charged, extra := clockBand, int64(0)
	if v.large && trip.Passengers >= t.groupMin {
		if charged+1 < len(t.bands) {
			charged++
			rules = append(rules, t.bands[charged].groupRule)
		} else {
			extra = t.groupTopExtra
			rules = append(rules, t.groupTopRule)
		}
	}

	mult := v.mult
	switch {
	case v.localHire && t.isLocal(trip.Pickup, trip.Dropoff):
		mult = t.local.mult
		rules = append(rules, t.local.rule)
	case v.rule != "":
		rules = append(rules, v.rule)
	}

	yards := int64(math.Round(trip.DistanceMiles * yardsPerMile))
	pence := t.fixedPrice(t.bands[charged], yards, extra, mult)

	q := Quote{Band: t.bands[clockBand].id, TariffVersion: t.version}
	airport := trip.Pickup.Airport || trip.Dropoff.Airport
	if airport {
		pence += t.airport.pence
		q.AirportSurchargeGBP = penceToGBP(t.airport.pence)
		rules = append(rules, t.airport.rule)
	}
	if trip.MeetAndGreet && (airport || !t.mgAirport) {
		pence += t.meetAndGreet.pence
		rules = append(rules, t.meetAndGreet.rule)
	}
	if trip.Prebooked {
		pence += t.preBooking.pence
		rules = append(rules, t.preBooking.rule)
	}
	q.FarePence, q.FareGBP, q.AppliedRules = pence, penceToGBP(pence), rules
	return q, nil
}

// fixedPrice is the meter for yards in band b, plus extra pence, times mult,
// rounded by the tariff's fixed-price rule. All in int64: Parse bounds every
// term (maxYards, maxUnitPence, maxPence, maxFracTerm, maxLimitMiles) so that
// num stays below 5e18.
func (t *Tariff) fixedPrice(b band, yards, extra int64, mult frac) int64 {
	var num, den int64 // the meter in pence is num/den
	beyond := max(yards-b.flagYards, 0)
	if t.proRata {
		num = (b.flag+extra)*b.unitYards + beyond*b.unit
		den = b.unitYards
	} else {
		units := (beyond + b.unitYards - 1) / b.unitYards
		num, den = b.flag+extra+units*b.unit, 1
	}
	num *= mult.num
	den *= mult.den
	return t.roundMode.divRound(num, den*t.roundStep) * t.roundStep
}

// earthRadiusMiles is the mean Earth radius (IUGG), for great-circle distance.
const earthRadiusMiles = 3958.7613

// isLocal reports whether both ends lie within the local-hire radius of the
// centre.
func (t *Tariff) isLocal(a, b Endpoint) bool {
	return greatCircleMiles(t.local.lat, t.local.lon, a.Lat, a.Lon) <= t.local.radiusMiles &&
		greatCircleMiles(t.local.lat, t.local.lon, b.Lat, b.Lon) <= t.local.radiusMiles
}

func greatCircleMiles(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) +
		math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadiusMiles * math.Asin(math.Sqrt(min(h, 1)))
}

// FormatGBP renders pence as the tools' text does: "£62.40".
func FormatGBP(pence int64) string {
	sign := ""
	if pence < 0 {
		sign, pence = "-", -pence
	}
	return fmt.Sprintf("%s£%d.%02d", sign, pence/100, pence%100)
}

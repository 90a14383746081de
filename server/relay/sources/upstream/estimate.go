package upstream

import (
	"context"
	"errors"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// Estimator is what every priced API adapter is: [Configured] says whether
// it has credentials (without them Estimate returns a [NotConfigured]
// error and sends nothing); Estimate answers one [Request] within ctx's
// deadline with the provider's estimates in its order (an empty, non-nil
// slice when it has none) or an *[Error].
type Estimator interface {
	Configured() bool
	DataMode() DataMode
	Estimate(ctx context.Context, req Request) ([]Estimate, error)
}

// DataMode says whether an adapter's answers are the provider's live
// prices. Adapters tell it from their base URL, the only thing they know:
// the production host is live, a provider's documented sandbox host is
// test, anything else (a proxy, a fake) is unknown.
type DataMode string

const (
	DataLive    DataMode = "live"
	DataTest    DataMode = "test"
	DataUnknown DataMode = "unknown"
)

// Coordinate is a WGS 84 point in decimal degrees.
type Coordinate struct {
	Latitude, Longitude float64
}

// Request is one priced trip question, the same for every adapter.
type Request struct {
	Pickup, Dropoff Coordinate
	// PartySize is the number of passengers, 0 when unknown. Adapters pass
	// it where the provider's API takes it (Uber's seat_count, for shared
	// rides only) and otherwise ignore it: no price API here filters
	// products by capacity.
	PartySize int
	// ProductID restricts the answer to one product (Uber's product_id,
	// Lyft's ride_type), for re-quoting a selected option; "" asks for all.
	ProductID string
}

// Check refuses, before anything is sent, a request no provider could
// answer: a coordinate out of range or not a number. The error is an
// *[Error] of kind [Rejected] with no HTTP status.
func (r Request) Check(provider string) error {
	for _, c := range []Coordinate{r.Pickup, r.Dropoff} {
		if !(c.Latitude >= -90 && c.Latitude <= 90 && c.Longitude >= -180 && c.Longitude <= 180) {
			return &Error{Provider: provider, Kind: Rejected, Detail: "coordinates out of range"}
		}
	}
	if r.PartySize < 0 {
		return &Error{Provider: provider, Kind: Rejected, Detail: "negative party size"}
	}
	return nil
}

// Basis says what an estimate's amounts mean.
type Basis string

const (
	// BasisFixed: one amount; the provider quoted no range.
	BasisFixed Basis = "fixed"
	// BasisEstimateRange: AmountMinor ≤ price ≤ *AmountMinorMax.
	BasisEstimateRange Basis = "estimate_range"
	// BasisMetered: no amount; the meter decides (Uber's "Metered" taxis).
	BasisMetered Basis = "metered"
)

// BasisOf is the basis of a quote with lower bound low and upper bound
// high (nil when absent): metered without a lower bound, a range when high
// exceeds low, fixed otherwise. It also returns the upper bound to report,
// nil unless the basis is a range.
func BasisOf(low, high *int64) (Basis, *int64) {
	switch {
	case low == nil:
		return BasisMetered, nil
	case high != nil && *high > *low:
		return BasisEstimateRange, high
	default:
		return BasisFixed, nil
	}
}

// ProviderText is the provider's own wording, carried untouched: Relay
// treats it as untrusted data, strips control characters and never puts it
// into text meant as instructions. The adapters do not sanitise it.
type ProviderText struct {
	// DisplayName is the product's name as the provider shows it ("UberX",
	// "Lyft XL").
	DisplayName string
	// Estimate is the provider's formatted price ("$21-26", "Metered"),
	// "" when it sends none (Lyft).
	Estimate string
}

// Estimate is one product's price for a [Request], in minor units.
type Estimate struct {
	// ProductID is the provider's product id (Uber's product_id UUID,
	// Lyft's ride_type); ProductName its display name.
	ProductID, ProductName string
	// Currency is the ISO 4217 code; "" only for a metered estimate that
	// names none.
	Currency string
	// AmountMinor is the price, or the lower bound of a range, in minor
	// units of Currency; nil for [BasisMetered].
	AmountMinor *int64
	// AmountMinorMax is the upper bound of a [BasisEstimateRange], nil
	// otherwise.
	AmountMinorMax *int64
	Basis          Basis
	// DistanceMeters and DurationSeconds are the provider's trip figures,
	// nil when it sends none.
	DistanceMeters, DurationSeconds *int64
	// PriceMultiplier is the demand multiplier in effect as decimal text
	// ("1.0", "1.25": Uber's surge_multiplier, Lyft's primetime_percentage
	// as a factor), "" when the provider says nothing.
	PriceMultiplier string
	ProviderText    ProviderText
}

// metersPerMile is exact: the international mile is 1609.344 m.
var metersPerMile = apd.New(1609344, -3)

var unitContext = apd.Context{
	Precision:   40,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfUp,
}

// errDistance and errWhole say what the input was not; adapters report
// them as Malformed with their own field path.
var (
	errDistance = errors.New("not a distance in miles")
	errWhole    = errors.New("not a whole number")
)

// MetersFromMiles converts a provider's distance in miles, as decimal text
// (a json.Number), to whole meters, rounding half up, in exact decimal
// arithmetic: "5.72" is 9205. Negative, non-finite and absurd (ten million
// miles or more) distances are refused.
func MetersFromMiles(miles string) (int64, error) {
	d, _, err := apd.NewFromString(miles)
	if err != nil || d.Form != apd.Finite || (d.Negative && !d.IsZero()) {
		return 0, errDistance
	}
	if !d.IsZero() && d.NumDigits()+int64(d.Exponent) > 7 { // ≥ 10^7 miles
		return 0, errDistance
	}
	var m, r apd.Decimal
	if _, err := unitContext.Mul(&m, d, metersPerMile); err != nil {
		return 0, errDistance
	}
	if _, err := unitContext.Quantize(&r, &m, 0); err != nil {
		return 0, errDistance
	}
	n, err := r.Int64()
	if err != nil {
		return 0, errDistance
	}
	return n, nil
}

// WholeNumber reads a provider's integer field (seconds, cents) written as
// a JSON number: "913" and "913.0" are 913; a fraction, a negative or a
// non-number is refused.
func WholeNumber(text string) (int64, error) {
	d, _, err := apd.NewFromString(text)
	if err != nil || d.Form != apd.Finite || (d.Negative && !d.IsZero()) {
		return 0, errWhole
	}
	if !d.IsZero() && d.NumDigits()+int64(d.Exponent) > 18 {
		return 0, errWhole
	}
	n, err := d.Int64()
	if err != nil {
		return 0, errWhole
	}
	return n, nil
}

// FormatDegrees writes a coordinate for a query string in the shortest
// decimal that reads back as the same float64: 40.6413 stays 40.6413.
func FormatDegrees(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

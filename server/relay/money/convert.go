package money

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// The conditions a conversion refuses. Each error returned by this package
// wraps exactly one of them, so callers test with errors.Is.
var (
	ErrUnknownCurrency = errors.New("money: unknown currency")
	ErrNoMinorUnit     = errors.New("money: currency has no minor unit")
	// ErrSyntax: the text is not a finite decimal number (this includes
	// "NaN", "Infinity" and the empty string).
	ErrSyntax = errors.New("money: not a finite decimal number")
	// ErrTooPrecise: more fractional digits than the currency's exponent
	// and no rounding asked for.
	ErrTooPrecise = errors.New("money: more fractional digits than the currency has")
	ErrNegative   = errors.New("money: negative amount")
	// ErrOverflow: the amount in minor units does not fit in an int64.
	ErrOverflow = errors.New("money: amount out of range")
)

// Mode says how a conversion treats excess precision and sign. Modes
// combine with |; the zero value, [Exact], refuses both.
type Mode uint8

const (
	// Exact refuses digits below the minor unit and negative amounts.
	Exact Mode = 0
	// HalfUp rounds digits below the minor unit half away from zero, in
	// decimal: 0.125 USD is 13, -0.125 USD is -13.
	HalfUp Mode = 1
	// AllowNegative accepts amounts below zero (refunds, discounts).
	AllowNegative Mode = 2
)

// maxDigits bounds the integer digits of a minor-unit amount before any
// arithmetic: an int64 has at most 19.
const maxDigits = 19

var decimalContext = apd.Context{
	Precision:   40, // 19 integer digits and room for rounding
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfUp,
}

// ParseMajor converts an amount in major units of currency, written as
// decimal text, to minor units: ParseMajor("62.4", "GBP", Exact) is 6240,
// ParseMajor("21", "USD", Exact) is 2100, ParseMajor("1.234", "KWD", Exact)
// is 1234. The text is a JSON number or plain decimal ("62.40", "2.1e1",
// "-3"), so a json.Number passes as string(n).
func ParseMajor(text, currency string, mode Mode) (int64, error) {
	exp, err := Exponent(currency)
	if err != nil {
		return 0, err
	}
	d, _, err := apd.NewFromString(text)
	if err != nil || d.Form != apd.Finite {
		return 0, fmt.Errorf("%w: %q", ErrSyntax, text)
	}
	return toMinor(d, exp, mode, text, currency)
}

// FromCents converts an amount in hundredths of a major unit, as Lyft
// quotes it ("estimated_cost_cents_min": 1561), to minor units of
// currency. For the two-digit currencies the providers quote in (USD, CAD)
// that is the same number; for others it is rescaled by the exponent, and
// a cents amount that is not a whole number of JPY is refused unless mode
// has [HalfUp].
func FromCents(cents int64, currency string, mode Mode) (int64, error) {
	exp, err := Exponent(currency)
	if err != nil {
		return 0, err
	}
	d := apd.New(cents, -2)
	return toMinor(d, exp, mode, fmt.Sprintf("%d cents", cents), currency)
}

// toMinor rescales d (in major units) to minor units with exponent exp.
func toMinor(d *apd.Decimal, exp int, mode Mode, text, currency string) (int64, error) {
	if d.Negative && !d.IsZero() && mode&AllowNegative == 0 {
		return 0, fmt.Errorf("%w: %q %s", ErrNegative, text, currency)
	}
	// Refuse huge magnitudes before scaling, so "1e99999" costs nothing:
	// the integer digits in minor units are NumDigits + Exponent + exp.
	if !d.IsZero() && d.NumDigits()+int64(d.Exponent)+int64(exp) > maxDigits {
		return 0, fmt.Errorf("%w: %q %s", ErrOverflow, text, currency)
	}
	var q apd.Decimal
	cond, err := decimalContext.Quantize(&q, d, int32(-exp))
	if err != nil {
		return 0, fmt.Errorf("%w: %q %s", ErrOverflow, text, currency)
	}
	if cond.Inexact() && mode&HalfUp == 0 {
		return 0, fmt.Errorf("%w: %q %s (%d decimal places)", ErrTooPrecise, text, currency, exp)
	}
	// q is now coefficient × 10^-exp: the coefficient is the amount.
	if !q.Coeff.IsInt64() {
		return 0, fmt.Errorf("%w: %q %s", ErrOverflow, text, currency)
	}
	n := q.Coeff.Int64()
	if q.Negative {
		n = -n
	}
	return n, nil
}

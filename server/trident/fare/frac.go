package fare

import (
	"fmt"
	"math/big"
	"regexp"
)

// frac is an exact non-negative fraction in lowest terms. Multipliers are
// written in the tariff as decimals or fractions ("0.99", "4/3") and kept
// exact, so that a quote is the same on every machine and a figure such as
// 4/3 needs no float approximation.
type frac struct{ num, den int64 }

// maxFracTerm bounds both terms so that meter × multiplier stays inside int64
// (see Tariff.fixedPrice).
const maxFracTerm = 1_000_000

var fracPattern = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,6})?(/[1-9][0-9]{0,5})?$`)

func parseFrac(s string) (frac, error) {
	if !fracPattern.MatchString(s) {
		return frac{}, fmt.Errorf("%q is not a decimal or fraction such as \"0.99\" or \"4/3\"", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return frac{}, fmt.Errorf("%q is not a number", s)
	}
	if !r.Num().IsInt64() || !r.Denom().IsInt64() ||
		r.Num().Int64() > maxFracTerm || r.Denom().Int64() > maxFracTerm {
		return frac{}, fmt.Errorf("%q has terms above %d in lowest terms", s, maxFracTerm)
	}
	return frac{num: r.Num().Int64(), den: r.Denom().Int64()}, nil
}

func (f frac) float() float64 { return float64(f.num) / float64(f.den) }

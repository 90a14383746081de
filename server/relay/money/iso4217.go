package money

import (
	_ "embed"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

//go:embed iso4217-list-one.xml
var listOne []byte

// exponents maps each active ISO 4217 code with a minor unit to its
// exponent; noMinorUnit holds the codes whose minor unit is "N.A." (gold,
// SDR, the testing code XTS...), which have no minor-unit amounts at all.
var exponents, noMinorUnit = mustParseListOne(listOne)

func mustParseListOne(data []byte) (map[string]int, map[string]bool) {
	exp, none, err := parseListOne(data)
	if err != nil {
		panic("money: embedded ISO 4217 list: " + err.Error())
	}
	return exp, none
}

// parseListOne reads ISO 4217 List One. A code appears once per country
// that uses it; every entry of a code must agree on its minor unit.
func parseListOne(data []byte) (map[string]int, map[string]bool, error) {
	var doc struct {
		Entries []struct {
			Code       string `xml:"Ccy"`
			MinorUnits string `xml:"CcyMnrUnts"`
		} `xml:"CcyTbl>CcyNtry"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	exp := make(map[string]int)
	none := make(map[string]bool)
	for _, e := range doc.Entries {
		code, units := strings.TrimSpace(e.Code), strings.TrimSpace(e.MinorUnits)
		if code == "" { // e.g. Antarctica: "No universal currency"
			continue
		}
		if !isCode(code) {
			return nil, nil, fmt.Errorf("bad currency code %q", code)
		}
		if units == "N.A." {
			if _, ok := exp[code]; ok {
				return nil, nil, fmt.Errorf("%s: conflicting minor units", code)
			}
			none[code] = true
			continue
		}
		n, err := strconv.Atoi(units)
		if err != nil || n < 0 || n > 4 {
			return nil, nil, fmt.Errorf("%s: bad minor unit %q", code, units)
		}
		if prev, ok := exp[code]; (ok && prev != n) || none[code] {
			return nil, nil, fmt.Errorf("%s: conflicting minor units", code)
		}
		exp[code] = n
	}
	if len(exp) == 0 {
		return nil, nil, fmt.Errorf("no currencies")
	}
	return exp, none, nil
}

func isCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// Exponent returns the ISO 4217 minor-unit exponent of code: 2 for GBP and
// USD (pence, cents), 0 for JPY, 3 for BHD and KWD. Codes must be upper
// case. It fails with [ErrUnknownCurrency] for a code that is not in the
// list and [ErrNoMinorUnit] for one whose minor unit ISO gives as "N.A."
// (XAU, XDR, XTS...).
func Exponent(code string) (int, error) {
	if n, ok := exponents[code]; ok {
		return n, nil
	}
	if noMinorUnit[code] {
		return 0, fmt.Errorf("%w: %q", ErrNoMinorUnit, code)
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownCurrency, code)
}

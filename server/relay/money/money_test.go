package money_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/relay/money"
)

func TestExponent(t *testing.T) {
	for code, want := range map[string]int{
		"JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0,
		"GBP": 2, "USD": 2, "EUR": 2, "CAD": 2,
		"BHD": 3, "KWD": 3, "IQD": 3, "JOD": 3, "OMR": 3, "TND": 3, "LYD": 3,
		"CLF": 4, "UYW": 4,
	} {
		got, err := money.Exponent(code)
		if err != nil || got != want {
			t.Errorf("Exponent(%s) = %d, %v; want %d", code, got, err, want)
		}
	}
	for code, want := range map[string]error{
		"XAU": money.ErrNoMinorUnit, "XTS": money.ErrNoMinorUnit, "XDR": money.ErrNoMinorUnit,
		"ZZZ": money.ErrUnknownCurrency, "gbp": money.ErrUnknownCurrency, "": money.ErrUnknownCurrency,
		"HRK": money.ErrUnknownCurrency, // withdrawn in 2023: not in List One
	} {
		if _, err := money.Exponent(code); !errors.Is(err, want) {
			t.Errorf("Exponent(%q) error = %v; want %v", code, err, want)
		}
	}
}

func TestParseMajor(t *testing.T) {
	tests := []struct {
		text, currency string
		mode           money.Mode
		want           int64
		err            error
	}{
		// The specification's figure: Trident's fareGBP 62.4 is 6240.
		{"62.4", "GBP", money.Exact, 6240, nil},
		{"62.40", "GBP", money.Exact, 6240, nil},
		{"62.400", "GBP", money.Exact, 6240, nil}, // trailing zeros are not precision
		// Uber's "low_estimate": 21 (a JSON integer in major units).
		{"21", "USD", money.Exact, 2100, nil},
		{"2.1e1", "USD", money.Exact, 2100, nil},
		{"21E0", "USD", money.Exact, 2100, nil},
		{"0", "USD", money.Exact, 0, nil},
		{"-0", "USD", money.Exact, 0, nil},
		{"0.01", "USD", money.Exact, 1, nil},
		{"1500", "JPY", money.Exact, 1500, nil},
		{"1.234", "BHD", money.Exact, 1234, nil},
		{"1.5", "KWD", money.Exact, 1500, nil},
		{"0.0001", "CLF", money.Exact, 1, nil},
		// Excess precision: refused, or rounded half up in decimal when asked.
		{"1500.5", "JPY", money.Exact, 0, money.ErrTooPrecise},
		{"1500.5", "JPY", money.HalfUp, 1501, nil},
		{"1500.49", "JPY", money.HalfUp, 1500, nil},
		{"0.125", "USD", money.Exact, 0, money.ErrTooPrecise},
		{"0.125", "USD", money.HalfUp, 13, nil},
		{"0.124999", "USD", money.HalfUp, 12, nil},
		{"0.995", "USD", money.HalfUp, 100, nil},
		{"1.2345", "KWD", money.HalfUp, 1235, nil},
		{"1e-9", "USD", money.HalfUp, 0, nil},
		// A value where float × 100 goes wrong: 1.005 × 100 = 100.49999...
		{"1.005", "USD", money.HalfUp, 101, nil},
		{"0.29", "USD", money.Exact, 29, nil}, // 0.29 × 100 = 28.999999999999996
		// Sign.
		{"-5", "USD", money.Exact, 0, money.ErrNegative},
		{"-5", "USD", money.AllowNegative, -500, nil},
		{"-0.125", "USD", money.HalfUp | money.AllowNegative, -13, nil},
		// Not finite, not a number.
		{"NaN", "USD", money.Exact, 0, money.ErrSyntax},
		{"Infinity", "USD", money.HalfUp, 0, money.ErrSyntax},
		{"-Inf", "USD", money.AllowNegative, 0, money.ErrSyntax},
		{"", "USD", money.Exact, 0, money.ErrSyntax},
		{"12,50", "EUR", money.Exact, 0, money.ErrSyntax},
		{"$12", "USD", money.Exact, 0, money.ErrSyntax},
		{" 12", "USD", money.Exact, 0, money.ErrSyntax},
		{"0x10", "USD", money.Exact, 0, money.ErrSyntax},
		// Range.
		{"92233720368547758.07", "USD", money.Exact, 9223372036854775807, nil},
		{"92233720368547758.08", "USD", money.Exact, 0, money.ErrOverflow},
		{"9223372036854775807", "JPY", money.Exact, 9223372036854775807, nil},
		{"9223372036854775808", "JPY", money.Exact, 0, money.ErrOverflow},
		{"1e17", "USD", money.Exact, 0, money.ErrOverflow},
		{"1e99999", "USD", money.Exact, 0, money.ErrOverflow},
		{"1e-99999", "USD", money.HalfUp, 0, nil},
		{"1e-99999", "USD", money.Exact, 0, money.ErrTooPrecise},
		// Currency.
		{"1", "XAU", money.Exact, 0, money.ErrNoMinorUnit},
		{"1", "usd", money.Exact, 0, money.ErrUnknownCurrency},
	}
	for _, tt := range tests {
		got, err := money.ParseMajor(tt.text, tt.currency, tt.mode)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ParseMajor(%q, %s, %d) = %d, %v; want %d, %v", tt.text, tt.currency, tt.mode, got, err, tt.want, tt.err)
		}
	}
}

// A JSON number decoded with UseNumber keeps the provider's exact text.
func TestParseMajorJSONNumber(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(`{"low_estimate": 21, "high_estimate": 26.5}`))
	dec.UseNumber()
	var v struct {
		Low  json.Number `json:"low_estimate"`
		High json.Number `json:"high_estimate"`
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	low, err1 := money.ParseMajor(string(v.Low), "USD", money.Exact)
	high, err2 := money.ParseMajor(string(v.High), "USD", money.Exact)
	if err1 != nil || err2 != nil || low != 2100 || high != 2650 {
		t.Fatalf("got %d, %d (%v, %v); want 2100, 2650", low, high, err1, err2)
	}
}

func TestFromCents(t *testing.T) {
	tests := []struct {
		cents    int64
		currency string
		mode     money.Mode
		want     int64
		err      error
	}{
		{1561, "USD", money.Exact, 1561, nil},
		{2355, "CAD", money.Exact, 2355, nil},
		{0, "USD", money.Exact, 0, nil},
		{150000, "JPY", money.Exact, 1500, nil},
		{150050, "JPY", money.Exact, 0, money.ErrTooPrecise},
		{150050, "JPY", money.HalfUp, 1501, nil},
		{1234, "KWD", money.Exact, 12340, nil},
		{-100, "USD", money.Exact, 0, money.ErrNegative},
		{-100, "USD", money.AllowNegative, -100, nil},
		{9223372036854775807, "USD", money.Exact, 9223372036854775807, nil},
		{9223372036854775807, "KWD", money.Exact, 0, money.ErrOverflow},
		{100, "XXX", money.Exact, 0, money.ErrNoMinorUnit},
		{100, "ABC", money.Exact, 0, money.ErrUnknownCurrency},
	}
	for _, tt := range tests {
		got, err := money.FromCents(tt.cents, tt.currency, tt.mode)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("FromCents(%d, %s, %d) = %d, %v; want %d, %v", tt.cents, tt.currency, tt.mode, got, err, tt.want, tt.err)
		}
	}
}

func FuzzParseMajor(f *testing.F) {
	for _, s := range []string{"62.4", "21", "1e5", "-0.125", "NaN", "9223372036854775807", "1e-99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := money.ParseMajor(s, "USD", money.HalfUp|money.AllowNegative)
		if err != nil {
			return
		}
		// An exact parse of what the rounded one produced round-trips.
		back, err := money.ParseMajor(minorText(n), "USD", money.AllowNegative)
		if err != nil || back != n {
			t.Fatalf("%q → %d → %q → %d, %v", s, n, minorText(n), back, err)
		}
	})
}

// minorText writes n USD cents as major-unit decimal text.
func minorText(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	return fmt.Sprintf("%s%d.%02d", sign, n/100, n%100)
}

package relay

import "testing"

func TestUntrusted(t *testing.T) {
	for in, want := range map[string]string{
		"UberX":                           "UberX",
		"  Uber\tX \n\n Comfort ":         "Uber X Comfort",
		"a\x00b\x1bc\u202ed\u200be\ufeff": "abcde",
		"\xff\xfeok":                      "ok",
	} {
		if got := untrusted(in, 100); got == nil || *got != want {
			t.Errorf("untrusted(%q) = %v, want %q", in, got, want)
		}
	}
	if got := untrusted("\x00\u200b  ", 10); got != nil {
		t.Errorf("only control characters: %q, want nil", *got)
	}
	if got := untrusted("abcdef", 3); *got != "abc" {
		t.Errorf("cut: %q", *got)
	}
}

func TestDecimalToMinor(t *testing.T) {
	for in, want := range map[string]int64{"62.4": 6240, "62.40": 6240, "0": 0, "1000": 100000, "0.05": 5} {
		if got, err := decimalToMinor(in, 2); err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", in, got, err, want)
		}
	}
	if got, _ := decimalToMinor("1500", 0); got != 1500 {
		t.Errorf("JPY: %d", got)
	}
	for _, bad := range []string{"62.401", "-1", "1e3", "", ".5", "1.2.3", "99999999999999999999"} {
		if _, err := decimalToMinor(bad, 2); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

package sources

import "testing"

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

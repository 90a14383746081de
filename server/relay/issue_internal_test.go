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

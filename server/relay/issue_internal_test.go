package relay

import (
	"testing"
	"time"
)

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

// Ids grow with time (their first six bytes are the millisecond) and keep
// 80 random bits: two minted in one millisecond differ, and one minted
// later sorts after.
func TestRandomIDOrdered(t *testing.T) {
	a, b := randomID("ses"), randomID("ses")
	if len(a) != len("ses_")+32 || a == b || a[:4] != "ses_" {
		t.Fatalf("ids %q %q: want ses_ and 32 distinct hex digits", a, b)
	}
	time.Sleep(2 * time.Millisecond)
	if c := randomID("ses"); c <= a || c[:4+12] <= a[:4+12] {
		t.Errorf("id %q minted later does not sort after %q", c, a)
	}
}

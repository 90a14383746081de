package relay

import (
	"testing"
	"time"
)

func TestInWords(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute:              "5 minutes",
		time.Minute + 30*time.Second: "1 minute 30 seconds",
		45 * time.Second:             "45 seconds",
		time.Second:                  "1 second",
		2*time.Hour + 1*time.Minute:  "2 hours 1 minute",
		1500 * time.Millisecond:      "2 seconds",
	} {
		if got := inWords(d); got != want {
			t.Errorf("inWords(%s) = %q, want %q", d, got, want)
		}
	}
}

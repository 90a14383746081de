package geo

import (
	"context"
	"errors"
	"testing"
)

// FuzzGeocode checks that no input panics the address parser and that every
// answer is either a place with valid coordinates or ErrNoMatch.
func FuzzGeocode(f *testing.F) {
	for _, s := range []string{
		"Helensburgh Central Station, Helensburgh G84 7HL", "Glasgow Airport (GLA), Paisley PA3 2SW",
		"GLA", "G84 7HL", "g847hl", "PA3", "12 Sinclair Street, Helensburgh", "Paris, France", "xxx", "",
		"Ynys Môn", "Hunter's Quay", "((((,,,;;;", "A1 1AA B2 2BB C3 3CC", "\xff\xfe", "Balloch, Highland",
		"SW1A 1AA", "EC1A1BB", "the the the the the the the the the", "Stoke-on-Trent & Newcastle-under-Lyme",
	} {
		f.Add(s)
	}
	g, err := NewEmbeddedGeocoder()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p, err := g.Geocode(context.Background(), q)
		if err != nil {
			if !errors.Is(err, ErrNoMatch) {
				t.Fatalf("Geocode(%q): error %v is not ErrNoMatch", q, err)
			}
			return
		}
		if !p.Valid() || p.Name == "" || p.Kind == "" {
			t.Fatalf("Geocode(%q) = %+v: invalid place", q, p)
		}
		if p.Lat < 49 || p.Lat > 61 || p.Lon < -11 || p.Lon > 2 {
			t.Fatalf("Geocode(%q) = %+v: outside the British Isles", q, p)
		}
	})
}

package geo

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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

// replySeeds are the recorded replies under testdata/ (both engines'), plus
// shapes a broken or hostile engine sends.
func replySeeds(f *testing.F, dir string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no recorded replies under testdata/%s: %v", dir, err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(200, b)
		f.Add(400, b)
	}
	for _, s := range []string{
		"", "[]", "{}", "null", `[{"lat":"NaN","lon":"1"}]`, `[{"lat":"1e999","lon":"0"}]`, `[{"lat":"-91","lon":"0"}]`,
		`{"code":"Ok","routes":[{"distance":-1,"duration":1}]}`, `{"code":"Ok","routes":[{"distance":1e300,"duration":1}]}`,
		`{"code":"Ok","routes":[{"distance":"far"}]}`, strings.Repeat("[", 20000), `[{"name":"\u0000\u001b[31m","lat":"56","lon":"-4.7"}]`,
	} {
		f.Add(200, []byte(s))
	}
}

// FuzzReadNominatim checks that no reply panics the Nominatim reader and
// that every answer is a place on the globe with a short, printable name,
// or an error of one of the two classes.
func FuzzReadNominatim(f *testing.F) {
	replySeeds(f, "nominatim")
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		p, err := readNominatim(reply{status: status, body: body}, "http://nominatim.test/search", "q")
		if err != nil {
			if !errors.Is(err, ErrUnavailable) && !errors.Is(err, ErrNoMatch) {
				t.Fatalf("error %v is neither ErrUnavailable nor ErrNoMatch", err)
			}
			return
		}
		if status < 200 || status > 299 || !p.Valid() || math.IsInf(p.Lat, 0) || math.IsInf(p.Lon, 0) {
			t.Fatalf("status %d: accepted %+v", status, p)
		}
		if utf8.RuneCountInString(p.Name) > 200 || !utf8.ValidString(p.Name) || strings.ContainsFunc(p.Name, unicode.IsControl) {
			t.Fatalf("name %q is not fit to show", p.Name)
		}
		if p.IATA != "" && len(p.IATA) != 3 {
			t.Fatalf("IATA code %q", p.IATA)
		}
	})
}

// FuzzReadOSRM checks that no reply panics the OSRM reader and that every
// route it accepts is finite, non-negative and shorter than the equator.
func FuzzReadOSRM(f *testing.F) {
	replySeeds(f, "osrm")
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		r, err := readOSRM(reply{status: status, body: body}, "http://osrm.test/route/v1/driving/0,0;1,1")
		if err != nil {
			if !errors.Is(err, ErrUnavailable) && !errors.Is(err, ErrNoMatch) {
				t.Fatalf("error %v is neither ErrUnavailable nor ErrNoMatch", err)
			}
			return
		}
		if status < 200 || status > 299 || !(r.DistanceMeters >= 0 && r.DistanceMeters <= maxRouteMeters) || !(r.DurationSeconds >= 0) || math.IsInf(r.DurationSeconds, 0) {
			t.Fatalf("status %d: accepted %+v", status, r)
		}
	})
}

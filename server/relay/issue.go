package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

// errExpired is an option past its expires_at.
var errExpired = errors.New("relay: option expired")

// requestScope is the digest of what an option answers (route and party
// size), so that compare_rides never ranks prices for different trips
// against each other. Its text is "lat,lng;lat,lng;party", written into a
// stack buffer and hashed at once: fmt.Fprintf into a sha256.New was 19 of
// the 116 µs a search spent issuing its six options in a profile under load.
func requestScope(t sources.Trip) string {
	var text [128]byte
	b := registry.AppendCoordinate(text[:0], t.Pickup.Latitude)
	b = append(b, ',')
	b = registry.AppendCoordinate(b, t.Pickup.Longitude)
	b = append(b, ';')
	b = registry.AppendCoordinate(b, t.Dropoff.Latitude)
	b = append(b, ',')
	b = registry.AppendCoordinate(b, t.Dropoff.Longitude)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(t.PartySize), 10)
	sum := sha256.Sum256(b)
	var scope [len("rs_") + 2*12]byte
	copy(scope[:], "rs_")
	hex.Encode(scope[len("rs_"):], sum[:12])
	return string(scope[:])
}

// timestamp writes t as RFC 3339 in UTC to the second: the one spelling
// options carry, so the signed bytes are the shown bytes.
func timestamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// issue turns a source's quote into a signed option bound to b. It expires
// at the option TTL or the provider's deadline, whichever is first.
func (s *endpoint) issue(b signing.Binding, p registry.Provider, trip sources.Trip, q sources.Quote) (mcptypes.RideOption, error) {
	now := s.now().UTC().Truncate(time.Second)
	exp := now.Add(s.ttl)
	if !q.Deadline.IsZero() && q.Deadline.Before(exp) {
		exp = q.Deadline.UTC().Truncate(time.Second)
	}
	mode := q.DataMode
	if mode == "" {
		mode = mcptypes.RideOptionDataModeUnknown
		if p.API != nil && p.API.DataMode != "" {
			mode = mcptypes.RideOptionDataMode(p.API.DataMode)
		}
	}
	var party *int64
	if trip.PartySize > 0 {
		n := int64(trip.PartySize)
		party = &n
	}
	o := mcptypes.RideOption{
		OptionID:        s.newID("opt"),
		Provider:        p.ID,
		Product:         q.Product,
		ExceedsCapacity: exceedsCapacity(trip.PartySize, q.Product.Capacity),
		Price:           q.Price,
		DataMode:        mode,
		RequestScope:    requestScope(trip),
		Request:         mcptypes.RideRequest{Pickup: trip.Pickup, Dropoff: trip.Dropoff, PartySize: party},
		DurationSeconds: q.DurationSeconds,
		DistanceMeters:  q.DistanceMeters,
		EtaSeconds:      q.ETASeconds,
		ProviderText:    mcptypes.ProviderText{Title: untrusted(q.Title, 200), Description: untrusted(q.Description, 1000)},
		Attribution:     p.Attribution,
		IssuedAt:        timestamp(now),
		ExpiresAt:       timestamp(exp),
	}
	if name := untrusted(o.Product.Name, 128); name != nil {
		o.Product.Name = *name
	} else {
		o.Product.Name = o.Product.ID
	}
	return o, s.keys.SignOption(b, &o)
}

// verifyOption checks that o is unchanged since Relay issued it for b and
// has not expired.
func (s *endpoint) verifyOption(b signing.Binding, o mcptypes.RideOption) error {
	if err := s.keys.VerifyOption(b, o); err != nil {
		return fmt.Errorf("%w: %w", errSignature, err)
	}
	exp, err := time.Parse(time.RFC3339, o.ExpiresAt)
	if err != nil {
		return fmt.Errorf("relay: expires_at: %w", err)
	}
	if !s.now().Before(exp) {
		return errExpired
	}
	return nil
}

// tripOf is the trip an option answers, as signed into it.
func (s *endpoint) tripOf(p registry.Provider, o mcptypes.RideOption) sources.Trip {
	t := sources.Trip{Pickup: o.Request.Pickup, Dropoff: o.Request.Dropoff}
	if o.Request.PartySize != nil {
		t.PartySize = int(*o.Request.PartySize)
	}
	t.Products = productsFor(p)
	return t
}

// productsFor lists every registry product of p, whatever the party: the
// specification's party_size "does not select a vehicle", so a party of
// eight still sees the saloon, priced and flagged (exceeds_capacity), and
// the assistant and the passenger decide (two cars, or the MPV and a
// saloon).
func productsFor(p registry.Provider) []registry.ProductEntry {
	return append([]registry.ProductEntry(nil), p.Products...)
}

// exceedsCapacity reports whether a party of party (0: unknown) is more
// than the product seats (nil: the provider does not say).
func exceedsCapacity(party int, capacity *int64) bool {
	return party > 0 && capacity != nil && int64(party) > *capacity
}

// untrusted cleans provider text (titles, descriptions) for the
// provider_text field: invalid UTF-8, control and format characters
// (including bidirectional overrides and zero-width joiners, which can hide
// text from a reader) are removed, whitespace runs collapse to one space,
// and the result is cut to max runes. It is carried as data in its own
// field and never interpolated into text meant as instructions.
func untrusted(s string, max int) *string {
	if kept(s, max) {
		return &s
	}
	var b strings.Builder
	if size := min(len(s), utf8.UTFMax*max); size > 0 {
		b.Grow(size) // what it keeps, so that it is allocated once
	}
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if dropped(r) {
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

// kept reports whether untrusted leaves s as it is: at most max runes, none
// dropped, and no whitespace but single spaces between words. Most provider
// text is, and building its copy rune by rune was 23 of the 116 µs a search
// spent issuing its six options in a profile under load.
func kept(s string, max int) bool {
	n := 0
	space := true // a leading space is cut
	for _, r := range s {
		switch {
		case r > ' ' && r < utf8.RuneSelf-1: // printable ASCII other than the space
			space = false
		case r == ' ' && !space:
			space = true
		case r >= utf8.RuneSelf && !unicode.IsSpace(r) && !dropped(r):
			space = false
		default:
			return false
		}
		n++
	}
	return n > 0 && n <= max && !space
}

// dropped reports whether untrusted removes r: an invalid byte (decoded as
// U+FFFD, which goes too), a control or a format character.
func dropped(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

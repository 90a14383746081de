package signing

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// The signed message is the bytes encoding/json gives for
//
//	struct {
//		Domain  string  `json:"domain"`
//		Binding Binding `json:"binding"`
//		Object  any     `json:"object"`
//	}
//
// holding the generated struct of the object with its signature blanked:
// fields in schema order, no insignificant whitespace, one spelling per
// value (HTML characters escaped, as json.Marshal does), and unknown fields
// already refused by the input schema. Replicas of every version must agree
// on these bytes, or a rolling upgrade breaks the options in flight.
//
// encoder writes those bytes by hand for the two signed objects: through
// reflection, json.Marshal was 51 of the 116 µs a search spent issuing its
// six options in a profile under load, and by hand (with the pooled HMACs
// of [signer]) BenchmarkSignSixOptions takes 29 µs instead of 78, with 6
// allocations instead of 66 (a json.Encoder into a pooled buffer: 58 µs).
// TestMessageIsEncodingJSON compares the two over every field, set and
// unset, and FuzzMessageIsEncodingJSON over any strings and numbers.
type encoder struct {
	buf []byte
	err error // the first value encoding/json refuses, as it reports it
}

// message writes domain, b and the object that object writes.
func (e *encoder) message(domain string, b Binding, object func(*encoder)) {
	e.raw(`{"domain":`)
	e.text(domain)
	e.raw(`,"binding":{"actor":`)
	e.text(b.Actor)
	e.raw(`,"session_id":`)
	e.text(b.SessionID)
	e.raw(`,"journey_id":`)
	e.text(b.JourneyID)
	e.raw(`},"object":`)
	object(e)
	e.raw(`}`)
}

func (e *encoder) option(o mcptypes.RideOption) {
	e.raw(`{"option_id":`)
	e.text(o.OptionID)
	e.raw(`,"provider":`)
	e.text(o.Provider)
	e.raw(`,"product":{"id":`)
	e.text(o.Product.ID)
	e.raw(`,"name":`)
	e.text(o.Product.Name)
	e.raw(`,"capacity":`)
	e.integer(o.Product.Capacity)
	e.raw(`},"exceeds_capacity":`)
	e.boolean(&o.ExceedsCapacity)
	e.raw(`,"price":{"amount_minor":`)
	e.integer(&o.Price.AmountMinor)
	e.raw(`,"amount_minor_max":`)
	e.integer(o.Price.AmountMinorMax)
	e.raw(`,"currency":`)
	e.text(o.Price.Currency)
	e.raw(`,"basis":`)
	e.text(string(o.Price.Basis))
	e.raw(`,"taxes_included":`)
	e.boolean(o.Price.TaxesIncluded)
	e.raw(`,"fees_included":`)
	e.boolean(o.Price.FeesIncluded)
	e.raw(`},"data_mode":`)
	e.text(string(o.DataMode))
	e.raw(`,"request_scope":`)
	e.text(o.RequestScope)
	e.raw(`,"request":{"pickup":`)
	e.coordinates(o.Request.Pickup)
	e.raw(`,"dropoff":`)
	e.coordinates(o.Request.Dropoff)
	e.raw(`,"party_size":`)
	e.integer(o.Request.PartySize)
	e.raw(`},"duration_seconds":`)
	e.integer(o.DurationSeconds)
	e.raw(`,"distance_meters":`)
	e.integer(o.DistanceMeters)
	e.raw(`,"eta_seconds":`)
	e.integer(o.EtaSeconds)
	e.raw(`,"provider_text":{"title":`)
	e.optText(o.ProviderText.Title)
	e.raw(`,"description":`)
	e.optText(o.ProviderText.Description)
	e.raw(`},"attribution":`)
	e.text(o.Attribution)
	e.raw(`,"issued_at":`)
	e.text(o.IssuedAt)
	e.raw(`,"expires_at":`)
	e.text(o.ExpiresAt)
	e.raw(`,"verification":`)
	e.verification(o.Verification)
	e.raw(`}`)
}

func (e *encoder) context(c mcptypes.RelayContext) {
	e.raw(`{"session_id":`)
	e.text(c.SessionID)
	e.raw(`,"journey_id":`)
	e.text(c.JourneyID)
	e.raw(`,"intent_id":`)
	e.text(c.IntentID)
	e.raw(`,"request_id":`)
	e.text(c.RequestID)
	e.raw(`,"verification":`)
	e.verification(c.Verification)
	e.raw(`}`)
}

func (e *encoder) verification(v mcptypes.Verification) {
	e.raw(`{"kid":`)
	e.text(v.Kid)
	e.raw(`,"alg":`)
	e.text(string(v.Alg))
	e.raw(`,"signature":`)
	e.text(v.Signature)
	e.raw(`}`)
}

func (e *encoder) coordinates(c mcptypes.Coordinates) {
	e.raw(`{"latitude":`)
	e.number(c.Latitude)
	e.raw(`,"longitude":`)
	e.number(c.Longitude)
	e.raw(`}`)
}

func (e *encoder) raw(s string) { e.buf = append(e.buf, s...) }

func (e *encoder) integer(p *int64) {
	if p == nil {
		e.raw("null")
		return
	}
	e.buf = strconv.AppendInt(e.buf, *p, 10)
}

func (e *encoder) boolean(p *bool) {
	switch {
	case p == nil:
		e.raw("null")
	case *p:
		e.raw("true")
	default:
		e.raw("false")
	}
}

func (e *encoder) optText(p *string) {
	if p == nil {
		e.raw("null")
		return
	}
	e.text(*p)
}

// number is encoding/json's float64: the shortest decimal, in exponent form
// below 1e-6 and from 1e21, with the exponent unpadded; NaN and the
// infinities are refused as it refuses them.
func (e *encoder) number(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if e.err == nil {
			e.err = &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
		}
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, 64)
	if n := len(e.buf); format == 'e' && n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
		e.buf[n-2] = e.buf[n-1] // e-07 is written e-7
		e.buf = e.buf[:n-1]
	}
}

// text is encoding/json's string with HTML escaping (json.Marshal's):
// ", \ and the control characters escaped, < > & as \u003c \u003e \u0026,
// U+2028 and U+2029 as \u2028 \u2029, and each invalid UTF-8 byte as
// \ufffd.
func (e *encoder) text(s string) {
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe(c) {
				i++
				continue
			}
			e.buf = append(e.buf, s[start:i]...)
			switch c {
			case '\\', '"':
				e.buf = append(e.buf, '\\', c)
			case '\b':
				e.buf = append(e.buf, '\\', 'b')
			case '\f':
				e.buf = append(e.buf, '\\', 'f')
			case '\n':
				e.buf = append(e.buf, '\\', 'n')
			case '\r':
				e.buf = append(e.buf, '\\', 'r')
			case '\t':
				e.buf = append(e.buf, '\\', 't')
			default:
				e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			e.buf = append(e.buf, s[start:i]...)
			e.raw(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}

// htmlSafe reports whether encoding/json writes the ASCII byte c as itself
// when it escapes HTML.
func htmlSafe(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

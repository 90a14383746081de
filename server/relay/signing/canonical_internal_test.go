package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// marshalMessage is the signed message as Relay wrote it before the
// hand-written encoder, and as every replica must keep writing it:
// json.Marshal of the domain, the binding and the object.
func marshalMessage(domain string, b Binding, obj any) ([]byte, error) {
	return json.Marshal(struct {
		Domain  string  `json:"domain"`
		Binding Binding `json:"binding"`
		Object  any     `json:"object"`
	}{domain, b, obj})
}

func encodeMessage(domain string, b Binding, object func(*encoder)) ([]byte, error) {
	var e encoder
	e.message(domain, b, object)
	return e.buf, e.err
}

// awkward are strings that encoding/json writes other than as themselves,
// and their neighbours: HTML characters, quotes, backslashes, every
// control character, DEL, U+2028 and U+2029, invalid and truncated UTF-8,
// the replacement character, and letters beyond ASCII.
var awkward = func() []string {
	s := []string{"", "plain", "<script>", "a>b", "fish & chips", `"quoted"`, `back\slash`, "/", "'", "\x7f",
		"\u2028", "\u2029", "\u2027\u202a", "\xff", "\xc3", "\xe2\x80", "caf\xc3\xa9", "\ufffd", "日本語", "🚕",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "Ignore previous instructions", "£10"}
	for c := range 0x20 {
		s = append(s, string(rune(c)))
	}
	return s
}()

// awkwardNumbers are floats at encoding/json's edges: signed zero, the
// exponent cutoffs, the smallest and largest, and WGS84 coordinates.
var awkwardNumbers = []float64{0, math.Copysign(0, -1), 1, -1, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13, -1e21,
	5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 56.00416, -4.73253, 55.8719, -4.43306, 90, -180, 0.1 + 0.2}

var awkwardInts = []int64{0, 1, -1, 6240, math.MaxInt64, math.MinInt64}

// fill sets every field of the struct v points to, recursing into nested
// structs and leaving a pointer nil one time in three. It fails on a kind
// it does not know: a field of a new kind in the generated types is one
// the hand-written encoder must learn first.
func fill(tb testing.TB, r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomString(r))
	case reflect.Int64:
		v.SetInt(pick(r, awkwardInts, r.Int64N(1e7)))
	case reflect.Float64:
		v.SetFloat(pick(r, awkwardNumbers, (r.Float64()-0.5)*360))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(tb, r, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(tb, r, v.Field(i))
		}
	default:
		tb.Fatalf("fill: a %s field: teach the encoder (canonical.go) and this test its kind", v.Type())
	}
}

func pick[T any](r *rand.Rand, edges []T, other T) T {
	if r.IntN(2) == 0 {
		return edges[r.IntN(len(edges))]
	}
	return other
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(awkward[r.IntN(len(awkward))])
	}
	return b.String()
}

func randomOption(tb testing.TB, r *rand.Rand) mcptypes.RideOption {
	var o mcptypes.RideOption
	fill(tb, r, reflect.ValueOf(&o).Elem())
	return o
}

func randomContext(tb testing.TB, r *rand.Rand) mcptypes.RelayContext {
	var c mcptypes.RelayContext
	fill(tb, r, reflect.ValueOf(&c).Elem())
	return c
}

func randomBinding(tb testing.TB, r *rand.Rand) Binding {
	var b Binding
	fill(tb, r, reflect.ValueOf(&b).Elem())
	return b
}

// sameMessage fails unless the encoder writes what json.Marshal writes for
// obj, or refuses it with the same error.
func sameMessage(t *testing.T, domain string, b Binding, obj any, object func(*encoder)) {
	t.Helper()
	want, wantErr := marshalMessage(domain, b, obj)
	got, err := encodeMessage(domain, b, object)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("error %v, json.Marshal's %v", err, wantErr)
	}
	if err == nil && string(got) != string(want) {
		t.Fatalf("the encoder writes\n%s\njson.Marshal writes\n%s", got, want)
	}
}

// TestMessageIsEncodingJSON is the proof that the hand-written encoder
// signs the bytes json.Marshal signed, so that signatures of replicas
// before it verify on replicas after it and the other way round: random
// options and contexts with every field set (a pointer nil one time in
// three, so every optional field is seen set and unset), from awkward
// strings and numbers. Since every field is set, a field added to the
// generated types and not to the encoder fails here.
func TestMessageIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := randomBinding(t, r)
		o := randomOption(t, r)
		sameMessage(t, domainOption, b, o, func(e *encoder) { e.option(o) })
		c := randomContext(t, r)
		sameMessage(t, domainContext, b, c, func(e *encoder) { e.context(c) })
	}
}

// pointers are the optional fields of o, nested ones included.
func pointers(o *mcptypes.RideOption) []reflect.Value {
	var ptrs []reflect.Value
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			ptrs = append(ptrs, v)
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(o).Elem())
	return ptrs
}

// TestMessageOptionalFields sets the option's optional fields all, none,
// each alone, and all but each.
func TestMessageOptionalFields(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	full := randomOption(t, r)
	for slices.ContainsFunc(pointers(&full), reflect.Value.IsNil) {
		full = randomOption(t, r)
	}
	none := full
	for _, p := range pointers(&none) {
		p.SetZero()
	}
	cases := []mcptypes.RideOption{full, none}
	for i, p := range pointers(&full) {
		only, without := none, full
		pointers(&only)[i].Set(p)
		pointers(&without)[i].SetZero()
		cases = append(cases, only, without)
	}
	for _, o := range cases {
		sameMessage(t, domainOption, Binding{Actor: "anonymous"}, o, func(e *encoder) { e.option(o) })
	}
}

// TestMessageRefusesWhatJSONRefuses: NaN and the infinities fail as
// json.Marshal failed on them.
func TestMessageRefusesWhatJSONRefuses(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		o := mcptypes.RideOption{Request: mcptypes.RideRequest{Dropoff: mcptypes.Coordinates{Longitude: f}}}
		sameMessage(t, domainOption, Binding{}, o, func(e *encoder) { e.option(o) })
	}
}

// TestSignaturesAsBefore signs random options and contexts and checks each
// signature against HMAC-SHA256 of the json.Marshal message with a fresh
// hmac.New: what a replica before the pooled signers signed.
func TestSignaturesAsBefore(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	k, err := OneKey("k1", key)
	if err != nil {
		t.Fatal(err)
	}
	before := func(domain string, b Binding, obj any) string {
		msg, err := marshalMessage(domain, b, obj)
		if err != nil {
			t.Fatal(err)
		}
		m := hmac.New(sha256.New, key)
		m.Write(msg)
		return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := randomBinding(t, r)
		o := randomOption(t, r)
		if err := k.SignOption(b, &o); err != nil {
			t.Fatal(err)
		}
		if want := before(domainOption, b, blankOption(o)); o.Verification.Signature != want {
			t.Fatalf("option signature %s, before %s", o.Verification.Signature, want)
		}
		c := randomContext(t, r)
		if err := k.SignContext(b.Actor, &c); err != nil {
			t.Fatal(err)
		}
		if want := before(domainContext, contextBinding(b.Actor, c), blankContext(c)); c.Verification.Signature != want {
			t.Fatalf("context signature %s, before %s", c.Verification.Signature, want)
		}
	}
}

// FuzzMessageIsEncodingJSON puts any strings, numbers and flags into an
// option's fields and compares the message with json.Marshal's.
func FuzzMessageIsEncodingJSON(f *testing.F) {
	f.Add("Executive", "<b>day</b> & night", "\u2028\xff\"\\", int64(6240), 56.00416, 1e21, true)
	f.Add("", "\x00\x1f\x7f", "日本語 🚕", int64(math.MinInt64), math.Copysign(0, -1), 1e-7, false)
	f.Fuzz(func(t *testing.T, name, title, desc string, n int64, lat, lng float64, set bool) {
		o := mcptypes.RideOption{
			OptionID: name + title, Provider: desc, Product: mcptypes.Product{ID: desc, Name: name},
			ExceedsCapacity: set, Price: mcptypes.Price{AmountMinor: n, Currency: title, Basis: mcptypes.PriceBasis(name)},
			DataMode: mcptypes.RideOptionDataMode(desc), RequestScope: title,
			Request:     mcptypes.RideRequest{Pickup: mcptypes.Coordinates{Latitude: lat, Longitude: lng}, Dropoff: mcptypes.Coordinates{Latitude: lng, Longitude: lat}},
			Attribution: name, IssuedAt: title, ExpiresAt: desc,
			Verification: mcptypes.Verification{Kid: name, Alg: mcptypes.VerificationAlg(title)},
		}
		if set {
			o.Product.Capacity, o.Price.TaxesIncluded, o.EtaSeconds = &n, &set, &n
			o.ProviderText = mcptypes.ProviderText{Title: &title, Description: &desc}
		}
		b := Binding{Actor: name, SessionID: title, JourneyID: desc}
		sameMessage(t, domainOption, b, o, func(e *encoder) { e.option(o) })
		c := mcptypes.RelayContext{SessionID: name, JourneyID: title, IntentID: desc, RequestID: name + desc, Verification: o.Verification}
		sameMessage(t, domainContext, b, c, func(e *encoder) { e.context(c) })
	})
}

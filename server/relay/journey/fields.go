package journey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The shared journey fields, by their wire names.
const (
	FieldOriginCity         = "origin_city"
	FieldDestinationCity    = "destination_city"
	FieldOriginAirport      = "origin_airport"
	FieldDestinationAirport = "destination_airport"
	FieldStartDate          = "start_date"
	FieldEndDate            = "end_date"
	FieldPartySize          = "party_size"
	FieldCurrency           = "currency"
)

// FieldNames lists the shared journey fields in the specification's order.
var FieldNames = []string{
	FieldOriginCity, FieldDestinationCity, FieldOriginAirport, FieldDestinationAirport,
	FieldStartDate, FieldEndDate, FieldPartySize, FieldCurrency,
}

// Fields are the shared journey fields: the minimised context a journey
// carries from one call to the next and into the host's other connectors.
// An empty string or nil PartySize is an unknown field. There is no field
// for coordinates, so a journey context (and continuation_context, which is
// one) cannot hold them.
type Fields struct {
	OriginCity         string `json:"origin_city,omitempty"`
	DestinationCity    string `json:"destination_city,omitempty"`
	OriginAirport      string `json:"origin_airport,omitempty"`
	DestinationAirport string `json:"destination_airport,omitempty"`
	StartDate          string `json:"start_date,omitempty"`
	EndDate            string `json:"end_date,omitempty"`
	PartySize          *int   `json:"party_size,omitempty"`
	Currency           string `json:"currency,omitempty"`
}

// Value returns a field by its wire name, and whether it is known: a
// string, or an int for party_size.
func (f Fields) Value(name string) (any, bool) {
	var s string
	switch name {
	case FieldOriginCity:
		s = f.OriginCity
	case FieldDestinationCity:
		s = f.DestinationCity
	case FieldOriginAirport:
		s = f.OriginAirport
	case FieldDestinationAirport:
		s = f.DestinationAirport
	case FieldStartDate:
		s = f.StartDate
	case FieldEndDate:
		s = f.EndDate
	case FieldCurrency:
		s = f.Currency
	case FieldPartySize:
		if f.PartySize == nil {
			return nil, false
		}
		return *f.PartySize, true
	default:
		return nil, false
	}
	return s, s != ""
}

// FieldError is one field that failed validation, named as the caller sent
// it (see [FieldErrors.At]).
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// FieldErrors is every field that failed, in field order. Relay answers it
// as invalid_arguments with the offending fields.
type FieldErrors []FieldError

func (e FieldErrors) Error() string {
	parts := make([]string, len(e))
	for i, fe := range e {
		parts[i] = fe.Field + ": " + fe.Reason
	}
	return strings.Join(parts, "; ")
}

// Fields lists the offending field names.
func (e FieldErrors) Fields() []string {
	out := make([]string, len(e))
	for i, fe := range e {
		out[i] = fe.Field
	}
	return out
}

// At names the fields as members of an argument, e.g. At("journey_context")
// turns "start_date" into "journey_context.start_date". Empty: unchanged.
func (e FieldErrors) At(argument string) FieldErrors {
	if argument == "" || len(e) == 0 {
		return e
	}
	out := make(FieldErrors, len(e))
	for i, fe := range e {
		out[i] = FieldError{Field: argument + "." + fe.Field, Reason: fe.Reason}
	}
	return out
}

// err returns nil for no errors, so that callers can compare with nil.
func (e FieldErrors) err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// Decode reads a journey_context object strictly: a member that is not a
// shared journey field (a payment detail, a coordinate, conversation text) is
// refused rather than dropped, so the caller learns it sent too much; null
// means unknown. The result is not yet validated: see [Fields.Validate].
func Decode(raw json.RawMessage) (Fields, error) {
	var f Fields
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return f, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return Fields{}, FieldErrors{{Field: "journey_context", Reason: "must be an object of shared journey fields"}}
	}
	var errs FieldErrors
	for _, name := range sortedKeys(members) {
		v := members[name]
		if string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		if name == FieldPartySize {
			var n json.Number
			var i int64
			// json.Number also takes "2" in quotes; a count must be a number.
			if bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) || json.Unmarshal(v, &n) != nil || !integer(n, &i) {
				errs = append(errs, FieldError{name, "must be an integer from 1 to 8"})
				continue
			}
			size := int(i)
			f.PartySize = &size
			continue
		}
		target := f.stringField(name)
		if target == nil {
			errs = append(errs, FieldError{name, "is not a shared journey field (" + strings.Join(FieldNames, ", ") + ")"})
			continue
		}
		if json.Unmarshal(v, target) != nil {
			errs = append(errs, FieldError{name, "must be a string"})
		}
	}
	if len(errs) > 0 {
		return Fields{}, errs
	}
	return f, nil
}

func integer(n json.Number, out *int64) bool {
	i, err := n.Int64()
	if err != nil || i < -1<<31 || i > 1<<31-1 {
		return false
	}
	*out = i
	return true
}

func sortedKeys(m map[string]json.RawMessage) []string {
	// Field order for known names, then the rest alphabetically: errors read
	// in a stable order.
	var out []string
	for _, n := range FieldNames {
		if _, ok := m[n]; ok {
			out = append(out, n)
		}
	}
	var rest []string
	for k := range m {
		if (&Fields{}).stringField(k) == nil && k != FieldPartySize {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func (f *Fields) stringField(name string) *string {
	switch name {
	case FieldOriginCity:
		return &f.OriginCity
	case FieldDestinationCity:
		return &f.DestinationCity
	case FieldOriginAirport:
		return &f.OriginAirport
	case FieldDestinationAirport:
		return &f.DestinationAirport
	case FieldStartDate:
		return &f.StartDate
	case FieldEndDate:
		return &f.EndDate
	case FieldCurrency:
		return &f.Currency
	}
	return nil
}

var (
	// IATA location codes are three letters; the specification asks for
	// explicit codes, so a lower-case or city-name value is refused rather
	// than guessed at.
	iataPattern     = regexp.MustCompile(`^[A-Z]{3}$`)
	currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)
	// A latitude,longitude pair anywhere in a city value: a city is
	// city-level context, and coordinates must not ride along in it.
	coordinatePattern = regexp.MustCompile(`[-+]?\d{1,3}\.\d+\s*[,;/ ]\s*[-+]?\d{1,3}\.\d+`)
)

// MaxCityLength bounds a city value: a name, not a description.
const MaxCityLength = 100

// Party sizes the specification allows.
const (
	MinPartySize = 1
	MaxPartySize = 8
)

// Validate checks every known field: cities are names (not blank, not
// coordinates, no control characters, at most [MaxCityLength] characters),
// airports explicit IATA codes (three capital letters), dates ISO 8601
// calendar dates (YYYY-MM-DD) with end_date not before start_date, party_size
// from 1 to 8, currency three capital letters. Fields are named bare
// ("start_date"); see [FieldErrors.At].
func (f Fields) Validate() error {
	var errs FieldErrors
	city := func(name, v string) {
		if v == "" {
			return
		}
		switch {
		case strings.TrimSpace(v) == "":
			errs = append(errs, FieldError{name, "must be a city name"})
		case utf8.RuneCountInString(v) > MaxCityLength:
			errs = append(errs, FieldError{name, fmt.Sprintf("must be at most %d characters", MaxCityLength)})
		case strings.IndexFunc(v, unicode.IsControl) >= 0:
			errs = append(errs, FieldError{name, "must not contain control characters"})
		case coordinatePattern.MatchString(v):
			errs = append(errs, FieldError{name, "must be a city name, not coordinates"})
		}
	}
	airport := func(name, v string) {
		if v != "" && !iataPattern.MatchString(v) {
			errs = append(errs, FieldError{name, "must be an explicit IATA airport code: three capital letters such as GLA"})
		}
	}
	var start, end time.Time
	date := func(name, v string, out *time.Time) {
		if v == "" {
			return
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			errs = append(errs, FieldError{name, "must be an ISO 8601 date (YYYY-MM-DD)"})
			return
		}
		*out = t
	}
	city(FieldOriginCity, f.OriginCity)
	city(FieldDestinationCity, f.DestinationCity)
	airport(FieldOriginAirport, f.OriginAirport)
	airport(FieldDestinationAirport, f.DestinationAirport)
	date(FieldStartDate, f.StartDate, &start)
	date(FieldEndDate, f.EndDate, &end)
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		errs = append(errs, FieldError{FieldEndDate, "must not be before start_date"})
	}
	if f.PartySize != nil && (*f.PartySize < MinPartySize || *f.PartySize > MaxPartySize) {
		errs = append(errs, FieldError{FieldPartySize, "must be from 1 to 8"})
	}
	if f.Currency != "" && !currencyPattern.MatchString(f.Currency) {
		errs = append(errs, FieldError{FieldCurrency, "must be three capital letters (ISO 4217) such as GBP"})
	}
	return errs.err()
}

// Merge lays explicit over base: each field explicit knows wins, the rest
// come from base ("Explicit search input takes precedence").
func Merge(explicit, base Fields) Fields {
	out := base
	for _, size := range []*int{base.PartySize, explicit.PartySize} {
		if size != nil {
			n := *size // a copy: out shares no pointer with its inputs
			out.PartySize = &n
		}
	}
	for _, name := range FieldNames {
		if p := explicit.stringField(name); p != nil && *p != "" {
			*out.stringField(name) = *p
		}
	}
	return out
}

// Combine validates explicit input and the journey context it overrides,
// each named under its own argument (explicitAt, baseAt: see
// [FieldErrors.At]), merges them with [Merge] and checks the merged dates in
// order, naming end_date where it came from. The error is [FieldErrors].
func Combine(explicit Fields, explicitAt string, base Fields, baseAt string) (Fields, error) {
	var errs FieldErrors
	if err := explicit.Validate(); err != nil {
		errs = append(errs, err.(FieldErrors).At(explicitAt)...)
	}
	if err := base.Validate(); err != nil {
		errs = append(errs, err.(FieldErrors).At(baseAt)...)
	}
	if len(errs) > 0 {
		return Fields{}, errs
	}
	merged := Merge(explicit, base)
	if err := merged.Validate(); err != nil {
		at := baseAt
		if explicit.EndDate != "" || explicit.StartDate != "" {
			at = explicitAt
		}
		return Fields{}, err.(FieldErrors).At(at)
	}
	return merged, nil
}

// ContinuationContext is the continuation_context a response carries
// forward: the journey's shared fields, validated, and nothing else. It never
// holds coordinates, not even rounded ones: [Fields] has no field for them
// and a city written as coordinates fails validation.
func ContinuationContext(f Fields) (Fields, error) {
	if err := f.Validate(); err != nil {
		return Fields{}, err
	}
	f.OriginCity = strings.TrimSpace(f.OriginCity)
	f.DestinationCity = strings.TrimSpace(f.DestinationCity)
	return f, nil
}

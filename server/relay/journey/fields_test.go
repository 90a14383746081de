package journey

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidateAccepts(t *testing.T) {
	for _, f := range []Fields{
		{},
		{OriginCity: "Helensburgh", DestinationCity: "New York", OriginAirport: "GLA", DestinationAirport: "JFK",
			StartDate: "2026-12-24", EndDate: "2026-12-24", PartySize: intp(1), Currency: "GBP"},
		{StartDate: "2026-02-28", EndDate: "2026-03-01", PartySize: intp(8)},
		{DestinationCity: "Saint-Jean-Cap-Ferrat"},
		{DestinationCity: "Zürich", Currency: "CHF"},
		{EndDate: "2024-02-29"},
	} {
		if err := f.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", f, err)
		}
	}
}

// TestValidateRefuses: one row per rule; each names the field and the reason.
func TestValidateRefuses(t *testing.T) {
	tests := []struct {
		name   string
		fields Fields
		want   FieldErrors
	}{
		{"airport lower case", Fields{OriginAirport: "gla"}, FieldErrors{{"origin_airport", "must be an explicit IATA airport code: three capital letters such as GLA"}}},
		{"airport a city name", Fields{DestinationAirport: "Glasgow"}, FieldErrors{{"destination_airport", "must be an explicit IATA airport code: three capital letters such as GLA"}}},
		{"airport four letters (ICAO)", Fields{DestinationAirport: "EGPF"}, FieldErrors{{"destination_airport", "must be an explicit IATA airport code: three capital letters such as GLA"}}},
		{"airport with digits", Fields{OriginAirport: "G1A"}, FieldErrors{{"origin_airport", "must be an explicit IATA airport code: three capital letters such as GLA"}}},
		{"date not ISO", Fields{StartDate: "24/12/2026"}, FieldErrors{{"start_date", "must be an ISO 8601 date (YYYY-MM-DD)"}}},
		{"date with a time", Fields{StartDate: "2026-12-24T10:00:00Z"}, FieldErrors{{"start_date", "must be an ISO 8601 date (YYYY-MM-DD)"}}},
		{"date not in the calendar", Fields{EndDate: "2026-02-30"}, FieldErrors{{"end_date", "must be an ISO 8601 date (YYYY-MM-DD)"}}},
		{"date unpadded", Fields{EndDate: "2026-2-3"}, FieldErrors{{"end_date", "must be an ISO 8601 date (YYYY-MM-DD)"}}},
		{"end before start", Fields{StartDate: "2026-12-24", EndDate: "2026-12-23"}, FieldErrors{{"end_date", "must not be before start_date"}}},
		{"party size zero", Fields{PartySize: intp(0)}, FieldErrors{{"party_size", "must be from 1 to 8"}}},
		{"party size nine", Fields{PartySize: intp(9)}, FieldErrors{{"party_size", "must be from 1 to 8"}}},
		{"party size negative", Fields{PartySize: intp(-2)}, FieldErrors{{"party_size", "must be from 1 to 8"}}},
		{"currency lower case", Fields{Currency: "gbp"}, FieldErrors{{"currency", "must be three capital letters (ISO 4217) such as GBP"}}},
		{"currency a symbol", Fields{Currency: "£"}, FieldErrors{{"currency", "must be three capital letters (ISO 4217) such as GBP"}}},
		{"currency four letters", Fields{Currency: "GBPX"}, FieldErrors{{"currency", "must be three capital letters (ISO 4217) such as GBP"}}},
		{"city blank", Fields{OriginCity: "   "}, FieldErrors{{"origin_city", "must be a city name"}}},
		{"city as coordinates", Fields{DestinationCity: "56.0036,-4.7346"}, FieldErrors{{"destination_city", "must be a city name, not coordinates"}}},
		{"city with coordinates inside", Fields{OriginCity: "Helensburgh (56.00, -4.73)"}, FieldErrors{{"origin_city", "must be a city name, not coordinates"}}},
		{"city with a control character", Fields{OriginCity: "Glas\ngow"}, FieldErrors{{"origin_city", "must not contain control characters"}}},
		{"city too long", Fields{OriginCity: strings.Repeat("a", 101)}, FieldErrors{{"origin_city", "must be at most 100 characters"}}},
		{"several at once, in field order", Fields{Currency: "x", OriginAirport: "x", PartySize: intp(10)}, FieldErrors{
			{"origin_airport", "must be an explicit IATA airport code: three capital letters such as GLA"},
			{"party_size", "must be from 1 to 8"},
			{"currency", "must be three capital letters (ISO 4217) such as GBP"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fields.Validate()
			var got FieldErrors
			if !errors.As(err, &got) {
				t.Fatalf("Validate = %v, want FieldErrors", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	got, err := Decode(json.RawMessage(`{"origin_city": "Helensburgh", "party_size": 3, "currency": "GBP", "end_date": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Fields{OriginCity: "Helensburgh", PartySize: intp(3), Currency: "GBP"}, got); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	for _, raw := range []string{``, `null`, `{}`} {
		if got, err := Decode(json.RawMessage(raw)); err != nil || got != (Fields{}) {
			t.Errorf("Decode(%q) = %+v, %v; want empty fields", raw, got, err)
		}
	}
	refusals := map[string]FieldErrors{
		`[1]`:                          {{"journey_context", "must be an object of shared journey fields"}},
		`{"party_size": 2.5}`:          {{"party_size", "must be an integer from 1 to 8"}},
		`{"party_size": "2"}`:          {{"party_size", "must be an integer from 1 to 8"}},
		`{"origin_airport": 123}`:      {{"origin_airport", "must be a string"}},
		`{"pickup": {"latitude": 56}}`: {{"pickup", "is not a shared journey field (" + strings.Join(FieldNames, ", ") + ")"}},
		`{"card_number": "4111", "currency": 1}`: {
			{"currency", "must be a string"},
			{"card_number", "is not a shared journey field (" + strings.Join(FieldNames, ", ") + ")"}},
	}
	for raw, want := range refusals {
		_, err := Decode(json.RawMessage(raw))
		var got FieldErrors
		if !errors.As(err, &got) {
			t.Errorf("Decode(%s) = %v, want FieldErrors", raw, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Decode(%s) (-want +got):\n%s", raw, diff)
		}
	}
}

func TestMergeExplicitWins(t *testing.T) {
	base := Fields{OriginCity: "Helensburgh", DestinationCity: "Glasgow", StartDate: "2026-12-24", PartySize: intp(2), Currency: "GBP"}
	explicit := Fields{DestinationCity: "Edinburgh", PartySize: intp(4), OriginAirport: "GLA"}
	got := Merge(explicit, base)
	want := Fields{OriginCity: "Helensburgh", DestinationCity: "Edinburgh", OriginAirport: "GLA", StartDate: "2026-12-24", PartySize: intp(4), Currency: "GBP"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	*got.PartySize = 7
	if *explicit.PartySize != 4 || *base.PartySize != 2 {
		t.Errorf("Merge's result shares party_size with its inputs")
	}
}

func TestCombine(t *testing.T) {
	got, err := Combine(Fields{EndDate: "2026-12-30"}, "journey_context", Fields{StartDate: "2026-12-24", Currency: "GBP"}, "")
	if err != nil || got != (Fields{StartDate: "2026-12-24", EndDate: "2026-12-30", Currency: "GBP"}) {
		t.Errorf("Combine = %+v, %v", got, err)
	}
	tests := []struct {
		name           string
		explicit, base Fields
		want           FieldErrors
	}{
		{"explicit field named under its argument", Fields{OriginAirport: "gla"}, Fields{},
			FieldErrors{{"journey_context.origin_airport", "must be an explicit IATA airport code: three capital letters such as GLA"}}},
		{"bad base value refused though overridden", Fields{Currency: "GBP"}, Fields{Currency: "pounds"},
			FieldErrors{{"currency", "must be three capital letters (ISO 4217) such as GBP"}}},
		{"explicit end before the journey's start", Fields{EndDate: "2026-12-20"}, Fields{StartDate: "2026-12-24"},
			FieldErrors{{"journey_context.end_date", "must not be before start_date"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Combine(tt.explicit, "journey_context", tt.base, "")
			var got FieldErrors
			if !errors.As(err, &got) {
				t.Fatalf("Combine = %v, want FieldErrors", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Combine (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContinuationContextHoldsNoCoordinates: whatever goes in, what comes
// out as JSON has only shared journey fields, and coordinates disguised as a
// city are refused.
func TestContinuationContextHoldsNoCoordinates(t *testing.T) {
	cc, err := ContinuationContext(Fields{DestinationCity: " New York ", PartySize: intp(2), Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cc)
	if string(b) != `{"destination_city":"New York","party_size":2,"currency":"USD"}` {
		t.Errorf("continuation_context = %s", b)
	}
	var members map[string]any
	json.Unmarshal(b, &members)
	for k := range members {
		if !strings.Contains(strings.Join(FieldNames, " "), k) {
			t.Errorf("continuation_context has %q, not a shared journey field", k)
		}
	}
	if _, err := ContinuationContext(Fields{DestinationCity: "40.758, -73.9855"}); err == nil {
		t.Errorf("a city written as coordinates went into continuation_context")
	}
}

func TestFieldErrorsAt(t *testing.T) {
	e := FieldErrors{{"start_date", "r"}}
	if got := e.At("journey_context"); got[0].Field != "journey_context.start_date" || e[0].Field != "start_date" {
		t.Errorf("At = %+v (original %+v)", got, e)
	}
	if got := e.Fields(); len(got) != 1 || got[0] != "start_date" {
		t.Errorf("Fields = %v", got)
	}
	if e.Error() != "start_date: r" {
		t.Errorf("Error = %q", e.Error())
	}
}

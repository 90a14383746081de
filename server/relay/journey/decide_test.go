package journey

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func intp(n int) *int { return &n }

func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := ParseRegistry([]byte(`{"connectors": [
		{"id": "flights", "name": "Flights", "description": "d", "entry_tool": "search_flights", "enabled": true,
		 "arguments": [
			{"name": "origin", "from": "origin_airport", "required": true},
			{"name": "destination", "from": "destination_airport", "required": true},
			{"name": "departure_date", "from": "start_date", "required": true},
			{"name": "passengers", "from": "party_size", "required": false},
			{"name": "currency", "from": "currency", "required": false}]},
		{"id": "rental", "name": "Rental", "description": "d", "entry_tool": "search_rentals", "enabled": false,
		 "arguments": [{"name": "at", "from": "destination_airport", "required": true}], "fallbacks": ["flights"]}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDecideEveryStatus(t *testing.T) {
	reg := testRegistry(t)
	ok := Reported{Installed: true, Enabled: true, Authorized: true, Available: true}
	full := Fields{OriginAirport: "GLA", DestinationAirport: "LHR", StartDate: "2026-12-24", PartySize: intp(2), Currency: "GBP"}
	with := func(f func(*Reported)) Reported { r := ok; f(&r); return r }
	tests := []struct {
		name      string
		connector string
		reported  map[string]Reported
		fields    Fields
		want      Decision
	}{
		{"left out of the report", "flights", map[string]Reported{"stays": ok}, full,
			Decision{Status: StatusConnectionRequired, Step: &Step{Action: ActionConnect, Connector: "flights"}}},
		{"an empty report", "flights", map[string]Reported{}, full,
			Decision{Status: StatusConnectionRequired, Step: &Step{Action: ActionConnect, Connector: "flights"}}},
		{"no report for the session yet", "flights", nil, full,
			Decision{Status: StatusInstallationUnknown, Step: &Step{Action: ActionReportConnectors, Connector: "flights"}}},
		// Each row below also fails every later check, so it shows the order.
		{"not installed", "flights", map[string]Reported{"flights": {}}, Fields{},
			Decision{Status: StatusConnectionRequired, Step: &Step{Action: ActionConnect, Connector: "flights"}}},
		{"disabled", "flights", map[string]Reported{"flights": {Installed: true}}, Fields{},
			Decision{Status: StatusDisabled, Step: &Step{Action: ActionEnable, Connector: "flights"}}},
		{"unauthorized", "flights", map[string]Reported{"flights": {Installed: true, Enabled: true}}, Fields{},
			Decision{Status: StatusUnauthorized, Step: &Step{Action: ActionAuthorize, Connector: "flights"}}},
		{"unavailable per host", "flights", map[string]Reported{"flights": with(func(r *Reported) { r.Available = false })}, Fields{},
			Decision{Status: StatusUnavailable, Step: &Step{Action: ActionTryLater, Connector: "flights"}}},
		{"switched off in the registry", "rental", map[string]Reported{"rental": ok}, Fields{},
			Decision{Status: StatusUnavailable, Step: &Step{Action: ActionTryLater, Connector: "rental"}}},
		{"switched off, its fallback usable", "rental", map[string]Reported{"rental": ok, "flights": ok}, Fields{},
			Decision{Status: StatusUnavailable, Step: &Step{Action: ActionUseFallback, Connector: "flights", Tool: "search_flights"}}},
		{"switched off, its fallback not authorized", "rental", map[string]Reported{"rental": ok, "flights": with(func(r *Reported) { r.Authorized = false })}, Fields{},
			Decision{Status: StatusUnavailable, Step: &Step{Action: ActionTryLater, Connector: "rental"}}},
		{"missing required fields", "flights", map[string]Reported{"flights": ok}, Fields{OriginAirport: "GLA", PartySize: intp(2)},
			Decision{Status: StatusProposal, Step: &Step{Action: ActionProvideFields, Connector: "flights"}, MissingFields: []string{"destination_airport", "start_date"}}},
		{"ready", "flights", map[string]Reported{"flights": ok}, full,
			Decision{Status: StatusReady, NextAction: &NextAction{Connector: "flights", Tool: "search_flights",
				Arguments: map[string]any{"origin": "GLA", "destination": "LHR", "departure_date": "2026-12-24", "passengers": 2, "currency": "GBP"}}}},
		{"ready without the optional fields", "flights", map[string]Reported{"flights": ok},
			Fields{OriginAirport: "GLA", DestinationAirport: "LHR", StartDate: "2026-12-24", DestinationCity: "London"},
			Decision{Status: StatusReady, NextAction: &NextAction{Connector: "flights", Tool: "search_flights",
				Arguments: map[string]any{"origin": "GLA", "destination": "LHR", "departure_date": "2026-12-24"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reg.Decide(tt.connector, tt.reported, tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reason == "" {
				t.Errorf("no reason given for %s", got.Status)
			}
			if (got.Status == StatusReady) != (got.Step == nil) {
				t.Errorf("%s: step %+v; want one for every status but ready", got.Status, got.Step)
			}
			if got.Step != nil {
				if got.Step.Message == "" {
					t.Errorf("%s: a step without a message", got.Status)
				}
				got.Step.Message = ""
			}
			tt.want.Connector = tt.connector
			got.Reason = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegistryRefusesUnknownFallbacks(t *testing.T) {
	for _, fb := range []string{"teleporter", "flights"} {
		_, err := ParseRegistry([]byte(`{"connectors": [{"id": "flights", "name": "F", "description": "d", "entry_tool": "t", "enabled": true,
			"arguments": [{"name": "a", "from": "start_date", "required": true}], "fallbacks": ["` + fb + `"]}]}`))
		if err == nil || !strings.Contains(err.Error(), fb) {
			t.Errorf("fallback %q: err = %v, want a refusal naming it", fb, err)
		}
	}
}

func TestDecideUnknownConnector(t *testing.T) {
	_, err := testRegistry(t).Decide("teleporter", map[string]Reported{"teleporter": {Installed: true}}, Fields{})
	if !errors.Is(err, ErrUnknownConnector) || !strings.Contains(err.Error(), "teleporter") {
		t.Errorf("err = %v, want ErrUnknownConnector naming the id", err)
	}
}

func TestDecideRefusesInvalidFields(t *testing.T) {
	ok := map[string]Reported{"flights": {Installed: true, Enabled: true, Authorized: true, Available: true}}
	_, err := testRegistry(t).Decide("flights", ok, Fields{OriginAirport: "Glasgow", DestinationAirport: "LHR", StartDate: "2026-12-24"})
	var fe FieldErrors
	if !errors.As(err, &fe) || len(fe) != 1 || fe[0].Field != "origin_airport" {
		t.Errorf("err = %v, want a field error on origin_airport", err)
	}
}

// TestDecideChangesNothing: deciding (a proposal included) leaves the
// caller's fields and report as they were.
func TestDecideChangesNothing(t *testing.T) {
	reg := testRegistry(t)
	f := Fields{OriginAirport: "GLA", PartySize: intp(3)}
	rep := map[string]Reported{"flights": {Installed: true, Enabled: true, Authorized: true, Available: true}}
	d, _ := reg.Decide("flights", rep, f)
	if d.Status != StatusProposal || d.NextAction != nil {
		t.Fatalf("got %+v, want a proposal with no next_action", d)
	}
	if diff := cmp.Diff(Fields{OriginAirport: "GLA", PartySize: intp(3)}, f); diff != "" {
		t.Errorf("fields changed:\n%s", diff)
	}
	if len(rep) != 1 {
		t.Errorf("report changed: %+v", rep)
	}
}

// TestShippedRegistry: the registry in contracts/ parses, and every status
// is reachable with it (one connector is switched off for unavailable).
func TestShippedRegistry(t *testing.T) {
	reg, err := DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var off, required bool
	for _, c := range reg.Connectors() {
		off = off || !c.Enabled
		for _, a := range c.Arguments {
			required = required || a.Required
		}
	}
	if !off || !required {
		t.Errorf("shipped registry: a switched-off connector %v, a required argument %v; want both so that unavailable and proposal are reachable", off, required)
	}
	if _, ok := reg.Connector("flights"); !ok {
		t.Errorf("shipped registry has no flights connector")
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
)

// FolderJourney walks one Relay journey from the search that opens it,
// through the host's connector reports (POST /v1/session/connectors), to a
// continue_journey call for every status the specification lists. Its
// requests run in order: each takes the journey's relay_context from the
// search's reply.
const FolderJourney = "Relay journey"

// chained is a value a request takes from an earlier reply. Postman's test
// script of the request that produces it saves it in a collection variable;
// Insomnia, which runs no scripts, reads it with a response tag naming that
// request. In a body it is written as the JSON string "<<Var>>".
type chained struct {
	Var  string // the collection variable
	Path string // JSONPath of the value in the producing reply (member names only)
	// Object: the value is a JSON object, spliced into the body unquoted.
	Object bool
}

var (
	journeyContext = chained{Var: "journeyContext", Path: "$.result.structuredContent.relay_context", Object: true}
	journeyID      = chained{Var: "journeyId", Path: "$.result.structuredContent.relay_context.journey_id"}
	chainedValues  = []chained{journeyContext, journeyID}
)

// placeholder is how a chained value stands in a generated body.
func (v chained) placeholder() string { return `"<<` + v.Var + `>>"` }

// journeySearch is the request that opens the journey: the shipped
// search_rides sample with journey fields added, so that the journey has
// what some connectors need and lacks what another requires.
const journeySearch = "journey/search_rides (opens the journey)"

// journeyFields are the shared journey fields the search carries.
var journeyFields = map[string]any{
	"destination_city": "Glasgow", "destination_airport": "GLA",
	"start_date": "2027-03-12", "end_date": "2027-03-15", "party_size": 2, "currency": "GBP",
}

// report is one connector as the host reports it.
type report struct {
	ID         string `json:"id"`
	Installed  bool   `json:"installed"`
	Enabled    bool   `json:"enabled"`
	Authorized bool   `json:"authorized"`
	Available  *bool  `json:"available,omitempty"`
}

// step is one continue_journey call of the walk and the status the
// specification's order gives it for the report in force (RELAY.md): no
// report yet → installation_unknown; left out of the report or installed
// false → connection_required;
// enabled false → disabled; authorized false → unauthorized; available
// false or switched off in the registry → unavailable; a required argument
// the journey lacks → proposal; otherwise ready.
type step struct {
	connector, status, why string
}

// The walk. The first report makes stays ready and flights a proposal (the
// journey names no origin airport) and refuses dining, events and
// car_rental each for another reason; the second replaces it whole: only
// car_rental, which the registry switches off, so it is unavailable and
// stays, left out, is connection_required.
var (
	firstReport = []report{
		{ID: "stays", Installed: true, Enabled: true, Authorized: true},
		{ID: "flights", Installed: true, Enabled: true, Authorized: true},
		{ID: "dining", Installed: false, Enabled: false, Authorized: false},
		{ID: "events", Installed: true, Enabled: false, Authorized: true},
		{ID: "car_rental", Installed: true, Enabled: true, Authorized: false},
	}
	secondReport = []report{{ID: "car_rental", Installed: true, Enabled: true, Authorized: true}}
	beforeReport = []step{{"stays", "installation_unknown", "before any report"}}
	afterFirst   = []step{
		{"stays", "ready", "installed, enabled and authorized, and the journey has every required field"},
		{"flights", "proposal", "usable, but the journey names no origin airport"},
		{"dining", "connection_required", "not installed"},
		{"events", "disabled", "installed but switched off by the user"},
		{"car_rental", "unauthorized", "not authorized"},
	}
	afterSecond = []step{
		{"car_rental", "unavailable", "reported usable, but switched off in the connector registry"},
		{"stays", "connection_required", "left out of the second report, which replaced the first whole"},
	}
)

// journeyCalls are the journey folder's requests. The expected next_action
// and missing_fields come from the registry in contracts/ (the mapping is
// the contract); the statuses are the specification's order applied by
// hand, and the walk is refused here if the registry no longer gives them.
func journeyCalls() ([]call, error) {
	connectors, err := relaycontracts.DecodeConnectors(relaycontracts.Connectors)
	if err != nil {
		return nil, err
	}
	byID := map[string]relaycontracts.Connector{}
	for _, c := range connectors {
		byID[c.ID] = c
	}
	search, err := journeySearchCall()
	if err != nil {
		return nil, err
	}
	calls := []call{search}
	cont := func(steps []step, reported []report) error {
		for _, s := range steps {
			c, err := continueCall(s, byID, reported)
			if err != nil {
				return err
			}
			calls = append(calls, c)
		}
		return nil
	}
	if err := cont(beforeReport, nil); err != nil {
		return nil, err
	}
	calls = append(calls, reportCall("journey/report connectors (first)", "The host reports five connectors for the journey's session: stays and flights usable, dining not installed, events switched off, car_rental not authorized. The reply is the report as stored, with available defaulted to true.", firstReport))
	if err := cont(afterFirst, firstReport); err != nil {
		return nil, err
	}
	calls = append(calls, reportCall("journey/report connectors (second)", "A second report replaces the first whole: only car_rental, now usable as far as the host knows.", secondReport))
	if err := cont(afterSecond, secondReport); err != nil {
		return nil, err
	}
	return calls, nil
}

// journeySearchCall is the search_rides sample with the journey fields: the
// call that opens a session and a journey, whose relay_context the rest of
// the folder carries.
func journeySearchCall() (call, error) {
	s, err := relaySample("search_rides.success")
	if err != nil {
		return call{}, err
	}
	var req map[string]any
	if err := json.Unmarshal(s.Request, &req); err != nil {
		return call{}, err
	}
	req["params"].(map[string]any)["arguments"].(map[string]any)["journey_context"] = journeyFields
	save := map[string]string{}
	for _, v := range chainedValues {
		save[v.Var] = v.Path
	}
	return call{
		Name: journeySearch, Folder: FolderJourney, Rides: true,
		Description: "Opens the journey: a search with the shared journey fields (Glasgow, GLA, 12–15 March 2027, two people, GBP) and no context. Its test script keeps the reply's relay_context and journey_id for the requests after it (Insomnia reads them from this request's last response: send it first).",
		Body:        mustPretty(req),
		Expect:      expectation{Status: 200, ResultOnly: true, ToolStatus: "ok", Save: save},
	}, nil
}

// continueCall is one continue_journey call of the walk.
func continueCall(s step, byID map[string]relaycontracts.Connector, reported []report) (call, error) {
	rc, ok := byID[s.connector]
	if !ok {
		return call{}, fmt.Errorf("journey walk: the registry has no connector %q", s.connector)
	}
	var missing []string
	args := map[string]any{}
	for _, a := range rc.Arguments {
		if v, ok := journeyFields[a.From]; ok {
			args[a.Name] = v
		} else if a.Required {
			missing = append(missing, a.From)
		}
	}
	// The walk holds only while the registry gives the statuses it claims.
	switch {
	case s.status == "unavailable" && rc.Enabled:
		return call{}, fmt.Errorf("journey walk: %s must be switched off in the registry for %s", s.connector, s.status)
	case s.status == "proposal" && len(missing) == 0, s.status == "ready" && len(missing) > 0:
		return call{}, fmt.Errorf("journey walk: %s lacks %v in the journey; the walk says %s", s.connector, missing, s.status)
	case s.status != "installation_unknown" && s.status != "connection_required" && !slices.ContainsFunc(reported, func(r report) bool { return r.ID == s.connector }):
		return call{}, fmt.Errorf("journey walk: %s is not in the report for %s", s.connector, s.status)
	}
	e := expectation{Status: 200, ResultOnly: true, ToolStatus: s.status, ContinueJourney: true, MissingFields: []string{}}
	if s.status == "proposal" {
		e.MissingFields = missing
	}
	if s.status == "ready" {
		e.NextAction = mustPretty(map[string]any{"connector": rc.ID, "tool": rc.EntryTool, "arguments": args})
	}
	body := mustPretty(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "continue_journey", "arguments": map[string]any{
			"journey_id": "<<" + journeyID.Var + ">>", "context": "<<" + journeyContext.Var + ">>", "to_connector": s.connector,
		}},
	})
	return call{
		Name: "journey/continue_journey " + s.connector + ": " + s.status, Folder: FolderJourney, Rides: true,
		Description: "continue_journey to " + s.connector + ", " + s.why + ": " + s.status + ".",
		Body:        body, Expect: e,
	}, nil
}

// reportCall is a POST /v1/session/connectors: a plain HTTP request, not a
// JSON-RPC one, under the journey's relay_context.
func reportCall(name, description string, connectors []report) call {
	stored := make([]map[string]any, len(connectors))
	for i, c := range connectors {
		available := c.Available == nil || *c.Available
		stored[i] = map[string]any{"id": c.ID, "installed": c.Installed, "enabled": c.Enabled, "authorized": c.Authorized, "available": available}
	}
	return call{
		Name: name, Folder: FolderJourney, Description: description, Rides: true, HTTP: true,
		Body:   mustPretty(map[string]any{"context": "<<" + journeyContext.Var + ">>", "connectors": connectors}),
		Expect: expectation{Status: 200, Report: mustPretty(stored)},
	}
}

// bodyFor writes a call's body for one format: each chained placeholder
// becomes what that format substitutes (sub gives it for a value).
func bodyFor(c call, sub func(chained) string) string {
	b := string(c.Body)
	for _, v := range chainedValues {
		b = strings.ReplaceAll(b, v.placeholder(), sub(v))
	}
	return b
}

// uses lists the chained values a call's body takes.
func uses(c call) []chained {
	var out []chained
	for _, v := range chainedValues {
		if strings.Contains(string(c.Body), v.placeholder()) {
			out = append(out, v)
		}
	}
	return out
}

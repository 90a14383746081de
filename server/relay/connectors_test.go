package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// journeyHost is Relay on a host over HTTP with a store the test can read.
type journeyHost struct {
	base string // the host's base URL
	hc   *http.Client
	c    *client.Client
	st   store.Store
}

func newJourneyHost(t *testing.T) journeyHost {
	t.Helper()
	st := testStore(t, nil)
	s := mustRelay(t, relay.Options{Store: st})
	url, hc := hostURL(t, s)
	c, err := client.New(url, client.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return journeyHost{base: strings.TrimSuffix(url, relay.Path), hc: hc, c: c, st: st}
}

// report posts a connector report and returns the status code and body.
func (h journeyHost) report(t *testing.T, rc mcptypes.RelayContext, connectors ...map[string]any) (int, map[string]any) {
	t.Helper()
	if connectors == nil {
		connectors = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"context": rc, "connectors": connectors})
	resp, err := h.hc.Post(h.base+relay.ConnectorsPath, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (h journeyHost) continueTo(t *testing.T, rc mcptypes.RelayContext, to string, jc map[string]any) mcptypes.ContinueJourneyResult {
	t.Helper()
	args := map[string]any{"journey_id": rc.JourneyID, "context": rc, "to_connector": to}
	if jc != nil {
		args["journey_context"] = jc
	}
	return decodeInto[mcptypes.ContinueJourneyResult](t, call(t, h.c, "continue_journey", args, false))
}

func connector(id string, installed, enabled, authorized bool, available ...bool) map[string]any {
	m := map[string]any{"id": id, "installed": installed, "enabled": enabled, "authorized": authorized}
	if len(available) > 0 {
		m["available"] = available[0]
	}
	return m
}

// TestContinueJourneyStatuses reaches every continue_journey status through
// POST /v1/session/connectors, and checks that only ready moves the journey.
func TestContinueJourneyStatuses(t *testing.T) {
	h := newJourneyHost(t)
	out := decodeInto[mcptypes.SearchRidesResult](t, call(t, h.c, "search_rides", map[string]any{
		"pickup": jfk, "dropoff": timesSquare, "destination_city": "New York", "party_size": 2,
		"journey_context": map[string]any{"destination_airport": "JFK", "start_date": "2026-12-10"},
	}, false))
	rc := out.RelayContext
	if got := out.ContinuationContext; got.DestinationCity == nil || *got.DestinationCity != "New York" || got.DestinationAirport == nil || *got.PartySize != 2 {
		t.Fatalf("continuation_context %+v", got)
	}

	if r := h.continueTo(t, rc, "stays", nil); r.Status != "installation_unknown" || r.NextAction != nil || r.SuggestedStep == nil || r.SuggestedStep.Action != "report_connectors" {
		t.Errorf("before any report: %+v", r)
	}
	cases := []struct {
		name string
		conn map[string]any
		want string
	}{
		{"not installed", connector("stays", false, false, false), "connection_required"},
		{"disabled", connector("stays", true, false, true), "disabled"},
		{"unauthorized", connector("stays", true, true, false), "unauthorized"},
		{"unavailable", connector("stays", true, true, true, false), "unavailable"},
		{"missing end_date", connector("stays", true, true, true), "proposal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.report(t, rc, tc.conn)
			if code != 200 {
				t.Fatalf("report: %d %v", code, body)
			}
			r := h.continueTo(t, rc, "stays", nil)
			if string(r.Status) != tc.want || r.NextAction != nil || r.Reason == "" || r.SuggestedStep == nil {
				t.Fatalf("got %+v, want %s with a reason and a suggested step", r, tc.want)
			}
			if tc.want == "proposal" && (len(r.MissingFields) != 1 || r.MissingFields[0] != "end_date") {
				t.Errorf("missing_fields %v", r.MissingFields)
			}
		})
	}
	t.Run("another connector is unreported", func(t *testing.T) {
		// The specification's "A missing connector returns
		// connection_required": the host has reported, without it.
		r := h.continueTo(t, rc, "flights", nil)
		if r.Status != "connection_required" || r.Reason == "" || r.SuggestedStep == nil || r.SuggestedStep.Action != "connect" || r.SuggestedStep.Connector != "flights" {
			t.Errorf("%+v %+v", r, r.SuggestedStep)
		}
	})
	t.Run("a proposal changes nothing", func(t *testing.T) {
		before, _ := h.st.Journey(context.Background(), "anonymous", rc.JourneyID)
		h.report(t, rc, connector("flights", true, true, true))
		r := h.continueTo(t, rc, "flights", map[string]any{"end_date": "2026-12-14"})
		if r.Status != "proposal" || len(r.MissingFields) != 1 || r.MissingFields[0] != "origin_airport" {
			t.Fatalf("%+v", r)
		}
		after, _ := h.st.Journey(context.Background(), "anonymous", rc.JourneyID)
		if string(after.Context) != string(before.Context) {
			t.Errorf("a proposal changed the journey: %s -> %s", before.Context, after.Context)
		}
	})
	t.Run("ready, and the journey moves on", func(t *testing.T) {
		h.report(t, rc, connector("stays", true, true, true))
		r := h.continueTo(t, rc, "stays", map[string]any{"end_date": "2026-12-14"})
		if r.Status != "ready" || r.NextAction == nil || r.NextAction.Tool != "search_stays" {
			t.Fatalf("%+v", r)
		}
		a := r.NextAction.Arguments
		if a["city"] != "New York" || a["check_in"] != "2026-12-10" || a["check_out"] != "2026-12-14" || a["guests"] != float64(2) {
			t.Errorf("arguments %v", a)
		}
		// The saved end_date carries to the next call without being given.
		again := h.continueTo(t, r.RelayContext, "stays", nil)
		if again.Status != "ready" || again.ContinuationContext.EndDate == nil {
			t.Errorf("after ready: %+v", again)
		}
		for _, c := range []mcptypes.ContinuationContext{r.ContinuationContext, again.ContinuationContext} {
			b, _ := json.Marshal(c)
			if strings.Contains(string(b), "40.6") || strings.Contains(string(b), "latitude") {
				t.Errorf("continuation_context holds coordinates: %s", b)
			}
		}
	})
	t.Run("the latest report wins", func(t *testing.T) {
		h.report(t, rc, connector("stays", true, false, true))
		h.report(t, rc) // nothing reported now: stays is left out
		if r := h.continueTo(t, rc, "stays", nil); r.Status != "connection_required" {
			t.Errorf("%+v", r)
		}
	})
	t.Run("available defaults to true", func(t *testing.T) {
		code, body := h.report(t, rc, connector("dining", true, true, true))
		conns, _ := body["connectors"].([]any)
		if code != 200 || len(conns) != 1 || conns[0].(map[string]any)["available"] != true {
			t.Errorf("%d %v", code, body)
		}
	})
	t.Run("events retained", func(t *testing.T) {
		evs, err := h.st.Events(context.Background(), "anonymous", rc.JourneyID)
		if err != nil || len(evs) < 2 || evs[0].Kind != store.EventRequest || evs[0].Tool != "search_rides" {
			t.Fatalf("%v %+v", err, evs)
		}
	})
}

// TestConnectorReportRefusals: a tampered, unknown or malformed report is
// refused and stores nothing.
func TestConnectorReportRefusals(t *testing.T) {
	h := newJourneyHost(t)
	out := decodeInto[mcptypes.SearchRidesResult](t, call(t, h.c, "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare}, false))
	rc := out.RelayContext

	tampered := rc
	tampered.SessionID = "ses_other"
	if code, body := h.report(t, tampered, connector("stays", true, true, true)); code != 403 || body["error"] != "invalid_context" {
		t.Errorf("tampered: %d %v", code, body)
	}
	// Signed by the same keys on another server: the signature verifies, but
	// this store has no such journey.
	other := newJourneyHost(t)
	foreign := decodeInto[mcptypes.SearchRidesResult](t, call(t, other.c, "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare}, false)).RelayContext
	if code, body := h.report(t, foreign, connector("stays", true, true, true)); code != 403 {
		t.Errorf("unknown journey: %d %v", code, body)
	}
	r := refusalOf(t, h.c, "continue_journey", map[string]any{"journey_id": foreign.JourneyID, "context": foreign, "to_connector": "stays"})
	if r.Status != "invalid_context" {
		t.Errorf("continue_journey with an unknown journey: %+v", r)
	}
	resp, err := h.hc.Post(h.base+relay.ConnectorsPath, "application/json", strings.NewReader(`{"context":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("malformed body: %d", resp.StatusCode)
	}
	if code, _ := h.report(t, rc, connector("stays", true, true, true), connector("stays", false, false, false)); code != 400 {
		t.Errorf("a connector listed twice: %d", code)
	}
	// Bodies the contract refuses (contracts/openapi.yaml,
	// SessionConnectorsReport), which a decoder alone would take.
	ctxJSON, _ := json.Marshal(rc)
	for name, body := range map[string]string{
		"no connectors":                `{"context":` + string(ctxJSON) + `}`,
		"no context":                   `{"connectors":[]}`,
		"an unknown member":            `{"context":` + string(ctxJSON) + `,"connectors":[],"extra":1}`,
		"a connector without a flag":   `{"context":` + string(ctxJSON) + `,"connectors":[{"id":"stays","installed":true,"enabled":true}]}`,
		"a connector's unknown member": `{"context":` + string(ctxJSON) + `,"connectors":[{"id":"stays","installed":true,"enabled":true,"authorized":true,"x":1}]}`,
		"a flag that is a string":      `{"context":` + string(ctxJSON) + `,"connectors":[{"id":"stays","installed":"yes","enabled":true,"authorized":true}]}`,
		"a number beyond float64":      `{"context":` + string(ctxJSON) + `,"connectors":[{"id":"stays","installed":1e99999999999,"enabled":true,"authorized":true}]}`,
	} {
		resp, err := h.hc.Post(h.base+relay.ConnectorsPath, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != 400 || got["error"] != "invalid_request" {
			t.Errorf("%s: %d %v, want 400 invalid_request", name, resp.StatusCode, got)
		}
	}
	if r := h.continueTo(t, rc, "stays", nil); r.Status != "installation_unknown" {
		t.Errorf("a refused report was stored: %+v", r)
	}
	if r := refusalOf(t, h.c, "continue_journey", map[string]any{"journey_id": rc.JourneyID, "context": rc, "to_connector": "teleport"}); r.Status != "invalid_arguments" {
		t.Errorf("unknown connector: %+v", r)
	}
	if r := refusalOf(t, h.c, "continue_journey", map[string]any{"journey_id": rc.JourneyID, "context": rc, "to_connector": "stays",
		"journey_context": map[string]any{"start_date": "2026-12-10", "end_date": "2026-12-01"}}); r.Status != "invalid_arguments" {
		t.Errorf("end_date before start_date: %+v", r)
	}
}

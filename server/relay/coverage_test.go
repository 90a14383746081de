package relay_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay"
)

var (
	londonKingsCross = mcptypes.Coordinates{Latitude: 51.5308, Longitude: -0.1238}
	heathrow         = mcptypes.Coordinates{Latitude: 51.47, Longitude: -0.4543}
)

func handoffIDs(out mcptypes.SearchRidesResult) []string {
	var ids []string
	for _, h := range out.BrowserHandoffs {
		ids = append(ids, h.Provider)
	}
	return ids
}

// A handoff is offered only where its provider operates, by the registry's
// coverage: New York gets Uber and Lyft (Gett, Bolt, FREENOW and Trident do
// not operate there); Helensburgh gets Trident, Uber, Gett, Bolt and
// FREENOW, not Lyft; a search without coordinates gets every entry page.
func TestHandoffsFollowCoverage(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"New York", map[string]any{"pickup": jfk, "dropoff": timesSquare}, []string{"uber", "lyft"}},
		{"Helensburgh", map[string]any{"pickup": helensburgh, "dropoff": glasgowAir}, []string{"trident", "uber", "gett", "bolt", "freenow"}},
		{"London", map[string]any{"pickup": londonKingsCross, "dropoff": heathrow}, []string{"uber", "gett", "bolt", "freenow"}},
		{"no coordinates", map[string]any{"destination_city": "New York"}, []string{"trident", "uber", "lyft", "gett", "bolt", "freenow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := handoffIDs(search(t, c, tc.args)); !slices.Equal(got, tc.want) {
				t.Errorf("handoffs %v, want %v", got, tc.want)
			}
		})
	}
}

// Gett's app-scheme link comes with its web fallback; a web link has none.
func TestAppSchemeLinkHasWebFallback(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	out := search(t, c, map[string]any{"pickup": londonKingsCross, "dropoff": heathrow})
	for _, h := range out.BrowserHandoffs {
		switch {
		case strings.HasPrefix(h.URL, "gett://"):
			if h.FallbackURL == nil || !strings.HasPrefix(*h.FallbackURL, "https://") {
				t.Errorf("gett:// without a web fallback: %+v", h)
			}
		case h.FallbackURL != nil:
			t.Errorf("%s: a web URL with a fallback: %+v", h.Provider, h)
		}
	}
	h := handoff(t, c, map[string]any{"provider": "gett", "search": map[string]any{"pickup": londonKingsCross, "dropoff": heathrow}})
	if h.URL == nil || !strings.HasPrefix(*h.URL, "gett://") || h.FallbackURL == nil || *h.FallbackURL != "https://gett.com/" {
		t.Errorf("get_ride_booking_handoff for Gett: url %v, fallback_url %v", h.URL, h.FallbackURL)
	}
}

// get_ride_booking_handoff keeps search_rides' rule: a provider entry path
// for a trip outside the provider's coverage is refused, naming where it
// operates; without coordinates the entry page is offered.
func TestHandoffToolFollowsCoverage(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	ny := map[string]any{"pickup": jfk, "dropoff": timesSquare}
	for _, p := range []string{"trident", "gett", "bolt", "freenow"} {
		raw := call(t, c, mcptypes.ToolGetRideBookingHandoff, map[string]any{"provider": p, "search": ny}, true)
		var r struct {
			Status string                  `json:"status"`
			Fields []mcptypes.FieldProblem `json:"fields"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if r.Status != "invalid_arguments" || len(r.Fields) != 1 || r.Fields[0].Field != "/provider" || !strings.Contains(r.Fields[0].Reason, "does not operate") {
			t.Errorf("%s for New York: %s", p, raw)
		}
	}
	if h := handoff(t, c, map[string]any{"provider": "lyft", "search": ny}); h.URL == nil || !h.ParametersApplied {
		t.Errorf("Lyft for New York: %+v", h)
	}
	if h := handoff(t, c, map[string]any{"provider": "trident"}); h.URL == nil || *h.URL != "https://tridenttaxis.online" {
		t.Errorf("Trident without coordinates: %+v", h)
	}
}

package relay_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// TestEventsAsTheSpecificationListsThem: request, selection, handoff and
// outcome signals, a selection when an option is resolved or handed off,
// never when it is only compared.
func TestEventsAsTheSpecificationListsThem(t *testing.T) {
	st := testStore(t, nil)
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100), quote("black", 9000, 11000)}}
	_, c := newRelay(t, relay.Options{Store: st, Sources: map[string]sources.Source{"uber": uber}})
	out := nySearch(t, c, nil)
	rc := out.RelayContext
	kinds := func() []string {
		t.Helper()
		evs, err := st.Events(context.Background(), "anonymous", rc.JourneyID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range evs {
			k := string(e.Kind)
			if e.Kind == store.EventSelection {
				k += ":" + e.OptionID
			}
			out = append(out, k)
		}
		return out
	}
	call(t, c, "compare_rides", map[string]any{"options": out.Options, "sort_by": "price", "context": rc}, false)
	if diff := cmp.Diff([]string{"request", "request"}, kinds()); diff != "" {
		t.Errorf("after search and compare (-want +got):\n%s", diff)
	}
	call(t, c, "resolve_ride", map[string]any{"option": out.Options[0], "context": rc}, false)
	call(t, c, "get_ride_booking_handoff", map[string]any{"option": out.Options[1], "context": rc}, false)
	call(t, c, "get_ride_booking_handoff", map[string]any{"provider": "bolt", "context": rc}, false)
	want := []string{"request", "request", "selection:" + out.Options[0].OptionID,
		"selection:" + out.Options[1].OptionID, "handoff", "outcome", // the option handed off
		"handoff", "outcome"} // a provider path selects no option
	if diff := cmp.Diff(want, kinds()); diff != "" {
		t.Errorf("after resolve and handoffs (-want +got):\n%s", diff)
	}
}

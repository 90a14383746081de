package conformance

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// ridesDatabaseURL (CONFORMANCE_RIDES_DATABASE_URL) is the Relay server's
// RELAY_DATABASE_URL, when the suite may read it: the specification's
// signals are "retained in protected operational services", not answered
// to the caller, so the only place to see which were recorded is the
// store. conformance/run-local.sh's public pass sets it; without it the
// spec is skipped.
var ridesDatabaseURL = os.Getenv("CONFORMANCE_RIDES_DATABASE_URL")

var _ = Describe("Relay's retained signals", Label("rides"), func() {
	BeforeEach(func() {
		if ridesURL() == "" || ridesDatabaseURL == "" {
			Skip("CONFORMANCE_RIDES_DATABASE_URL is not set (the server's RELAY_DATABASE_URL; run-local.sh's public pass sets it)")
		}
		if serverMode == ModeOAuth {
			Skip("the public pass reads the anonymous actor's events")
		}
	})

	// The specification: "Request, selection, handoff and known outcome
	// signals are retained". A comparison selects nothing.
	It("records a selection when an option is resolved or handed off, not when it is compared", func() {
		search := ridesCall("search_rides", map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2}, false)
		opts := search["options"].([]any)
		if len(opts) < 2 {
			Skip("the server issued fewer than two options for Helensburgh → Glasgow Airport")
		}
		ctx := search["relay_context"].(map[string]any)
		st, err := store.Open(suiteCtx, ridesDatabaseURL, nil)
		Expect(err).NotTo(HaveOccurred(), "CONFORMANCE_RIDES_DATABASE_URL")
		DeferCleanup(st.Close)
		selections := func() []string {
			GinkgoHelper()
			evs, err := st.Events(suiteCtx, "anonymous", ctx["journey_id"].(string))
			Expect(err).NotTo(HaveOccurred())
			out := []string{}
			for _, e := range evs {
				if e.Kind == store.EventSelection {
					out = append(out, e.OptionID)
				}
			}
			return out
		}
		ridesCall("compare_rides", map[string]any{"options": opts, "sort_by": "price", "context": ctx}, false)
		Expect(selections()).To(BeEmpty(), "compare_rides selected nothing")
		first, second := opts[0].(map[string]any), opts[1].(map[string]any)
		ridesCall("resolve_ride", map[string]any{"option": first, "context": ctx}, false)
		Expect(selections()).To(Equal([]string{first["option_id"].(string)}), "resolve_ride selects its option")
		ridesCall("get_ride_booking_handoff", map[string]any{"option": second, "context": ctx}, false)
		Expect(selections()).To(Equal([]string{first["option_id"].(string), second["option_id"].(string)}), "get_ride_booking_handoff selects its option")
	})
})

package journey_test

import (
	"encoding/json"
	"fmt"

	"github.com/tridenttaxis/trident-mcp/server/relay/journey"
)

// continue_journey into the shipped flights connector: first the journey
// lacks the travel date (a proposal, nothing changes), then the call adds it
// and the connector is ready.
func Example() {
	reg, err := journey.DefaultRegistry()
	if err != nil {
		fmt.Println(err)
		return
	}
	reported := map[string]journey.Reported{"flights": {Installed: true, Enabled: true, Authorized: true, Available: true}}
	stored, _ := journey.Decode(json.RawMessage(`{"origin_airport":"GLA","destination_airport":"JFK","party_size":2}`))

	d, _ := reg.Decide("flights", reported, stored)
	fmt.Println(d.Status, d.MissingFields)

	explicit, _ := journey.Decode(json.RawMessage(`{"start_date":"2026-12-24"}`))
	fields, err := journey.Combine(explicit, "journey_context", stored, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ = reg.Decide("flights", reported, fields)
	action, _ := json.Marshal(d.NextAction)
	fmt.Println(d.Status, string(action))
	// Output:
	// proposal [start_date]
	// ready {"connector":"flights","tool":"search_flights","arguments":{"departure_date":"2026-12-24","destination":"JFK","origin":"GLA","passengers":2}}
}

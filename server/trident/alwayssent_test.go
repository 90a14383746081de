package trident_test

import (
	"encoding/json"
	"testing"

	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
)

// TestAlwaysSendsOptionalOutputs holds the server to what the output
// schemas' descriptions promise: appliedRules and prefilled are optional in
// the contract (the specification's Tools-section examples leave them out)
// but this server sends them on every result, appliedRules as [] when no
// rule changed the fare.
func TestAlwaysSendsOptionalOutputs(t *testing.T) {
	ts := start(t, nil)
	for _, tc := range []struct {
		name, tool, args, member string
		wantEmpty                bool
	}{
		// A local saloon hire by day, not pre-booked: no rule changes the fare.
		{"estimate_fare with no rule applied", "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Rhu"}`, "appliedRules", true},
		{"estimate_fare with rules", "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive"}`, "appliedRules", false},
		{"start_booking with no optional argument", "start_booking", `{"pickup":"Helensburgh Central Station","dropoff":"Rhu","vehicleType":"saloon"}`, "prefilled", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := kit.Post(t, ts.URL+"/mcp", kit.Headers(),
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tc.tool+`","arguments":`+tc.args+`}}`)
			var msg struct {
				Result struct {
					IsError           bool                       `json:"isError"`
					StructuredContent map[string]json.RawMessage `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal(r.Body, &msg); err != nil || r.Status != 200 || msg.Result.IsError {
				t.Fatalf("want a result: %d %s", r.Status, r.Body)
			}
			v, ok := msg.Result.StructuredContent[tc.member]
			if !ok {
				t.Fatalf("structuredContent lacks %s: %s", tc.member, r.Body)
			}
			switch {
			case tc.wantEmpty && string(v) != "[]":
				t.Errorf("%s = %s, want []", tc.member, v)
			case !tc.wantEmpty && (string(v) == "[]" || string(v) == "null" || string(v) == "{}"):
				t.Errorf("%s = %s, want it filled", tc.member, v)
			}
		})
	}
}

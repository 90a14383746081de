package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// FuzzSearchInput feeds arbitrary argument bytes to search_rides: it never
// panics, and answers either a result or a refusal for the arguments or the
// context, never anything else.
func FuzzSearchInput(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, ``, `[]`, `{"pickup":{"latitude":40.6413,"longitude":-73.7781},"dropoff":{"latitude":40.758,"longitude":-73.9855},"party_size":2}`,
		`{"pickup":{"latitude":1e400,"longitude":0}}`, `{"pickup":{"latitude":1e-99999999999,"longitude":0e99999999}}`, `{"limit":12.0}`, `{"limit":9223372036854775808}`, `{"providers":["uber","uber"]}`,
		`{"currency":"GB\u0000"}`, `{"context":{"session_id":"a","journey_id":"b","intent_id":"c","request_id":"d","verification":{"kid":"k1","alg":"HS256","signature":"x"}}}`,
		`{"journey_context":{"start_date":"2026-02-30"}}`, `{"destination_city":"` + strings.Repeat("x", 101) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	s, err := relay.New(&relay.Options{Logger: discard, Keys: mustKeys(f, "k1:"+strings.Repeat("A", 43))})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	h := handlers(s)[mcptypes.ToolSearchRides]
	f.Fuzz(func(t *testing.T, args []byte) {
		res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: mcptypes.ToolSearchRides, Arguments: json.RawMessage(args)}})
		var te *mcphttp.ToolError
		if err != nil && !errors.As(err, &te) {
			t.Fatalf("neither a result nor a refusal: %v", err)
		}
		if te != nil {
			b, _ := json.Marshal(te.Structured)
			var r mcptypes.Refusal
			if json.Unmarshal(b, &r) != nil || (r.Status != "invalid_arguments" && r.Status != "invalid_context") || te.Text != string(b) {
				t.Fatalf("refusal %s", b)
			}
			return
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out mcptypes.SearchRidesResult
		if err := json.Unmarshal(b, &out); err != nil || out.Options == nil || out.RelayContext.Verification.Signature == "" {
			t.Fatalf("result %s: %v", b, err)
		}
	})
}

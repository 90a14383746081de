package relay_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// In OAuth mode options and contexts are bound to the token's subject and
// client: another caller presenting them is refused, even with the same
// session and journey.
func TestForeignActor(t *testing.T) {
	s, _ := fakeRelay(t, nil, &fakeSource{quotes: []relay.Quote{quote("uberx", 5200, 6100)}}, nil)
	h := s.Handlers()
	as := func(sub, clientID string) context.Context {
		return auth.WithCaller(context.Background(), auth.NewCaller(auth.CallerInfo{UserID: sub, ClientID: clientID}))
	}
	invoke := func(ctx context.Context, tool string, args any) (json.RawMessage, bool) {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := h[tool](ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: b}})
		sc, refused := structuredOf(t, res, err)
		return sc, refused
	}
	alice := as("alice", "app-1")
	raw, refused := invoke(alice, "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare})
	if refused {
		t.Fatalf("search refused: %s", raw)
	}
	out := decodeInto[mcptypes.SearchRidesResult](t, raw)
	args := map[string]any{"options": out.Options, "context": out.RelayContext}
	if raw, refused := invoke(alice, "compare_rides", args); refused {
		t.Fatalf("the issuing caller is refused: %s", raw)
	}
	for name, ctx := range map[string]context.Context{
		"another user":   as("mallory", "app-1"),
		"another client": as("alice", "app-2"),
		"anonymous":      context.Background(),
	} {
		raw, refused := invoke(ctx, "compare_rides", args)
		r := decodeInto[mcptypes.Refusal](t, raw)
		if !refused || r.Status != mcptypes.RefusalStatusInvalidContext {
			t.Errorf("%s: %s, want invalid_context (the context is alice's)", name, raw)
		}
	}
	// Mallory with a context of her own still cannot use alice's options.
	mallory := as("mallory", "app-1")
	raw, _ = invoke(mallory, "search_rides", map[string]any{})
	own := decodeInto[mcptypes.SearchRidesResult](t, raw).RelayContext
	raw, refused = invoke(mallory, "compare_rides", map[string]any{"options": out.Options, "context": own})
	if r := decodeInto[mcptypes.Refusal](t, raw); !refused || r.Status != mcptypes.RefusalStatusInvalidOption {
		t.Errorf("alice's option under mallory's context: %s, want invalid_option", raw)
	}
}

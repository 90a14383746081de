package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// A journey begun by one actor, its request retained, and another actor
// refused.
func Example() {
	dir, _ := os.MkdirTemp("", "relay-store-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	st, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "relay.db"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	refs, _ := st.Begin(ctx, "client-a|user-1", "search_rides", json.RawMessage(`{"destination_city":"New York","party_size":2}`))
	st.RecordEvent(ctx, "client-a|user-1", store.Event{Kind: store.EventRequest,
		JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "req-1",
		Tool: "search_rides", Status: "handoff_available"})

	evs, _ := st.Events(ctx, "client-a|user-1", refs.JourneyID)
	fmt.Println(len(evs), evs[0].Kind, evs[0].Status)

	_, err = st.Journey(ctx, "client-b|user-9", refs.JourneyID)
	fmt.Println(errors.Is(err, store.ErrForeignActor))
	// Output:
	// 1 request handoff_available
	// true
}

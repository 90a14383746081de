package trident_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// pairGeo answers a lookup only once both lookups of a call have begun,
// so a handler that geocodes one address after the other never gets its
// first answer. A query naming "Nowhere" fails at once with ErrNoMatch; one
// naming "Hang" waits for its context.
type pairGeo struct {
	fakeGeo
	mu      sync.Mutex
	entered int
	both    chan struct{}
}

func (p *pairGeo) Geocode(ctx context.Context, q string) (geo.Place, error) {
	switch {
	case strings.Contains(q, "Nowhere"):
		return geo.Place{}, geo.ErrNoMatch
	case strings.Contains(q, "Hang"):
		<-ctx.Done()
		return geo.Place{}, &geo.BackendError{Backend: "test", Message: "caller gave up", Err: ctx.Err()}
	}
	p.mu.Lock()
	if p.entered++; p.entered == 2 {
		close(p.both)
	}
	p.mu.Unlock()
	select {
	case <-p.both:
		return p.fakeGeo.Geocode(ctx, q)
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing
		return geo.Place{}, &geo.BackendError{Backend: "test", Message: "the other lookup never began"}
	}
}

// TestPickupAndDropoffGeocodeTogether: the two lookups of estimate_fare run
// at once (so a slow back end costs one timeout, not two), and the first to
// fail ends the call without waiting for the other.
func TestPickupAndDropoffGeocodeTogether(t *testing.T) {
	g := &pairGeo{both: make(chan struct{})}
	ts := start(t, &opts{ep: trident.Options{Geocoder: g, Router: g}})
	call := func(pickup, dropoff string) string {
		t.Helper()
		r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"`+pickup+`","dropoff":"`+dropoff+`"}}}`)
		if r.Status != 200 {
			t.Fatalf("HTTP %d %s", r.Status, r.Body)
		}
		return string(r.Body)
	}
	if body := call("Helensburgh Central Station", "Glasgow Airport"); !strings.Contains(body, `"fareGBP"`) {
		t.Errorf("both lookups waiting on each other: %s, want a fare", body)
	}
	for _, tt := range []struct{ pickup, dropoff string }{
		{"Nowhere", "Hang Street"}, // the pickup fails; the dropoff would wait for ever
		{"Hang Street", "Nowhere"},
	} {
		want, _ := json.Marshal(mcphttp.ToolText(errcodes.GeocodeFailed, "estimate_fare"))
		if body := call(tt.pickup, tt.dropoff); !strings.Contains(body, `"isError":true`) || !strings.Contains(body, string(want)) {
			t.Errorf("%s to %s: %s, want the GEOCODE_FAILED refusal", tt.pickup, tt.dropoff, body)
		}
	}
}

package relay_test

import (
	"testing"

	"github.com/tridenttaxis/trident-mcp/client"
	relayclient "github.com/tridenttaxis/trident-mcp/client/relay"
	relaycodes "github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

// The generated client methods reach every Relay tool, and a refusal comes
// back as a ToolError whose code and Refusal the client recognises.
func TestTypedClient(t *testing.T) {
	_, gc := fakeRelay(t, nil, &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}, nil)
	c := &relayclient.Client{Client: gc}
	ctx := t.Context()
	out, err := c.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &jfk, Dropoff: &timesSquare, PartySize: ptr(int64(2))})
	if err != nil || out.Status != "ok" {
		t.Fatalf("SearchRides: %v %+v", err, out)
	}
	rc := out.RelayContext
	if _, err := c.CompareRides(ctx, mcptypes.CompareRidesInput{Options: out.Options, Context: &rc}); err != nil {
		t.Error(err)
	}
	if res, err := c.ResolveRide(ctx, mcptypes.ResolveRideInput{Option: out.Options[0], Context: &rc}); err != nil || res.Option == nil {
		t.Errorf("ResolveRide: %v", err)
	}
	if h, err := c.GetRideBookingHandoff(ctx, mcptypes.GetRideBookingHandoffInput{Option: &out.Options[0], Context: &rc}); err != nil || h.URL == nil {
		t.Errorf("GetRideBookingHandoff: %v", err)
	}
	if _, err := c.ContinueJourney(ctx, mcptypes.ContinueJourneyInput{JourneyID: rc.JourneyID, Context: rc, ToConnector: "stays"}); err != nil {
		t.Error(err)
	}
	bad := out.Options[0]
	bad.Price.AmountMinor++
	_, err = c.CompareRides(ctx, mcptypes.CompareRidesInput{Options: []mcptypes.RideOption{bad}, Context: &rc})
	r, ok := relayclient.Refusal(err)
	if !ok || r.Status != mcptypes.RefusalStatusInvalidOption || client.CodeOf(err) != client.Code(relaycodes.RelayInvalidOption) {
		t.Errorf("refusal %v: %+v, code %q", err, r, client.CodeOf(err))
	}
}

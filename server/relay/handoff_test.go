package relay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	tridentclient "github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	tridenttypes "github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

func handoff(tb testing.TB, c *client.Client, args map[string]any) mcptypes.RideBookingHandoff {
	tb.Helper()
	h := decodeInto[mcptypes.RideBookingHandoff](tb, call(tb, c, mcptypes.ToolGetRideBookingHandoff, args, false))
	// What every handoff says, whatever its destination.
	if h.ProviderAccess.Enforcement != "advisory_only" || h.ProviderAccess.Decision != "assistant_discretion" ||
		h.NativeExecutionAvailable || h.Completed || h.ConfirmationState != "not_started" || h.NextStep.Owner != "assistant" ||
		len(h.NextStep.Instructions) == 0 || h.Attribution == "" {
		tb.Errorf("handoff fixed fields: %+v", h)
	}
	if h.ProviderAccess.AgentPolicy == "unknown" && (len(h.ProviderAccess.Advisories) != 0 || len(h.NextStep.Advisories) != 0) {
		tb.Errorf("an unknown policy adds advisories: %+v", h.ProviderAccess)
	}
	return h
}

func TestTridentHandoffIsItsPrefilledBookingLink(t *testing.T) {
	_, c, tridentURL := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2})
	tc, err := tridentclient.New(tridentURL)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]mcptypes.RideOption{}
	for _, o := range out.Options {
		byID[o.Product.ID] = o
	}
	for _, vt := range []string{"saloon", "mpv", "wav"} {
		h := handoff(t, c, map[string]any{"option": byID[vt], "context": out.RelayContext})
		want, err := tc.StartBooking(context.Background(), tridenttypes.StartBookingInput{Pickup: pair(helensburgh), Dropoff: pair(glasgowAir), VehicleType: tridenttypes.StartBookingInputVehicleType(vt), Passengers: ptr(int64(2))})
		if err != nil {
			t.Fatal(err)
		}
		if h.URL == nil || *h.URL != want.BookingURL || h.DestinationKind != "web" || !h.SelectionPreserved || !h.ParametersApplied || *h.OptionID != byID[vt].OptionID {
			t.Errorf("%s handoff %+v, want %s", vt, h, want.BookingURL)
		}
		if !strings.Contains(want.BookingURL, "vehicleType="+vt) {
			t.Errorf("booking URL %s", want.BookingURL)
		}
	}
	// Trident's booking form takes saloon, mpv and wav only: the executive
	// option hands off to its entry page, and says so.
	h := handoff(t, c, map[string]any{"option": byID["executive"], "context": out.RelayContext})
	if h.URL == nil || *h.URL != "https://tridenttaxis.online" || h.DestinationKind != "provider_entry" || h.SelectionPreserved || h.ParametersApplied {
		t.Errorf("executive handoff %+v", h)
	}
}

func TestProviderEntryHandoff(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	search := map[string]any{"pickup": jfk, "dropoff": timesSquare, "destination_city": "New York", "party_size": 2}
	h := handoff(t, c, map[string]any{"provider": "uber", "search": search})
	if *h.URL != "https://m.uber.com/ul/?action=setPickup&pickup[latitude]=40.6413&pickup[longitude]=-73.7781&dropoff[latitude]=40.758&dropoff[longitude]=-73.9855" ||
		h.DestinationKind != "app_link" || !h.ParametersApplied || h.SelectionPreserved || h.OptionID != nil {
		t.Errorf("uber with route: %+v", h)
	}
	h = handoff(t, c, map[string]any{"provider": "uber"})
	if *h.URL != "https://m.uber.com/" || h.DestinationKind != "provider_entry" || h.ParametersApplied {
		t.Errorf("uber without route: %+v", h)
	}
	h = handoff(t, c, map[string]any{"provider": "freenow", "search": map[string]any{"pickup": londonKingsCross, "dropoff": heathrow}})
	if *h.URL != "https://www.free-now.com/" || h.DestinationKind != "provider_entry" || h.ParametersApplied {
		t.Errorf("freenow: %+v", h)
	}
	r := refusalOf(t, c, mcptypes.ToolGetRideBookingHandoff, map[string]any{"provider": "uber", "search": map[string]any{"pickup": map[string]any{"latitude": 100, "longitude": 0}}})
	if r.Status != "invalid_arguments" || r.Fields[0].Field != "/search/pickup/latitude" {
		t.Errorf("%+v", r)
	}
}

func TestIntegrationRequiredWithoutConsumerPath(t *testing.T) {
	reg := registryWith(t, "lyft", func(p *registry.Provider) { p.Link, p.EntryPage = nil, "" })
	_, c := newRelay(t, relay.Options{Registry: reg, Sources: map[string]sources.Source{"lyft": &fakeSource{quotes: []sources.Quote{quote("lyft", 1, 2)}}}})
	out := nySearch(t, c, nil)
	h := handoff(t, c, map[string]any{"option": out.Options[0], "context": out.RelayContext})
	if h.URL != nil || h.DestinationKind != "integration_required" || h.SelectionPreserved || h.ParametersApplied {
		t.Errorf("%+v", h)
	}
}

func TestAPIOptionHandoffIsTheProviderLink(t *testing.T) {
	_, c := fakeRelay(t, nil, &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}, nil)
	out := nySearch(t, c, nil)
	h := handoff(t, c, map[string]any{"option": out.Options[0], "context": out.RelayContext})
	if h.URL == nil || !strings.Contains(*h.URL, "pickup[latitude]=40.6413") || h.SelectionPreserved || !h.ParametersApplied || h.DestinationKind != "app_link" {
		t.Errorf("%+v", h)
	}
}

func TestResolve(t *testing.T) {
	t.Run("trident re-quotes and issues a fresh option", func(t *testing.T) {
		_, c, _ := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
		out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2})
		exec := out.Options[2]
		res := decodeInto[mcptypes.ResolveRideResult](t, call(t, c, "resolve_ride", map[string]any{"option": exec, "context": out.RelayContext}, false))
		if res.Status != "ok" || res.Option == nil || res.Option.OptionID == exec.OptionID || !jsonEqual(res.Option.Price, exec.Price) || res.Option.Product.ID != "executive" {
			t.Fatalf("resolve = %+v", res)
		}
		if len(res.ProviderCalls) != 1 || res.ProviderCalls[0].Operation != "estimate_fare" {
			t.Errorf("resolve asked for more than the selected product: %+v", res.ProviderCalls)
		}
		call(t, c, "compare_rides", map[string]any{"options": []any{*res.Option, exec}, "context": res.RelayContext}, false)
	})
	clock := &fakeClock{t: dayClock}
	src := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}
	shared := testStore(t, nil)
	c := serve(t, mustRelay(t, relay.Options{Sources: map[string]sources.Source{"uber": src}, OptionTTL: time.Minute, CallTimeout: 200 * time.Millisecond, Now: clock.Now, Store: shared}))
	out := nySearch(t, c, nil)
	opt := out.Options[0]
	t.Run("a failed refresh returns no price", func(t *testing.T) {
		src.err, src.quotes = &sources.Error{Code: "upstream_error", Message: "Uber is unavailable", HTTPStatus: 502}, nil
		defer func() { src.err, src.quotes = nil, []sources.Quote{quote("uberx", 5200, 6100)} }()
		res := decodeInto[mcptypes.ResolveRideResult](t, call(t, c, "resolve_ride", map[string]any{"option": opt, "context": out.RelayContext}, false))
		if res.Status != "partial" || res.Option != nil || len(res.Errors) != 1 || res.Errors[0].Code != "upstream_error" {
			t.Errorf("%+v", res)
		}
	})
	t.Run("a product no longer offered", func(t *testing.T) {
		src.quotes = []sources.Quote{quote("black", 9000, 9900)}
		defer func() { src.quotes = []sources.Quote{quote("uberx", 5200, 6100)} }()
		res := decodeInto[mcptypes.ResolveRideResult](t, call(t, c, "resolve_ride", map[string]any{"option": opt, "context": out.RelayContext}, false))
		if res.Status != "partial" || res.Option != nil || res.Errors[0].Code != "refused" {
			t.Errorf("%+v", res)
		}
	})
	t.Run("credentials removed", func(t *testing.T) {
		// Same keys, no Uber source: the option verifies but cannot be refreshed.
		_, bare := newRelay(t, relay.Options{Now: clock.Now, OptionTTL: time.Minute, Store: shared})
		r := refusalOf(t, bare, "resolve_ride", map[string]any{"option": opt, "context": out.RelayContext})
		if r.Status != "credentials_required" || r.Provider == nil || *r.Provider != "uber" {
			t.Errorf("%+v", r)
		}
	})
	t.Run("rate limited: cool-down, reported, not retried", func(t *testing.T) {
		src.err, src.quotes = &sources.Error{Code: "rate_limited", Message: "Uber is rate limiting Relay", HTTPStatus: 429, RetryAfter: 30 * time.Second}, nil
		res := decodeInto[mcptypes.ResolveRideResult](t, call(t, c, "resolve_ride", map[string]any{"option": opt, "context": out.RelayContext}, false))
		if res.Status != "partial" || res.Errors[0].Code != "rate_limited" || *res.Errors[0].RetryAfterSeconds != 30 {
			t.Fatalf("%+v", res)
		}
		before := src.calls.Load()
		r := refusalOf(t, c, "resolve_ride", map[string]any{"option": opt, "context": out.RelayContext})
		if r.Status != "rate_limited" || r.RetryAfterSeconds == nil || *r.RetryAfterSeconds != 30 {
			t.Errorf("%+v", r)
		}
		again := nySearch(t, c, map[string]any{"context": out.RelayContext})
		if st := statusOf(again, "uber"); st.Status != "rate_limited" {
			t.Errorf("search during cool-down: uber %+v", st)
		}
		if src.calls.Load() != before {
			t.Errorf("Uber was called during its cool-down")
		}
		clock.Add(31 * time.Second)
		src.err, src.quotes = nil, []sources.Quote{quote("uberx", 5200, 6100)}
		if st := statusOf(nySearch(t, c, nil), "uber"); st.Status != "ok" {
			t.Errorf("after the cool-down: %+v", st)
		}
	})
}

// TestTridentHandoffOfAnOptionThePartyExceeds: a party of six picking the
// saloon (four seats) is not sent to Trident's booking form, which would
// refuse it, but to Trident's entry page with the reason; the MPV, which
// seats them, keeps its prefilled link.
func TestTridentHandoffOfAnOptionThePartyExceeds(t *testing.T) {
	_, c, _ := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 6})
	byID := map[string]mcptypes.RideOption{}
	for _, o := range out.Options {
		byID[o.Product.ID] = o
	}
	if !byID["saloon"].ExceedsCapacity || byID["mpv"].ExceedsCapacity {
		t.Fatalf("saloon %+v, mpv %+v", byID["saloon"], byID["mpv"])
	}
	h := handoff(t, c, map[string]any{"option": byID["saloon"], "context": out.RelayContext})
	if h.URL == nil || *h.URL != "https://tridenttaxis.online" || h.DestinationKind != "provider_entry" || h.SelectionPreserved ||
		!strings.Contains(strings.Join(h.NextStep.Instructions, " "), "larger than the Saloon's seats") {
		t.Errorf("saloon for six: %+v", h)
	}
	h = handoff(t, c, map[string]any{"option": byID["mpv"], "context": out.RelayContext})
	if h.URL == nil || !strings.Contains(*h.URL, "vehicleType=mpv") || !h.SelectionPreserved {
		t.Errorf("mpv for six: %+v", h)
	}
}

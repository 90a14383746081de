package relay_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	tridentclient "github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	tridenttypes "github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

func newRelay(tb testing.TB, o relay.Options) (*mcphttp.Endpoint, *client.Client) {
	tb.Helper()
	s := mustRelay(tb, o)
	return s, serve(tb, s)
}

// mustRelay builds a Relay server with the test keys and a quiet log.
func mustRelay(tb testing.TB, o relay.Options) *mcphttp.Endpoint {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = discard
	}
	if o.Keys == nil {
		k, err := signing.ParseKeys("k1:" + strings.Repeat("A", 43))
		if err != nil {
			tb.Fatal(err)
		}
		o.Keys = k
	}
	s, err := relay.New(&o)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// tridentRelay is Relay priced by a real Trident over HTTP
// (Options.TridentURL); it returns Trident's URL too.
func tridentRelay(tb testing.TB, o relay.Options) (*mcphttp.Endpoint, *client.Client, string) {
	tb.Helper()
	o.TridentURL = startTrident(tb)
	s, c := newRelay(tb, o)
	return s, c, o.TridentURL
}

func statusOf(out mcptypes.SearchRidesResult, id string) mcptypes.ProviderStatus {
	for _, p := range out.Providers {
		if p.Provider == id {
			return p
		}
	}
	return mcptypes.ProviderStatus{}
}

// The done-when check: New York coordinates, no credentials.
func TestSearchNewYorkIsHandoffsOnly(t *testing.T) {
	_, c, _ := tridentRelay(t, relay.Options{})
	out := search(t, c, map[string]any{"pickup": jfk, "dropoff": timesSquare, "destination_city": "New York", "party_size": 2})
	if out.Status != mcptypes.SearchRidesResultStatusHandoffAvailable || len(out.Options) != 0 || len(out.ProviderCalls) != 0 {
		t.Fatalf("status %s, %d options, %d calls; want handoff_available with none", out.Status, len(out.Options), len(out.ProviderCalls))
	}
	want := map[string]struct {
		url    string
		kind   mcptypes.BrowserHandoffDestinationKind
		params bool
	}{
		"uber": {"https://m.uber.com/ul/?action=setPickup&pickup[latitude]=40.6413&pickup[longitude]=-73.7781&dropoff[latitude]=40.758&dropoff[longitude]=-73.9855", "app_link", true},
		"lyft": {"https://ride.lyft.com/request?pickup=@40.6413,-73.7781&destination=@40.758,-73.9855", "web", true},
	}
	if len(out.BrowserHandoffs) != len(want) {
		t.Errorf("%d handoffs, want %d (Trident, Gett, Bolt and FREENOW do not operate in New York): %+v", len(out.BrowserHandoffs), len(want), out.BrowserHandoffs)
	}
	for _, h := range out.BrowserHandoffs {
		w, ok := want[h.Provider]
		if !ok {
			t.Errorf("unexpected handoff %+v", h)
			continue
		}
		if h.URL != w.url || h.DestinationKind != w.kind || h.ParametersApplied != w.params || h.SelectionPreserved {
			t.Errorf("%s handoff = %+v, want url %s kind %s parameters_applied %v, selection_preserved false", h.Provider, h, w.url, w.kind, w.params)
		}
	}
	for id, want := range map[string]mcptypes.ProviderStatusStatus{
		"trident": "not_eligible", "uber": "credentials_required", "lyft": "credentials_required",
		"gett": "handoff_only", "bolt": "handoff_only", "freenow": "handoff_only",
	} {
		if got := statusOf(out, id); got.Status != want || got.Reason == nil {
			t.Errorf("%s: status %q (reason %v), want %q with a reason", id, got.Status, got.Reason, want)
		}
	}
	if cc := out.ContinuationContext; cc.DestinationCity == nil || *cc.DestinationCity != "New York" || cc.PartySize == nil || *cc.PartySize != 2 {
		t.Errorf("continuation_context = %+v, want New York, party 2", cc)
	}
}

// The done-when check: Helensburgh Central to Glasgow Airport is Trident's,
// one signed option per vehicle class, each priced as
// estimate_fare prices the same trip.
func TestSearchTridentOptionsMatchEstimateFare(t *testing.T) {
	_, c, tridentURL := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2})
	if out.Status != mcptypes.SearchRidesResultStatusOk {
		t.Fatalf("status = %s, want ok: %+v %+v", out.Status, out.Providers, out.Errors)
	}
	classes := []string{"saloon", "estate", "executive", "6seater", "mpv", "wav"}
	var got []string
	for _, o := range out.Options {
		got = append(got, o.Product.ID)
	}
	if !slices.Equal(got, classes) {
		t.Fatalf("options for %v, want %v", got, classes)
	}
	tc, err := tridentclient.New(tridentURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out.Options {
		vt := tridenttypes.EstimateFareInputVehicleType(o.Product.ID)
		q, err := tc.EstimateFare(context.Background(), tridenttypes.EstimateFareInput{Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport", VehicleType: &vt})
		if err != nil {
			t.Fatal(err)
		}
		wantMinor := int64(q.FareGBP*100 + 0.5) // test-side only: the oracle, not the code under test
		p := o.Price
		if p.AmountMinor != wantMinor || p.Currency != "GBP" || p.Basis != "fixed" || p.AmountMinorMax != nil || p.TaxesIncluded != nil || p.FeesIncluded == nil || !*p.FeesIncluded {
			t.Errorf("%s: price %+v, want %d GBP fixed, fees included, taxes unknown", o.Product.ID, p, wantMinor)
		}
		if o.Verification.Kid != "k1" || o.Verification.Alg != "HS256" || o.Verification.Signature == "" || o.Provider != "trident" || o.DataMode != "live" {
			t.Errorf("%s: %+v", o.Product.ID, o)
		}
	}
	if out.Options[2].Price.AmountMinor != 6240 {
		t.Errorf("executive by day = %d, want 6240", out.Options[2].Price.AmountMinor)
	}
	// One estimate_fare prices every class (the others as Trident's
	// alternatives): one provider call with six options.
	if n := len(out.ProviderCalls); n != 1 {
		t.Fatalf("%d provider calls, want one estimate_fare for every class: %+v", n, out.ProviderCalls)
	}
	for _, pc := range out.ProviderCalls {
		if pc.Provider != "trident" || pc.Operation != "estimate_fare" || pc.Outcome != "ok" || pc.HttpStatus == nil || *pc.HttpStatus != 200 || pc.Options != int64(len(classes)) {
			t.Errorf("provider call %+v", pc)
		}
	}
}

// The specification's party_size "does not select a vehicle": a party of
// eight gets every Trident class, each saying its seats and flagged where
// the party exceeds them, and Trident is ok, not failed.
func TestSearchPartySizeSelectsNoVehicle(t *testing.T) {
	_, c, _ := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
	for _, party := range []int{5, 8} {
		out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": party, "limit": 12})
		if out.Status != mcptypes.SearchRidesResultStatusOk || out.Providers[0].Provider != "trident" || out.Providers[0].Status != mcptypes.ProviderStatusStatusOk {
			t.Fatalf("party of %d: status %s, providers %+v", party, out.Status, out.Providers)
		}
		var got []string
		for _, o := range out.Options {
			got = append(got, o.Product.ID)
			if o.Product.Capacity == nil {
				t.Fatalf("party of %d: %s says no seats", party, o.Product.ID)
			}
			if want := int64(party) > *o.Product.Capacity; o.ExceedsCapacity != want {
				t.Errorf("party of %d: %s (%d seats) exceeds_capacity = %v, want %v", party, o.Product.ID, *o.Product.Capacity, o.ExceedsCapacity, want)
			}
		}
		if !slices.Equal(got, []string{"saloon", "estate", "executive", "6seater", "mpv", "wav"}) {
			t.Errorf("party of %d: %v, want every class", party, got)
		}
	}
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "limit": 2})
	if len(out.Options) != 2 || out.Options[0].ExceedsCapacity {
		t.Errorf("limit 2, no party: %+v", out.Options)
	}
}

func TestSearchWithoutCoordinatesNeedsInput(t *testing.T) {
	_, c, _ := tridentRelay(t, relay.Options{})
	out := search(t, c, map[string]any{"destination_city": "Glasgow"})
	st := statusOf(out, "trident")
	if st.Status != "input_required" || !slices.Equal(st.MissingFields, []string{"pickup", "dropoff"}) {
		t.Errorf("trident = %+v, want input_required [pickup dropoff]", st)
	}
	if out.Status != "handoff_available" {
		t.Errorf("status = %s", out.Status)
	}
	for _, h := range out.BrowserHandoffs {
		if h.ParametersApplied || h.DestinationKind != "provider_entry" {
			t.Errorf("without coordinates every handoff is an entry page: %+v", h)
		}
	}
}

// Trident's refusals and outages are sanitised failures of the source: a
// place its geocoder does not know is "refused" (by catalogue code, not
// Trident's text), an unreachable Trident an upstream error.
func TestTridentFailures(t *testing.T) {
	up := startTrident(t)
	down := httptest.NewServer(nil)
	down.Close()
	for name, tc := range map[string]struct {
		url  string
		code mcptypes.ProviderErrorCode
	}{
		"a trip Trident refuses": {up, "refused"},
		"Trident down":           {down.URL + "/mcp", "upstream_error"},
	} {
		t.Run(name, func(t *testing.T) {
			_, c := newRelay(t, relay.Options{TridentURL: tc.url})
			// From Helensburgh (in Trident's area) to Paris, outside the UK
			// its geocoder serves.
			out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": mcptypes.Coordinates{Latitude: 48.8566, Longitude: 2.3522}})
			if out.Status != "handoff_available" || len(out.Errors) != 1 || out.Errors[0].Code != tc.code || statusOf(out, "trident").Status != "failed" {
				t.Fatalf("status %s, errors %+v", out.Status, out.Errors)
			}
			if strings.Contains(out.Errors[0].Message, "could not be geocoded") {
				t.Errorf("Trident's own text reached the caller: %s", out.Errors[0].Message)
			}
			if len(out.ProviderCalls) != 1 {
				t.Errorf("%d provider calls, want the one estimate_fare for every class", len(out.ProviderCalls))
			}
		})
	}
}

func TestRequiredInputsFromTheRegistry(t *testing.T) {
	reg := registryWith(t, "uber", func(p *registry.Provider) {
		p.API.RequiredInputs = []string{"party_size"} // the ends are required anyway
	})
	src := &fakeSource{quotes: []sources.Quote{quote("uberx", 1, 2)}}
	_, c := newRelay(t, relay.Options{Registry: reg, Sources: map[string]sources.Source{"uber": src}})
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"pickup": jfk, "dropoff": timesSquare}, []string{"party_size"}},
		{map[string]any{"pickup": jfk, "party_size": 2}, []string{"dropoff"}},
		{map[string]any{}, []string{"pickup", "dropoff", "party_size"}},
	} {
		st := statusOf(search(t, c, tc.args), "uber")
		if st.Status != "input_required" || !slices.Equal(st.MissingFields, tc.want) {
			t.Errorf("%v: %+v, want input_required %v", tc.args, st, tc.want)
		}
	}
	if src.calls.Load() != 0 {
		t.Error("a source lacking inputs was called")
	}
}

// TestCooledDownProviderMakesSearchPartial: the specification's "Rate
// limit or unavailable provider ... use surviving options". Lyft answers
// 429 with Retry-After: 90; the next search leaves Lyft alone (not called)
// and is partial, not ok, Lyft's entry saying why and when to ask again.
func TestCooledDownProviderMakesSearchPartial(t *testing.T) {
	clock := &fakeClock{t: dayClock}
	lyft := &fakeSource{err: &sources.Error{Code: mcptypes.ProviderErrorCodeRateLimited, Message: "Lyft is rate limiting Relay", HTTPStatus: 429, RetryAfter: 90 * time.Second}}
	_, c := fakeRelay(t, clock, &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}, lyft)
	if first := nySearch(t, c, nil); first.Status != mcptypes.SearchRidesResultStatusPartial {
		t.Fatalf("the search Lyft answered 429: %s, want partial", first.Status)
	}
	clock.Add(30 * time.Second)
	out := nySearch(t, c, nil)
	st := statusOf(out, "lyft")
	if out.Status != mcptypes.SearchRidesResultStatusPartial || len(out.Options) != 1 {
		t.Errorf("during Lyft's cool-down: %s with %d options, want partial with Uber's", out.Status, len(out.Options))
	}
	if st.Status != mcptypes.ProviderStatusStatusRateLimited || st.Reason == nil || !strings.Contains(*st.Reason, "cooling down") ||
		st.RetryAfterSeconds == nil || *st.RetryAfterSeconds != 60 {
		t.Errorf("lyft %+v, want rate_limited, cooling down, retry_after_seconds 60", st)
	}
	if n := lyft.calls.Load(); n != 1 {
		t.Errorf("Lyft called %d times, want once (not during its cool-down)", n)
	}
	for _, pc := range out.ProviderCalls {
		if pc.Provider == "lyft" {
			t.Errorf("a provider call to Lyft during its cool-down: %+v", pc)
		}
	}
	clock.Add(61 * time.Second)
	lyft.err, lyft.quotes = nil, []sources.Quote{quote("lyft", 4800, 5900)}
	if after := nySearch(t, c, nil); after.Status != mcptypes.SearchRidesResultStatusOk {
		t.Errorf("after the cool-down: %s, want ok", after.Status)
	}
}

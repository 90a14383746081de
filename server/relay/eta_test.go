package relay_test

import (
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	lyftapi "github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	uberapi "github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
)

// Uber's and Lyft's options carry the pickup ETA their ETA endpoints give
// for the product, each ETA call listed in provider_calls; a product with
// no ETA keeps eta_seconds null.
func TestETAsFromUberAndLyft(t *testing.T) {
	uber, lyft, searchNY := uberLyft(t)
	out := searchNY(map[string]any{"limit": 12})
	if out.Status != "ok" {
		t.Fatalf("status %s: %+v", out.Status, out.Errors)
	}
	want := map[string]*int64{
		"uber/a1111c8c-c720-46c3-8534-2fcdd730040d": ptr(int64(180)), // UberX
		"uber/d4abaae7-f4d6-4152-91cc-77523e8165a4": ptr(int64(420)), // Black
		"uber/821415d8-3bd5-4e27-9604-194e4359a449": nil,             // UberXL: not in times[]
		"lyft/lyft":      ptr(int64(240)),
		"lyft/lyft_line": ptr(int64(120)),
	}
	for _, o := range out.Options {
		w, ok := want[o.Provider+"/"+o.Product.ID]
		if !ok {
			t.Errorf("unexpected option %s/%s", o.Provider, o.Product.ID)
			continue
		}
		if (w == nil) != (o.EtaSeconds == nil) || (w != nil && *w != *o.EtaSeconds) {
			t.Errorf("%s/%s: eta_seconds %v, want %v", o.Provider, o.Product.ID, o.EtaSeconds, w)
		}
	}
	ops := map[string]bool{}
	for _, c := range out.ProviderCalls {
		ops[c.Provider+" "+c.Operation] = c.Outcome == "ok"
	}
	if !ops["uber GET /v1.2/estimates/time"] || !ops["lyft GET /v1/eta"] {
		t.Errorf("provider_calls %+v", out.ProviderCalls)
	}
	if len(uber.TimeCalls()) != 1 || len(lyft.ETACalls()) != 1 {
		t.Errorf("%d Uber time calls, %d Lyft ETA calls; want one each", len(uber.TimeCalls()), len(lyft.ETACalls()))
	}
}

// An ETA call that fails or outlasts the per-call timeout leaves
// eta_seconds null and the prices standing: the search stays ok.
func TestETAFailureKeepsThePrice(t *testing.T) {
	for _, knob := range []fakeproviders.Knob{fakeproviders.ServerError, fakeproviders.Slow} {
		uber, _, searchNY := uberLyft(t)
		uber.SetTimeKnob(knob)
		out := searchNY(map[string]any{"providers": []string{"uber"}})
		if out.Status != "ok" || len(out.Options) == 0 || len(out.Errors) != 0 {
			t.Fatalf("knob %d: status %s, %d options, errors %+v", knob, out.Status, len(out.Options), out.Errors)
		}
		for _, o := range out.Options {
			if o.EtaSeconds != nil {
				t.Errorf("knob %d: %s eta_seconds %d from a failed call", knob, o.Product.ID, *o.EtaSeconds)
			}
		}
		failed := false
		for _, c := range out.ProviderCalls {
			failed = failed || (c.Operation == "GET /v1.2/estimates/time" && c.Outcome != mcptypes.ProviderCallOutcomeOk)
		}
		if !failed {
			t.Errorf("knob %d: the failed ETA call is not in provider_calls: %+v", knob, out.ProviderCalls)
		}
	}
}

// The ETA call spends the provider's request budget like the price call:
// with a budget of one request a minute, the price is asked and the ETA is
// not.
func TestETASpendsTheBudget(t *testing.T) {
	uber := fakeproviders.NewUber(t, "uber-token")
	_, c := newRelay(t, relay.Options{
		Uber:           uberapi.Config{BaseURL: uber.URL, AccessToken: "uber-token"},
		Lyft:           lyftapi.Config{},
		CallTimeout:    300 * time.Millisecond,
		ProviderBudget: limits.PerMinute(1),
	})
	out := search(t, c, map[string]any{"pickup": jfk, "dropoff": timesSquare, "providers": []string{"uber"}})
	if len(out.Options) == 0 {
		t.Fatalf("no options: %+v", out)
	}
	if n := len(uber.TimeCalls()); n != 0 {
		t.Errorf("%d time calls over a spent budget", n)
	}
	for _, o := range out.Options {
		if o.EtaSeconds != nil {
			t.Errorf("eta_seconds %d without an ETA call", *o.EtaSeconds)
		}
	}
}

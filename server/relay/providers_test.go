package relay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	lyftapi "github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	uberapi "github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
)

// uberLyft configures Relay with Uber and Lyft pointed at fakes that speak
// their APIs, and Trident off.
func uberLyft(t *testing.T) (*fakeproviders.Uber, *fakeproviders.Lyft, func(map[string]any) mcptypes.SearchRidesResult) {
	uber := fakeproviders.NewUber(t, "uber-token")
	lyft := fakeproviders.NewLyft(t, "lyft-id", "lyft-secret")
	_, c := newRelay(t, relay.Options{
		Uber:        uberapi.Config{BaseURL: uber.URL, AccessToken: "uber-token"},
		Lyft:        lyftapi.Config{BaseURL: lyft.URL, ClientID: "lyft-id", ClientSecret: "lyft-secret"},
		CallTimeout: 300 * time.Millisecond,
	})
	return uber, lyft, func(extra map[string]any) mcptypes.SearchRidesResult {
		args := map[string]any{"pickup": jfk, "dropoff": timesSquare, "party_size": 2}
		for k, v := range extra {
			args[k] = v
		}
		return search(t, c, args)
	}
}

func TestUberAndLyftThroughTheirAdapters(t *testing.T) {
	_, _, searchNY := uberLyft(t)
	out := searchNY(map[string]any{"limit": 12})
	if out.Status != "ok" {
		t.Fatalf("status %s: %+v %+v", out.Status, out.Providers, out.Errors)
	}
	byProvider := map[string][]mcptypes.RideOption{}
	for _, o := range out.Options {
		byProvider[o.Provider] = append(byProvider[o.Provider], o)
		if o.Price.Currency == "" || o.Verification.Signature == "" {
			t.Errorf("option %+v", o)
		}
	}
	if len(byProvider["uber"]) == 0 || len(byProvider["lyft"]) == 0 {
		t.Fatalf("options per provider: uber %d, lyft %d", len(byProvider["uber"]), len(byProvider["lyft"]))
	}
	// Lyft's cents stay cents; its invalid estimate is not an option.
	for _, o := range byProvider["lyft"] {
		if o.Product.ID == "lyft" && (o.Price.AmountMinor != 1561 || *o.Price.AmountMinorMax != 2355 || o.Price.Basis != "estimate_range") {
			t.Errorf("Lyft's range: %+v", o.Price)
		}
		if o.Product.ID == "lyft_lux" {
			t.Error("an estimate Lyft marks invalid became an option")
		}
	}
	ops := map[string]bool{}
	for _, c := range out.ProviderCalls {
		ops[c.Provider+" "+c.Operation] = c.Outcome == "ok" && c.HttpStatus != nil && *c.HttpStatus == 200
	}
	if !ops["uber GET /v1.2/estimates/price"] || !ops["lyft GET /v1/cost"] {
		t.Errorf("provider_calls %+v", out.ProviderCalls)
	}
}

func TestUberAndLyftFailures(t *testing.T) {
	for _, tc := range []struct {
		name       string
		knob       fakeproviders.Knob
		retryAfter string
		code       mcptypes.ProviderErrorCode
		status     mcptypes.ProviderStatusStatus
	}{
		{"401", fakeproviders.Unauthorized, "", "unauthorized", "failed"},
		{"429 with Retry-After", fakeproviders.RateLimited, "30", "rate_limited", "rate_limited"},
		{"429 without Retry-After", fakeproviders.RateLimited, "", "rate_limited", "rate_limited"},
		{"5xx", fakeproviders.ServerError, "", "upstream_error", "failed"},
		{"slow", fakeproviders.Slow, "", "timeout", "failed"},
		{"malformed", fakeproviders.MalformedJSON, "", "malformed", "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, lyft, searchNY := uberLyft(t)
			lyft.Set(tc.knob)
			lyft.SetRetryAfter(tc.retryAfter)
			out := searchNY(nil)
			if out.Status != "partial" || len(out.Errors) != 1 {
				t.Fatalf("status %s, errors %+v; want partial with Lyft's error", out.Status, out.Errors)
			}
			e := out.Errors[0]
			if e.Provider != "lyft" || e.Code != tc.code || statusOf(out, "lyft").Status != tc.status {
				t.Errorf("error %+v, lyft %+v", e, statusOf(out, "lyft"))
			}
			if tc.retryAfter == "30" && (e.RetryAfterSeconds == nil || *e.RetryAfterSeconds != 30) {
				t.Errorf("retry_after_seconds %v, want 30", e.RetryAfterSeconds)
			}
			for _, secret := range []string{"lyft-secret", "uber-token", "lyft-id"} {
				if strings.Contains(e.Message, secret) || (statusOf(out, "lyft").Reason != nil && strings.Contains(*statusOf(out, "lyft").Reason, secret)) {
					t.Errorf("a credential reached the caller: %+v", e)
				}
			}
			if tc.code == "rate_limited" {
				// The cool-down: the next search does not call Lyft.
				n := len(lyft.CostCalls())
				again := searchNY(nil)
				if st := statusOf(again, "lyft"); st.Status != "rate_limited" || len(lyft.CostCalls()) != n {
					t.Errorf("during the cool-down: %+v, %d calls", st, len(lyft.CostCalls())-n)
				}
			}
		})
	}
}

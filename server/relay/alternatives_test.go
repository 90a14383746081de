package relay_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// rewritingTrident serves Trident behind a proxy that edits each
// estimate_fare exchange: req rewrites the tools/call arguments before
// Trident reads them, reply the structuredContent after it answers (nil:
// unchanged). It counts the calls it saw.
func rewritingTrident(t *testing.T, req func(args map[string]any), reply func(sc map[string]any)) (url string, calls *int) {
	t.Helper()
	up := startTrident(t)
	n := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg map[string]any
		if json.Unmarshal(body, &msg) == nil {
			if p, ok := msg["params"].(map[string]any); ok && p["name"] == "estimate_fare" {
				n++
				req(p["arguments"].(map[string]any))
				body, _ = json.Marshal(msg)
			}
		}
		out, err := http.NewRequest(r.Method, up, bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		rb, _ := io.ReadAll(resp.Body)
		var rm map[string]any
		if reply != nil && json.Unmarshal(rb, &rm) == nil {
			if res, ok := rm["result"].(map[string]any); ok {
				if sc, ok := res["structuredContent"].(map[string]any); ok {
					reply(sc)
					rb, _ = json.Marshal(rm)
				}
			}
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(rb)))
		w.WriteHeader(resp.StatusCode)
		w.Write(rb)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", &n
}

// A Trident that answers as its specification documents, ignoring the
// alternativeVehicleTypes extension (as a server that drops unknown
// arguments would), is asked for the other classes one call each: the
// search gets the same six options, and each call is its own provider call.
func TestSearchTridentWithoutAlternatives(t *testing.T) {
	_, direct, _ := tridentRelay(t, relay.Options{Now: func() time.Time { return dayClock }})
	want := search(t, direct, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2})

	url, calls := rewritingTrident(t, func(args map[string]any) { delete(args, "alternativeVehicleTypes") }, nil)
	_, c := newRelay(t, relay.Options{TridentURL: url, Now: func() time.Time { return dayClock }})
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2})
	if out.Status != "ok" || len(out.Options) != len(want.Options) {
		t.Fatalf("status %s, %d options, want ok and %d: %+v", out.Status, len(out.Options), len(want.Options), out.Errors)
	}
	for i, o := range out.Options {
		if w := want.Options[i]; o.Product.ID != w.Product.ID || o.Price.AmountMinor != w.Price.AmountMinor || *o.DurationSeconds != *w.DurationSeconds || *o.DistanceMeters != *w.DistanceMeters || *o.ProviderText.Title != *w.ProviderText.Title || *o.ProviderText.Description != *w.ProviderText.Description {
			t.Errorf("option %d: %s %d, want %s %d (as with the extension)", i, o.Product.ID, o.Price.AmountMinor, w.Product.ID, w.Price.AmountMinor)
		}
	}
	if *calls != 6 || len(out.ProviderCalls) != 6 {
		t.Fatalf("%d estimate_fare calls, %d provider calls: want one per class", *calls, len(out.ProviderCalls))
	}
	for _, pc := range out.ProviderCalls {
		if pc.Outcome != "ok" || pc.Options != 1 {
			t.Errorf("provider call %+v, want ok with one option", pc)
		}
	}
}

// Alternatives that do not answer what was asked (a class in the wrong
// place, or too few) are the provider's malformed answer for those classes:
// reported in errors and provider_calls, never priced as another class.
func TestSearchTridentMalformedAlternatives(t *testing.T) {
	for name, tc := range map[string]struct {
		edit      func(sc map[string]any)
		wantFirst bool // only the main quote is usable
		wantIDs   []string
	}{
		"a class in the wrong place": {
			edit: func(sc map[string]any) {
				alts := sc["alternatives"].([]any)
				alts[0].(map[string]any)["vehicleType"] = "luxury"
			},
			wantIDs: []string{"saloon", "executive", "6seater", "mpv", "wav"},
		},
		"too few": {
			edit: func(sc map[string]any) {
				sc["alternatives"] = sc["alternatives"].([]any)[:2]
			},
			wantIDs: []string{"saloon"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			url, calls := rewritingTrident(t, func(map[string]any) {}, tc.edit)
			_, c := newRelay(t, relay.Options{TridentURL: url, Now: func() time.Time { return dayClock }})
			out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir})
			var ids []string
			for _, o := range out.Options {
				ids = append(ids, o.Product.ID)
			}
			if !slices.Equal(ids, tc.wantIDs) {
				t.Errorf("options %v, want %v", ids, tc.wantIDs)
			}
			if out.Status != "partial" || len(out.Errors) == 0 || out.Errors[0].Code != "malformed" {
				t.Errorf("status %s, errors %+v: want partial with a malformed error", out.Status, out.Errors)
			}
			if *calls != 1 || len(out.ProviderCalls) != 1 || out.ProviderCalls[0].Outcome != "malformed" || out.ProviderCalls[0].Options != int64(len(tc.wantIDs)) {
				t.Errorf("%d calls, provider calls %+v: want one, malformed, with %d options", *calls, out.ProviderCalls, len(tc.wantIDs))
			}
		})
	}
}

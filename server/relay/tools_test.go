package relay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	relayregistry "github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

func TestToolsListServesTheContract(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	manifest, err := relaycontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(slices.Values(mcptypes.ToolNames))
	if len(tools) != len(names) {
		t.Fatalf("%d tools, want %d", len(tools), len(names))
	}
	for i, tool := range tools {
		if tool.Name != names[i] {
			t.Errorf("tool %d = %s, want %s (by name)", i, tool.Name, names[i])
		}
		ct := manifest.Tools[slices.Index(mcptypes.ToolNames, tool.Name)]
		in, _ := ct.Input()
		if !jsonEqual(unmarshal[any](t, in), unmarshal[any](t, tool.InputSchema)) {
			t.Errorf("%s: inputSchema differs from %s", tool.Name, ct.InputSchema)
		}
		var ann struct{ ReadOnlyHint, OpenWorldHint bool }
		if err := json.Unmarshal(tool.Annotations, &ann); err != nil {
			t.Fatal(err)
		}
		readOnly := tool.Name != mcptypes.ToolContinueJourney
		if ann.ReadOnlyHint != readOnly || ann.OpenWorldHint != readOnly {
			t.Errorf("%s annotations %s: want readOnly/openWorld %v", tool.Name, tool.Annotations, readOnly)
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	for _, tt := range []struct {
		name, tool string
		args       any
		field      string
	}{
		{"latitude above 90", "search_rides", map[string]any{"pickup": map[string]any{"latitude": 90.5, "longitude": 0}}, "/pickup/latitude"},
		{"longitude below -180", "search_rides", map[string]any{"dropoff": map[string]any{"latitude": 0, "longitude": -180.1}}, "/dropoff/longitude"},
		{"missing longitude", "search_rides", map[string]any{"pickup": map[string]any{"latitude": 1}}, "/pickup"},
		{"party of 9", "search_rides", map[string]any{"party_size": 9}, "/party_size"},
		{"party of 0", "search_rides", map[string]any{"party_size": 0}, "/party_size"},
		{"party of 2.5", "search_rides", map[string]any{"party_size": 2.5}, "/party_size"},
		{"limit 13", "search_rides", map[string]any{"limit": 13}, "/limit"},
		{"limit 0", "search_rides", map[string]any{"limit": 0}, "/limit"},
		{"lowercase currency", "search_rides", map[string]any{"currency": "gbp"}, "/currency"},
		{"four-letter currency", "search_rides", map[string]any{"currency": "GBPX"}, "/currency"},
		{"unsupported field", "search_rides", map[string]any{"vehicle": "saloon"}, ""},
		{"unknown provider", "search_rides", map[string]any{"providers": []string{"uber", "made_up"}}, "/providers/1"},
		{"bad journey date", "search_rides", map[string]any{"journey_context": map[string]any{"start_date": "2026-13-01"}}, "/journey_context/start_date"},
		{"lowercase airport", "search_rides", map[string]any{"journey_context": map[string]any{"origin_airport": "gla"}}, "/journey_context/origin_airport"},
		{"no options", "compare_rides", map[string]any{"options": []any{}}, "/options"},
		{"bad sort", "compare_rides", map[string]any{"options": []any{}, "sort_by": "commission"}, "/sort_by"},
		{"resolve without option", "resolve_ride", map[string]any{}, ""},
		{"handoff with neither", "get_ride_booking_handoff", map[string]any{}, ""},
		{"handoff with both", "get_ride_booking_handoff", map[string]any{"provider": "uber", "option": map[string]any{}}, ""},
		{"handoff unknown provider", "get_ride_booking_handoff", map[string]any{"provider": "made_up"}, "/provider"},
		{"journey without context", "continue_journey", map[string]any{"journey_id": "jny_1", "to_connector": "stays"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := refusalOf(t, c, tt.tool, tt.args)
			if r.Status != mcptypes.RefusalStatusInvalidArguments || len(r.Fields) == 0 || !strings.Contains(r.Message, "Invalid arguments") {
				t.Fatalf("refusal = %+v, want invalid_arguments with fields", r)
			}
			found := false
			for _, f := range r.Fields {
				found = found || f.Field == tt.field
			}
			if !found {
				t.Errorf("fields %+v do not name %q", r.Fields, tt.field)
			}
		})
	}
}

func TestSearchDefaultsAndContextCarry(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	first := search(t, c, map[string]any{"journey_context": map[string]any{"destination_city": "Glasgow", "party_size": 3, "currency": "GBP", "destination_airport": "GLA"}})
	rc := first.RelayContext
	if !strings.HasPrefix(rc.SessionID, "ses_") || !strings.HasPrefix(rc.JourneyID, "jny_") || rc.Verification.Signature == "" {
		t.Fatalf("relay_context = %+v", rc)
	}
	cc := first.ContinuationContext
	if *cc.DestinationCity != "Glasgow" || *cc.PartySize != 3 || *cc.Currency != "GBP" || *cc.DestinationAirport != "GLA" {
		t.Errorf("continuation_context = %+v", cc)
	}
	// Explicit input wins over journey_context, and the context carries the session and journey.
	second := search(t, c, map[string]any{"context": rc, "party_size": 2, "journey_context": map[string]any{"party_size": 5}})
	if second.RelayContext.SessionID != rc.SessionID || second.RelayContext.JourneyID != rc.JourneyID ||
		second.RelayContext.IntentID == rc.IntentID || second.RelayContext.RequestID == rc.RequestID {
		t.Errorf("second context %+v does not continue %+v with a new intent and request", second.RelayContext, rc)
	}
	if *second.ContinuationContext.PartySize != 2 {
		t.Errorf("party size = %d, want the explicit 2", *second.ContinuationContext.PartySize)
	}
	raw, _ := json.Marshal(second.ContinuationContext)
	if strings.Contains(string(raw), "latitude") {
		t.Errorf("continuation_context carries coordinates: %s", raw)
	}
}

func TestInvalidContext(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	rc := search(t, c, map[string]any{}).RelayContext
	other, oc := newRelay(t, relay.Options{Keys: mustKeys(t, "k9:"+strings.Repeat("B", 43))})
	_ = other
	for name, mut := range map[string]func(*mcptypes.RelayContext){
		"session changed": func(r *mcptypes.RelayContext) { r.SessionID += "x" },
		"journey changed": func(r *mcptypes.RelayContext) { r.JourneyID = "jny_other" },
		"intent changed":  func(r *mcptypes.RelayContext) { r.IntentID += "x" },
		"signature gone":  func(r *mcptypes.RelayContext) { r.Verification.Signature = "AAAA" },
		"unknown kid":     func(r *mcptypes.RelayContext) { r.Verification.Kid = "k2" },
	} {
		t.Run(name, func(t *testing.T) {
			bad := rc
			mut(&bad)
			for _, tool := range []string{"search_rides", "get_ride_booking_handoff"} {
				args := map[string]any{"context": bad}
				if tool == "get_ride_booking_handoff" {
					args["provider"] = "bolt"
				}
				if r := refusalOf(t, c, tool, args); r.Status != mcptypes.RefusalStatusInvalidContext {
					t.Errorf("%s: %+v, want invalid_context", tool, r)
				}
			}
		})
	}
	t.Run("another server's keys", func(t *testing.T) {
		if r := refusalOf(t, oc, "search_rides", map[string]any{"context": rc}); r.Status != mcptypes.RefusalStatusInvalidContext {
			t.Errorf("%+v", r)
		}
	})
	t.Run("journey id not the context's", func(t *testing.T) {
		r := refusalOf(t, c, "continue_journey", map[string]any{"journey_id": "jny_other", "context": rc, "to_connector": "stays"})
		if r.Status != mcptypes.RefusalStatusInvalidContext {
			t.Errorf("%+v", r)
		}
		out := decodeInto[mcptypes.ContinueJourneyResult](t, call(t, c, "continue_journey", map[string]any{"journey_id": rc.JourneyID, "context": rc, "to_connector": "stays"}, false))
		if out.Status != "installation_unknown" || out.NextAction != nil {
			t.Errorf("continue_journey = %+v, want installation_unknown without next_action", out)
		}
	})
}

func mustKeys(tb testing.TB, s string) *signing.Keys {
	tb.Helper()
	k, err := signing.ParseKeys(s)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// fakeRelay has Uber and Lyft backed by fakes (USD ranges, test data).
func fakeRelay(tb testing.TB, clock *fakeClock, uber, lyft *fakeSource) (*mcphttp.Endpoint, *client.Client) {
	tb.Helper()
	src := map[string]sources.Source{}
	if uber != nil {
		src["uber"] = uber
	}
	if lyft != nil {
		src["lyft"] = lyft
	}
	o := relay.Options{Sources: src, OptionTTL: time.Minute, CallTimeout: 200 * time.Millisecond}
	if clock != nil {
		o.Now = clock.Now
	}
	return newRelay(tb, o)
}

func nySearch(tb testing.TB, c *client.Client, extra map[string]any) mcptypes.SearchRidesResult {
	args := map[string]any{"pickup": jfk, "dropoff": timesSquare, "party_size": 2}
	for k, v := range extra {
		args[k] = v
	}
	return search(tb, c, args)
}

func TestCompareGroupsAndOrders(t *testing.T) {
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100), quote("black", 9000, 11000), quote("pool", 3100, 3900)}}
	lyft := &fakeSource{quotes: []sources.Quote{quote("lyft", 4800, 5900)}}
	eur := quote("eur", 100, 200)
	eur.Price.Currency = "EUR"
	lyft.quotes = append(lyft.quotes, eur)
	_, c := fakeRelay(t, nil, uber, lyft)
	out := nySearch(t, c, map[string]any{"limit": 12})
	if out.Status != "ok" || len(out.Options) != 5 {
		t.Fatalf("search: %s with %d options", out.Status, len(out.Options))
	}
	// Round robin across the two sources.
	if got := []string{out.Options[0].Product.ID, out.Options[1].Product.ID}; got[0] != "uberx" || got[1] != "lyft" {
		t.Errorf("first options %v, want uberx then lyft", got)
	}
	cmp := decodeInto[mcptypes.CompareRidesResult](t, call(t, c, "compare_rides", map[string]any{"options": out.Options, "sort_by": "price", "context": out.RelayContext}, false))
	if len(cmp.Groups) != 2 {
		t.Fatalf("%d groups, want USD and EUR apart", len(cmp.Groups))
	}
	var ids []string
	for _, o := range cmp.Groups[0].Options {
		ids = append(ids, o.Product.ID)
	}
	if fmt.Sprint(ids) != "[pool lyft uberx black]" || cmp.Groups[1].Currency != "EUR" {
		t.Errorf("USD group by price = %v; groups %+v", ids, cmp.Groups)
	}
	// Options come back unchanged: still verifiable.
	again := decodeInto[mcptypes.CompareRidesResult](t, call(t, c, "compare_rides", map[string]any{"options": cmp.Groups[0].Options, "context": out.RelayContext}, false))
	if again.SortBy != "provider_order" || again.Groups[0].Options[0].Product.ID != "pool" {
		t.Errorf("provider_order must keep the given order: %+v", again.Groups[0].Options[0].Product)
	}
	if uber.calls.Load() != 1 || lyft.calls.Load() != 1 {
		t.Errorf("compare queried providers: uber %d, lyft %d calls", uber.calls.Load(), lyft.calls.Load())
	}
}

func TestInvalidOptionEverywhere(t *testing.T) {
	clock := &fakeClock{t: dayClock}
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}
	_, c := fakeRelay(t, clock, uber, nil)
	out := nySearch(t, c, nil)
	opt, rc := out.Options[0], out.RelayContext
	otherJourney := search(t, c, map[string]any{}).RelayContext // a new session and journey
	calls := func(o mcptypes.RideOption, ctx *mcptypes.RelayContext) map[string]map[string]any {
		with := func(m map[string]any) map[string]any {
			if ctx != nil {
				m["context"] = *ctx
			}
			return m
		}
		return map[string]map[string]any{
			"compare_rides":            with(map[string]any{"options": []any{o}}),
			"resolve_ride":             with(map[string]any{"option": o}),
			"get_ride_booking_handoff": with(map[string]any{"option": o}),
		}
	}
	tampered := opt
	tampered.Price.AmountMinor--
	for name, tc := range map[string]struct {
		o   mcptypes.RideOption
		ctx *mcptypes.RelayContext
	}{
		"tampered price":  {tampered, &rc},
		"foreign journey": {opt, &otherJourney},
		"no context":      {opt, nil},
		"stripped":        {func() mcptypes.RideOption { o := opt; o.Verification.Signature = "x"; return o }(), &rc},
	} {
		for tool, args := range calls(tc.o, tc.ctx) {
			if r := refusalOf(t, c, tool, args); r.Status != mcptypes.RefusalStatusInvalidOption {
				t.Errorf("%s, %s: %+v, want invalid_option", name, tool, r)
			}
		}
	}
	// A foreign actor: the same option and context from another caller
	// (OAuth mode) do not verify; tested at the signature level in
	// signing_test.go since the public test server has one actor.

	// Expiry from outside: valid a second before expires_at, refused at it.
	exp, err := time.Parse(time.RFC3339, opt.ExpiresAt)
	if err != nil || exp.Sub(dayClock) != time.Minute {
		t.Fatalf("expires_at %s: want issued_at + RELAY_OPTION_TTL (1m)", opt.ExpiresAt)
	}
	clock.Add(time.Minute - time.Second)
	call(t, c, "compare_rides", map[string]any{"options": []any{opt}, "context": rc}, false)
	clock.Add(time.Second)
	for tool, args := range calls(opt, &rc) {
		if r := refusalOf(t, c, tool, args); r.Status != mcptypes.RefusalStatusInvalidOption {
			t.Errorf("expired, %s: %+v", tool, r)
		}
	}
}

func TestProviderDeadlineShortensExpiry(t *testing.T) {
	clock := &fakeClock{t: dayClock}
	q := quote("uberx", 5200, 6100)
	q.Deadline = dayClock.Add(20 * time.Second)
	_, c := fakeRelay(t, clock, &fakeSource{quotes: []sources.Quote{q}}, nil)
	out := nySearch(t, c, nil)
	if got := out.Options[0].ExpiresAt; got != "2025-06-18T09:00:20Z" {
		t.Errorf("expires_at = %s, want the provider's deadline", got)
	}
}

func TestSlowAndFailingSourcesArePartial(t *testing.T) {
	for name, bad := range map[string]*fakeSource{
		"slow":    {block: true},
		"failing": {err: &sources.Error{Code: "upstream_error", Message: "Lyft is unavailable", HTTPStatus: 503}},
	} {
		t.Run(name, func(t *testing.T) {
			// The good source answers only once the bad one has been
			// entered: the two are asked at the same time, not in turn.
			entered := make(chan struct{}, 1)
			bad.entered = entered
			good := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}, waitFor: make(chan struct{})}
			go func() { <-entered; close(good.waitFor) }()
			_, c := fakeRelay(t, nil, good, bad)
			out := nySearch(t, c, nil)
			if out.Status != "partial" || len(out.Options) != 1 || out.Options[0].Provider != "uber" {
				t.Fatalf("status %s, options %+v; want partial with Uber's option", out.Status, out.Options)
			}
			if len(out.Errors) != 1 || out.Errors[0].Provider != "lyft" {
				t.Fatalf("errors = %+v, want Lyft's", out.Errors)
			}
			wantCode := map[string]mcptypes.ProviderErrorCode{"slow": "timeout", "failing": "upstream_error"}[name]
			if e := out.Errors[0]; e.Code != wantCode || !e.Retryable {
				t.Errorf("error = %+v, want %s, retryable", e, wantCode)
			}
			if st := statusOf(out, "lyft"); st.Status != "failed" {
				t.Errorf("lyft status %+v", st)
			}
			if len(out.ProviderCalls) != 2 {
				t.Errorf("provider_calls = %+v, want both attempts", out.ProviderCalls)
			}
		})
	}
}

func TestConcurrentSearches(t *testing.T) {
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}
	lyft := &fakeSource{err: errors.New("connection refused")}
	_, c := fakeRelay(t, nil, uber, lyft)
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			res, err := c.Call(t.Context(), "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare}, nil)
			if err == nil && !strings.Contains(string(res.StructuredContent), `"status":"partial"`) {
				err = fmt.Errorf("not partial: %s", res.StructuredContent)
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if uber.calls.Load() != 16 || lyft.calls.Load() != 16 {
		t.Errorf("calls: uber %d lyft %d", uber.calls.Load(), lyft.calls.Load())
	}
}

func TestAtMostTwoSourcesInRequestedOrder(t *testing.T) {
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 1, 2)}}
	lyft := &fakeSource{quotes: []sources.Quote{quote("lyft", 1, 2)}}
	tri := &fakeSource{quotes: []sources.Quote{quote("saloon", 1, 2)}}
	// Lyft everywhere, so that all three are eligible for one trip.
	reg := registryWith(t, "lyft", func(p *relayregistry.Provider) { p.Coverage = nil })
	_, c := newRelay(t, relay.Options{Registry: reg, Sources: map[string]sources.Source{"uber": uber, "lyft": lyft, "trident": tri}})
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "providers": []string{"lyft", "trident", "uber"}})
	if tri.calls.Load() != 1 || lyft.calls.Load() != 1 || uber.calls.Load() != 0 {
		t.Errorf("calls: lyft %d trident %d uber %d; want the first two requested", lyft.calls.Load(), tri.calls.Load(), uber.calls.Load())
	}
	if st := statusOf(out, "uber"); st.Status != "not_selected" {
		t.Errorf("uber %+v", st)
	}
	if st := statusOf(out, "bolt"); st.Status != "not_selected" {
		t.Errorf("bolt %+v, want not_selected (not requested)", st)
	}
	for _, h := range out.BrowserHandoffs {
		if h.Provider == "bolt" {
			t.Errorf("handoff for an unrequested provider: %+v", h)
		}
	}
}

// TestOptionNotAsIssuedIsInvalidOption: an option that fails the input
// schema inside itself (verification removed or changed, a field added or
// dropped) is the specification's "invalid or expired option", whose
// recovery is to search again, in every tool that takes one; the tool's
// own arguments stay invalid_arguments.
func TestOptionNotAsIssuedIsInvalidOption(t *testing.T) {
	_, c := fakeRelay(t, nil, &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100)}}, nil)
	out := nySearch(t, c, nil)
	rc := out.RelayContext
	asMap := func(edit func(m map[string]any)) map[string]any {
		m := unmarshal[map[string]any](t, mustMarshal(t, out.Options[0]))
		edit(m)
		return m
	}
	for name, o := range map[string]map[string]any{
		"verification removed":   asMap(func(m map[string]any) { delete(m, "verification") }),
		"verification emptied":   asMap(func(m map[string]any) { m["verification"] = map[string]any{} }),
		"alg changed":            asMap(func(m map[string]any) { m["verification"].(map[string]any)["alg"] = "none" }),
		"a field added":          asMap(func(m map[string]any) { m["discount"] = 10 }),
		"a field dropped":        asMap(func(m map[string]any) { delete(m, "price") }),
		"a nested field dropped": asMap(func(m map[string]any) { delete(m["price"].(map[string]any), "currency") }),
	} {
		for tool, args := range map[string]map[string]any{
			"compare_rides":            {"options": []any{out.Options[0], o}, "context": rc},
			"resolve_ride":             {"option": o, "context": rc},
			"get_ride_booking_handoff": {"option": o, "context": rc},
		} {
			if r := refusalOf(t, c, tool, args); r.Status != mcptypes.RefusalStatusInvalidOption || len(r.Fields) != 0 {
				t.Errorf("%s, %s: %+v, want invalid_option", name, tool, r)
			}
		}
	}
	// The tool's own arguments, beside an intact option or a broken one.
	broken := asMap(func(m map[string]any) { delete(m, "verification") })
	for name, tc := range map[string]struct {
		tool string
		args map[string]any
	}{
		"bad sort_by":             {"compare_rides", map[string]any{"options": []any{out.Options[0]}, "sort_by": "commission", "context": rc}},
		"bad sort_by and broken":  {"compare_rides", map[string]any{"options": []any{broken}, "sort_by": "commission", "context": rc}},
		"options not an array":    {"compare_rides", map[string]any{"options": map[string]any{}, "context": rc}},
		"an unknown argument":     {"resolve_ride", map[string]any{"option": out.Options[0], "context": rc, "force": true}},
		"option with provider":    {"get_ride_booking_handoff", map[string]any{"option": out.Options[0], "provider": "uber", "context": rc}},
		"option with bad context": {"resolve_ride", map[string]any{"option": out.Options[0], "context": map[string]any{"session_id": "x"}}},
	} {
		if r := refusalOf(t, c, tc.tool, tc.args); r.Status != mcptypes.RefusalStatusInvalidArguments {
			t.Errorf("%s: %+v, want invalid_arguments", name, r)
		}
	}
}

// TestToolsListNamesTheRegistries: the provider and connector ids an
// assistant may pass are tools/list's enums, which are the registries'
// ids, and a refusal of another id names the valid ones.
func TestToolsListNamesTheRegistries(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	tools, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := relayregistry.Load("")
	if err != nil {
		t.Fatal(err)
	}
	var providers, connectors []any
	for _, p := range reg.Providers {
		providers = append(providers, p.ID)
	}
	cs, err := relaycontracts.DecodeConnectors(relaycontracts.Connectors)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		connectors = append(connectors, c.ID)
	}
	enums := map[string][]any{}
	for _, tool := range tools {
		var s struct {
			Properties struct {
				Providers   struct{ Items struct{ Enum []any } }
				Provider    struct{ Enum []any }
				ToConnector struct{ Enum []any } `json:"to_connector"`
			}
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		switch tool.Name {
		case "search_rides":
			enums[tool.Name] = s.Properties.Providers.Items.Enum
		case "get_ride_booking_handoff":
			enums[tool.Name] = s.Properties.Provider.Enum
		case "continue_journey":
			enums[tool.Name] = s.Properties.ToConnector.Enum
		}
	}
	for tool, want := range map[string][]any{"search_rides": providers, "get_ride_booking_handoff": providers, "continue_journey": connectors} {
		if !slices.Equal(enums[tool], want) {
			t.Errorf("%s's enum %v, want the registry's %v", tool, enums[tool], want)
		}
	}
	for tool, args := range map[string]map[string]any{
		"search_rides":             {"providers": []string{"uber", "waymo"}},
		"get_ride_booking_handoff": {"provider": "waymo"},
	} {
		r := refusalOf(t, c, tool, args)
		if r.Status != mcptypes.RefusalStatusInvalidArguments || !strings.Contains(r.Message, "trident") || !strings.Contains(r.Message, "freenow") {
			t.Errorf("%s with an invented provider: %+v, want invalid_arguments naming the valid ids", tool, r)
		}
	}
}

// TestRegistryOutsideTheEnumIsRefused: an operator's registry naming a
// provider tools/list cannot offer fails at start, naming it.
func TestRegistryOutsideTheEnumIsRefused(t *testing.T) {
	reg := registryWith(t, "gett", func(p *relayregistry.Provider) { p.ID = "waymo" })
	_, err := relay.New(&relay.Options{Registry: reg, Logger: discard})
	if err == nil || !strings.Contains(err.Error(), `"waymo"`) {
		t.Fatalf("err = %v, want a refusal naming waymo", err)
	}
}

func mustMarshal(tb testing.TB, v any) json.RawMessage {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

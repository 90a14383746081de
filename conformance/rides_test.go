package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
)

// The Relay rides endpoint (/mcp/rides) beside Trident's. Its URL is
// --rides-endpoint (CONFORMANCE_RIDES_ENDPOINT), by default the Trident
// endpoint's URL with /rides appended; "off" skips these specs.
var ridesFlag = flag.String("rides-endpoint", os.Getenv("CONFORMANCE_RIDES_ENDPOINT"),
	"URL of the Relay rides endpoint (default: --endpoint + /rides; off: skip)")

// ridesToken (CONFORMANCE_RIDES_TOKEN) is an access token for the Relay
// endpoint's resource in OAuth mode; the suite's own token is bound to the
// Trident endpoint (RFC 8707), so without it the Relay specs are skipped
// there.
var ridesToken = os.Getenv("CONFORMANCE_RIDES_TOKEN")

// shortTTL is the longest option lifetime the expiry spec waits out: the
// suite's local run starts the server with RELAY_OPTION_TTL=5s; against a
// server whose options live longer (the default five minutes) it skips.
const shortTTL = 30 * time.Second

// rides is what the Relay specs read from contracts/relay.
type ridesContracts struct {
	manifest *contracts.Manifest
	samples  map[string]contracts.Sample
	in, out  map[string]*jsonschema.Schema
	raw      map[string]json.RawMessage // input schemas as written
}

var rc, rcErr = loadRides()

func loadRides() (*ridesContracts, error) {
	m, err := relaycontracts.Set.Manifest()
	if err != nil {
		return nil, err
	}
	r := &ridesContracts{manifest: m, samples: map[string]contracts.Sample{}, in: map[string]*jsonschema.Schema{}, out: map[string]*jsonschema.Schema{}, raw: map[string]json.RawMessage{}}
	for _, t := range m.Tools {
		in, err := t.Input()
		if err != nil {
			return nil, err
		}
		out, err := t.Output()
		if err != nil {
			return nil, err
		}
		if r.in[t.Name], err = CompileSchema("relay/"+t.InputSchema, in); err != nil {
			return nil, err
		}
		if r.out[t.Name], err = CompileSchema("relay/"+t.OutputSchema, out); err != nil {
			return nil, err
		}
		r.raw[t.Name] = in
	}
	ss, err := relaycontracts.Set.Samples()
	if err != nil {
		return nil, err
	}
	for _, s := range ss {
		r.samples[s.Name] = s
	}
	return r, nil
}

// registryIDs are the ids of contracts/relay's provider and connector
// registries, in registry order.
func registryIDs() (providers, connectors []string) {
	GinkgoHelper()
	var reg struct {
		Providers []struct {
			ID string `json:"id"`
		} `json:"providers"`
	}
	raw, err := relaycontracts.FS.ReadFile("providers.json")
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, &reg)).To(Succeed())
	for _, p := range reg.Providers {
		providers = append(providers, p.ID)
	}
	cs, err := relaycontracts.DecodeConnectors(relaycontracts.Connectors)
	Expect(err).NotTo(HaveOccurred())
	for _, c := range cs {
		connectors = append(connectors, c.ID)
	}
	return providers, connectors
}

func ridesURL() string {
	switch {
	case *ridesFlag == "off":
		return ""
	case *ridesFlag != "":
		return *ridesFlag
	}
	return strings.TrimRight(cfg.Endpoint, "/") + "/rides"
}

// ridesServed probes the default Relay URL once: a server that answers it
// with 404 serves Trident only (the independent TypeScript server does).
var ridesServed = sync.OnceValue(func() bool {
	ex, err := rides().Call(suiteCtx, 1, "tools/list", map[string]any{}, nil)
	return err == nil && ex.Status != http.StatusNotFound
})

func rides() *Client { return NewClient(ridesURL(), ridesToken, cfg.Timeout) }

// ridesCall calls a Relay tool and returns its structuredContent, checked
// against the output schema (refusals included: the schema's Refusal
// branch), with content[0].text its JSON and isError as wanted.
func ridesCall(tool string, args any, wantError bool) map[string]any {
	GinkgoHelper()
	ex, err := rides().CallTool(suiteCtx, 1, tool, args, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(ex.Status).To(Equal(http.StatusOK), ex.String())
	m := expectResponse(ex, 1)
	Expect(m.Error).To(BeNil(), "Relay answers schema failures as invalid_arguments results, not JSON-RPC errors\n%s", ex.String())
	r, err := DecodeResult(m.Result)
	Expect(err).NotTo(HaveOccurred(), ex.String())
	Expect(r.IsError).To(Equal(wantError), "isError\n%s", ex.String())
	Expect(Validate(rc.out[tool], r.StructuredContent)).To(Succeed(), "structuredContent against %s's output schema\n%s", tool, ex.String())
	Expect(SameJSON(json.RawMessage(r.Text()), r.StructuredContent)).To(BeTrue(), "content[0].text must be the JSON of structuredContent\n%s", ex.String())
	var sc map[string]any
	Expect(json.Unmarshal(r.StructuredContent, &sc)).To(Succeed())
	return sc
}

func ridesRefusal(tool string, args any, status string) map[string]any {
	GinkgoHelper()
	sc := ridesCall(tool, args, true)
	Expect(sc["status"]).To(Equal(status), "refusal status")
	return sc
}

// sampleRequestArgs is a Relay sample's arguments.
func ridesSampleArgs(name string) (string, map[string]any) {
	var req struct {
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	Expect(json.Unmarshal(rc.samples[name].Request, &req)).To(Succeed())
	return req.Params.Name, req.Params.Arguments
}

func ridesSampleResult(name string) map[string]any {
	var resp struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	Expect(json.Unmarshal(rc.samples[name].Response, &resp)).To(Succeed())
	return resp.Result.StructuredContent
}

var (
	helensburgh = map[string]any{"latitude": 56.00416, "longitude": -4.73253}
	glasgowAir  = map[string]any{"latitude": 55.8719, "longitude": -4.43306}
	jfk         = map[string]any{"latitude": 40.6413, "longitude": -73.7781}
	timesSq     = map[string]any{"latitude": 40.758, "longitude": -73.9855}
)

var _ = Describe("Relay rides (/mcp/rides)", Label("rides"), func() {
	BeforeEach(func() {
		if ridesURL() == "" {
			Skip("--rides-endpoint=off")
		}
		if serverMode == ModeOAuth && ridesToken == "" {
			Skip("OAuth mode: set CONFORMANCE_RIDES_TOKEN to a token for the Relay endpoint's resource")
		}
		if *ridesFlag == "" && !ridesServed() {
			Skip("the server has no Relay endpoint at " + ridesURL() + " (pass --rides-endpoint to require one)")
		}
		Expect(rcErr).NotTo(HaveOccurred(), "loading contracts/relay")
	})

	It("lists the contract's tools with their schemas and annotations", func() {
		ex, err := rides().Call(suiteCtx, 1, "tools/list", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		m := expectResponse(ex, 1)
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations struct{ ReadOnlyHint, OpenWorldHint bool }
			} `json:"tools"`
		}
		Expect(json.Unmarshal(m.Result, &list)).To(Succeed())
		Expect(list.Tools).To(HaveLen(len(rc.manifest.Tools)), ex.String())
		for _, t := range list.Tools {
			raw, ok := rc.raw[t.Name]
			Expect(ok).To(BeTrue(), "unknown tool %s", t.Name)
			Expect(SameJSON(raw, t.InputSchema)).To(BeTrue(), "%s: inputSchema differs from the contract", t.Name)
			ro := t.Name != "continue_journey"
			Expect(t.Annotations.ReadOnlyHint).To(Equal(ro), "%s readOnlyHint", t.Name)
			Expect(t.Annotations.OpenWorldHint).To(Equal(ro), "%s openWorldHint", t.Name)
		}
	})

	It("replays the invalid_arguments and invalid_context samples exactly", Label("samples"), func() {
		for _, name := range []string{"errors/invalid_arguments", "errors/invalid_context"} {
			tool, args := ridesSampleArgs(name)
			got := ridesCall(tool, args, true)
			want := ridesSampleResult(name)
			if cfg.StrictMessages {
				Expect(got).To(Equal(want), name)
			} else {
				Expect(got["status"]).To(Equal(want["status"]), name)
			}
		}
	})

	DescribeTable("refuses arguments outside the schema with invalid_arguments naming the field",
		func(tool string, args map[string]any, field string) {
			sc := ridesRefusal(tool, args, "invalid_arguments")
			var fields []string
			for _, f := range sc["fields"].([]any) {
				fields = append(fields, f.(map[string]any)["field"].(string))
			}
			Expect(fields).To(ContainElement(field))
		},
		Entry("latitude 90.5", "search_rides", map[string]any{"pickup": map[string]any{"latitude": 90.5, "longitude": 0}}, "/pickup/latitude"),
		Entry("longitude -180.5", "search_rides", map[string]any{"dropoff": map[string]any{"latitude": 0, "longitude": -180.5}}, "/dropoff/longitude"),
		Entry("party_size 9", "search_rides", map[string]any{"party_size": 9}, "/party_size"),
		Entry("limit 13", "search_rides", map[string]any{"limit": 13}, "/limit"),
		Entry("currency eur", "search_rides", map[string]any{"currency": "eur"}, "/currency"),
		Entry("an unsupported field", "search_rides", map[string]any{"vehicle": "saloon"}, ""),
		Entry("an invented provider", "search_rides", map[string]any{"providers": []any{"uber", "invented"}}, "/providers/1"),
		Entry("an invented handoff provider", "get_ride_booking_handoff", map[string]any{"provider": "invented"}, "/provider"),
		Entry("an invented connector", "continue_journey", map[string]any{"journey_id": "j", "to_connector": "invented",
			"context": map[string]any{"session_id": "s", "journey_id": "j", "intent_id": "i", "request_id": "r", "verification": map[string]any{"kid": "k", "alg": "HS256", "signature": "AAAA"}}}, "/to_connector"),
		Entry("no options", "compare_rides", map[string]any{"options": []any{}}, "/options"),
		Entry("both option and provider", "get_ride_booking_handoff", map[string]any{"provider": "uber", "option": map[string]any{}}, ""),
		Entry("neither option nor provider", "get_ride_booking_handoff", map[string]any{}, ""),
	)

	It("names every registry id in tools/list, and refuses an invented one naming the valid ids", func() {
		ex, err := rides().Call(suiteCtx, 1, "tools/list", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		m := expectResponse(ex, 1)
		var list struct {
			Tools []struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties struct {
						Providers   struct{ Items struct{ Enum []string } }
						Provider    struct{ Enum []string }
						ToConnector struct{ Enum []string } `json:"to_connector"`
					}
				} `json:"inputSchema"`
			} `json:"tools"`
		}
		Expect(json.Unmarshal(m.Result, &list)).To(Succeed())
		providers, connectors := registryIDs()
		got := map[string][]string{}
		for _, t := range list.Tools {
			p := t.InputSchema.Properties
			got[t.Name] = map[string][]string{"search_rides": p.Providers.Items.Enum, "get_ride_booking_handoff": p.Provider.Enum, "continue_journey": p.ToConnector.Enum}[t.Name]
		}
		// The specification: "Optional provider IDs from tools/list".
		Expect(got["search_rides"]).To(Equal(providers), "search_rides' providers[] enum is the provider registry's ids")
		Expect(got["get_ride_booking_handoff"]).To(Equal(providers), "get_ride_booking_handoff's provider enum is the provider registry's ids")
		Expect(got["continue_journey"]).To(Equal(connectors), "continue_journey's to_connector enum is the connector registry's ids")

		sc := ridesRefusal("search_rides", map[string]any{"providers": []any{"invented"}}, "invalid_arguments")
		raw, _ := json.Marshal(sc)
		for _, id := range providers {
			Expect(string(raw)).To(ContainSubstring(id), "the refusal names the valid id %s", id)
		}
	})

	It("offers every Trident class whatever the party size, each with its seats and flagged when the party exceeds them", func() {
		// The specification: party_size "does not select a vehicle".
		two := ridesCall("search_rides", map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2, "limit": 12}, false)
		if len(two["options"].([]any)) == 0 {
			Skip(fmt.Sprintf("the server issued no option for Helensburgh → Glasgow Airport (status %v)", two["status"]))
		}
		eight := ridesCall("search_rides", map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 8, "limit": 12}, false)
		products := func(sc map[string]any) []string {
			var out []string
			for _, o := range sc["options"].([]any) {
				o := o.(map[string]any)
				out = append(out, o["provider"].(string)+"/"+o["product"].(map[string]any)["id"].(string))
			}
			return out
		}
		Expect(products(eight)).To(ConsistOf(products(two)), "a party of eight gets the same vehicle classes as a party of two")
		for _, o := range eight["options"].([]any) {
			o := o.(map[string]any)
			p := o["product"].(map[string]any)
			Expect(p).To(HaveKey("capacity"), "each option says its seats")
			exceeds := p["capacity"] != nil && 8 > p["capacity"].(float64)
			Expect(o["exceeds_capacity"]).To(Equal(exceeds), "%s: exceeds_capacity for a party of eight in %v seats", p["id"], p["capacity"])
		}
		for _, o := range two["options"].([]any) {
			o := o.(map[string]any)
			p := o["product"].(map[string]any)
			Expect(o["exceeds_capacity"]).To(Equal(p["capacity"] != nil && 2 > p["capacity"].(float64)), "%s for a party of two", p["id"])
		}
		// No provider is failed that was not called.
		called := map[string]bool{}
		for _, c := range eight["provider_calls"].([]any) {
			called[c.(map[string]any)["provider"].(string)] = true
		}
		for _, st := range eight["providers"].([]any) {
			st := st.(map[string]any)
			if st["status"] == "failed" {
				Expect(called).To(HaveKey(st["provider"]), "%s is failed but was not called", st["provider"])
			}
		}
	})

	It("answers a New York search with coordinate links and entry pages", func() {
		sc := ridesCall("search_rides", map[string]any{"pickup": jfk, "dropoff": timesSq, "destination_city": "New York", "party_size": 2}, false)
		if len(sc["options"].([]any)) > 0 {
			Skip("this server has a priced source for New York; the handoff-only answer needs one without")
		}
		Expect(sc["status"]).To(Equal("handoff_available"))
		links := map[string]map[string]any{}
		for _, h := range sc["browser_handoffs"].([]any) {
			links[h.(map[string]any)["provider"].(string)] = h.(map[string]any)
		}
		for _, id := range []string{"uber", "lyft"} {
			Expect(links[id]["parameters_applied"]).To(Equal(true), id)
			Expect(links[id]["url"]).To(And(ContainSubstring("40.6413"), ContainSubstring("-73.7781"), ContainSubstring("40.758"), ContainSubstring("-73.9855")), id)
		}
		// Coverage: Trident serves Argyll & Bute, Gett the UK and Israel,
		// Bolt and FREENOW Europe (and Bolt Africa): none operates in New
		// York, so none is offered there.
		for _, id := range []string{"trident", "gett", "bolt", "freenow"} {
			Expect(links).NotTo(HaveKey(id), "%s does not operate in New York", id)
		}
		raw, _ := json.Marshal(sc["continuation_context"])
		Expect(string(raw)).NotTo(ContainSubstring("40.6413"), "continuation_context carries no coordinates")
	})

	It("offers no provider entry path outside the provider's coverage, the same rule as search_rides", func() {
		// Trident serves Argyll & Bute only: its entry path for a New York
		// trip is refused, naming the field; without a route it is offered.
		sc := ridesRefusal("get_ride_booking_handoff", map[string]any{"provider": "trident", "search": map[string]any{"pickup": jfk, "dropoff": timesSq}}, "invalid_arguments")
		raw, _ := json.Marshal(sc["fields"])
		Expect(string(raw)).To(ContainSubstring(`"/provider"`), "the refusal names /provider")
		h := ridesCall("get_ride_booking_handoff", map[string]any{"provider": "trident"}, false)
		Expect(h["url"]).To(HavePrefix("https://"), "Trident's entry page without a route")
	})

	It("gives an app-scheme link its web fallback", func() {
		london := map[string]any{"latitude": 51.5308, "longitude": -0.1238}
		heathrow := map[string]any{"latitude": 51.47, "longitude": -0.4543}
		sc := ridesCall("search_rides", map[string]any{"pickup": london, "dropoff": heathrow}, false)
		apps := 0
		for _, x := range sc["browser_handoffs"].([]any) {
			h := x.(map[string]any)
			url, _ := h["url"].(string)
			if strings.HasPrefix(url, "https://") {
				Expect(h["fallback_url"]).To(BeNil(), "%s: a web link needs no fallback", h["provider"])
				continue
			}
			apps++
			Expect(h["fallback_url"]).To(And(BeAssignableToTypeOf(""), HavePrefix("https://")), "%s: %s opens nothing without the app: it needs a web fallback", h["provider"], url)
		}
		if apps == 0 {
			Skip("no app-scheme link in a London search on this server")
		}
	})

	Context("with issued options", func() {
		var search map[string]any
		BeforeEach(func() {
			search = ridesCall("search_rides", map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2}, false)
			if len(search["options"].([]any)) == 0 {
				Skip(fmt.Sprintf("the server issued no option for Helensburgh → Glasgow Airport (status %v)", search["status"]))
			}
		})

		It("compares, resolves and hands off unchanged options", func() {
			ctx := search["relay_context"]
			opts := search["options"].([]any)
			cmp := ridesCall("compare_rides", map[string]any{"options": opts, "sort_by": "price", "context": ctx}, false)
			Expect(cmp["groups"]).NotTo(BeEmpty())
			res := ridesCall("resolve_ride", map[string]any{"option": opts[0], "context": ctx}, false)
			Expect(res["status"]).To(BeElementOf("ok", "partial"))
			h := ridesCall("get_ride_booking_handoff", map[string]any{"option": opts[0], "context": ctx}, false)
			Expect(h["native_execution_available"]).To(Equal(false))
			Expect(h["completed"]).To(Equal(false))
			Expect(h["confirmation_state"]).To(Equal("not_started"))
			Expect(h["provider_access"].(map[string]any)["enforcement"]).To(Equal("advisory_only"))
		})

		It("refuses a tampered, foreign-journey or context-less option everywhere", func() {
			ctx := search["relay_context"]
			opt := search["options"].([]any)[0].(map[string]any)
			other := ridesCall("search_rides", map[string]any{}, false)["relay_context"]
			tampered := func(f func(o map[string]any)) map[string]any {
				var c map[string]any
				b, _ := json.Marshal(opt)
				d := json.NewDecoder(bytes.NewReader(b))
				d.UseNumber()
				Expect(d.Decode(&c)).To(Succeed())
				f(c)
				return c
			}
			cases := map[string]struct {
				o   map[string]any
				ctx any
			}{
				"price edited":      {tampered(func(o map[string]any) { o["price"].(map[string]any)["amount_minor"] = json.Number("1") }), ctx},
				"expiry extended":   {tampered(func(o map[string]any) { o["expires_at"] = "2099-01-01T00:00:00Z" }), ctx},
				"provider renamed":  {tampered(func(o map[string]any) { o["provider"] = "uber" }), ctx},
				"signature removed": {tampered(func(o map[string]any) { o["verification"].(map[string]any)["signature"] = "AAAA" }), ctx},
				// Not as issued, so not the tool's arguments: the
				// specification's recovery for an invalid option applies.
				"verification stripped": {tampered(func(o map[string]any) { delete(o, "verification") }), ctx},
				"alg changed":           {tampered(func(o map[string]any) { o["verification"].(map[string]any)["alg"] = "none" }), ctx},
				"a field added":         {tampered(func(o map[string]any) { o["discount_minor"] = json.Number("100") }), ctx},
				"a field dropped":       {tampered(func(o map[string]any) { delete(o, "expires_at") }), ctx},
				"another journey":       {opt, other},
				"no context":            {opt, nil},
			}
			for name, c := range cases {
				for _, tool := range []string{"compare_rides", "resolve_ride", "get_ride_booking_handoff"} {
					args := map[string]any{"option": c.o}
					if tool == "compare_rides" {
						args = map[string]any{"options": []any{c.o}}
					}
					if c.ctx != nil {
						args["context"] = c.ctx
					}
					By(name + ", " + tool)
					ridesRefusal(tool, args, "invalid_option")
				}
			}
		})

		It("issues options that live at most five minutes, and refuses them once expired", Label("slow"), func() {
			searched := time.Now()
			opts := search["options"].([]any)
			o := opts[0].(map[string]any)
			issued, err := time.Parse(time.RFC3339, o["issued_at"].(string))
			Expect(err).NotTo(HaveOccurred(), "issued_at %v", o["issued_at"])
			expires, err := time.Parse(time.RFC3339, o["expires_at"].(string))
			Expect(err).NotTo(HaveOccurred(), "expires_at %v", o["expires_at"])
			ttl := expires.Sub(issued)
			Expect(ttl).To(And(BeNumerically(">", 0), BeNumerically("<=", 5*time.Minute)), "options expire after at most five minutes: issued %s, expires %s", issued, expires)
			if ttl > shortTTL {
				Skip(fmt.Sprintf("the server's options live %s (expires_at - issued_at); the suite waits out at most %s: start it with a short RELAY_OPTION_TTL (the local run uses 5s)", ttl, shortTTL))
			}
			// Wait out the lifetime as the server counts it (from issued_at,
			// to the second), measured from when the search answered, so a
			// skewed clock on either side changes nothing.
			time.Sleep(time.Until(searched.Add(ttl + 1500*time.Millisecond)))
			ctx := search["relay_context"]
			ridesRefusal("compare_rides", map[string]any{"options": []any{o}, "context": ctx}, "invalid_option")
			ridesRefusal("resolve_ride", map[string]any{"option": o, "context": ctx}, "invalid_option")
			ridesRefusal("get_ride_booking_handoff", map[string]any{"option": o, "context": ctx}, "invalid_option")
		})
	})
})

package conformance

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
)

// registryConnector is one connector of contracts/relay/connectors.json.
type registryConnector = relaycontracts.Connector

func loadConnectors() []registryConnector {
	GinkgoHelper()
	cs, err := relaycontracts.DecodeConnectors(relaycontracts.Connectors)
	Expect(err).NotTo(HaveOccurred(), "contracts/relay/connectors.json")
	Expect(cs).NotTo(BeEmpty(), "contracts/relay/connectors.json lists no connector")
	return cs
}

// firstConnector is the registry's first connector that f accepts, or a
// skip saying what the registry lacks.
func firstConnector(cs []registryConnector, what string, f func(registryConnector) bool) registryConnector {
	GinkgoHelper()
	i := slices.IndexFunc(cs, f)
	if i < 0 {
		Skip("contracts/relay/connectors.json has no " + what)
	}
	return cs[i]
}

// journeyValues is a valid value for every field of the contract's
// JourneyContext, so that any connector's arguments can be filled.
var journeyValues = map[string]any{
	"origin_city":         "London",
	"destination_city":    "Glasgow",
	"origin_airport":      "LHR",
	"destination_airport": "GLA",
	"start_date":          "2027-03-10",
	"end_date":            "2027-03-12",
	"party_size":          2,
	"currency":            "GBP",
}

// journeyFields is journeyValues without the fields named in drop.
func journeyFields(drop ...string) map[string]any {
	out := map[string]any{}
	for k, v := range journeyValues {
		if !slices.Contains(drop, k) {
			out[k] = v
		}
	}
	return out
}

// connectorsURL is POST /v1/session/connectors on the Relay endpoint's host.
func connectorsURL() string {
	u, err := url.Parse(ridesURL())
	Expect(err).NotTo(HaveOccurred(), "--rides-endpoint")
	return u.Scheme + "://" + u.Host + "/v1/session/connectors"
}

// postConnectors sends body to the connectors endpoint with the Relay token.
func postConnectors(body any) *Exchange {
	GinkgoHelper()
	raw, err := json.Marshal(body)
	Expect(err).NotTo(HaveOccurred())
	ex, err := NewClient(connectorsURL(), ridesToken, cfg.Timeout).Post(suiteCtx, raw, Header{"Accept": "application/json", "MCP-Protocol-Version": ""})
	Expect(err).NotTo(HaveOccurred())
	return ex
}

// report stores the session's connectors under ctx and checks the 200
// answer: the report as stored, for ctx's session, available defaulted.
func report(ctx any, connectors ...map[string]any) {
	GinkgoHelper()
	ex := postConnectors(map[string]any{"context": ctx, "connectors": connectors})
	Expect(ex.Status).To(Equal(http.StatusOK), ex.String())
	var got struct {
		SessionID  string           `json:"session_id"`
		Connectors []map[string]any `json:"connectors"`
	}
	Expect(json.Unmarshal(ex.Body, &got)).To(Succeed(), ex.String())
	Expect(got.SessionID).To(Equal(ctx.(map[string]any)["session_id"]), ex.String())
	Expect(got.Connectors).To(HaveLen(len(connectors)), ex.String())
	for i, c := range connectors {
		want := map[string]any{"available": true}
		for k, v := range c {
			want[k] = v
		}
		Expect(got.Connectors[i]).To(Equal(want), "connector %d as stored\n%s", i, ex.String())
	}
}

// reported is a connector report entry: usable unless changed by kv pairs.
func reported(id string, kv ...any) map[string]any {
	c := map[string]any{"id": id, "installed": true, "enabled": true, "authorized": true}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}

// expectRefusal checks a connectors endpoint refusal: the status and the
// RelayErrorResponse's error.
func expectRefusal(ex *Exchange, status int, code string) {
	GinkgoHelper()
	Expect(ex.Status).To(Equal(status), ex.String())
	var body struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	Expect(json.Unmarshal(ex.Body, &body)).To(Succeed(), ex.String())
	Expect(body.Error).To(Equal(code), ex.String())
	Expect(body.Message).NotTo(BeEmpty(), ex.String())
}

// tamperedContext is ctx with its signature replaced.
func tamperedContext(ctx any) map[string]any {
	c := map[string]any{}
	for k, v := range ctx.(map[string]any) {
		c[k] = v
	}
	c["verification"] = map[string]any{"kid": c["verification"].(map[string]any)["kid"], "alg": "HS256", "signature": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
	return c
}

var _ = Describe("Relay journeys (continue_journey, POST /v1/session/connectors)", Label("rides", "journeys"), func() {
	var (
		connectors []registryConnector
		ctx        map[string]any // the latest relay_context of the journey
	)
	// cont calls continue_journey on the journey with the latest context,
	// checks what every answer carries and keeps its relay_context.
	cont := func(to string, fields map[string]any) map[string]any {
		GinkgoHelper()
		args := map[string]any{"journey_id": ctx["journey_id"], "context": ctx, "to_connector": to}
		if fields != nil {
			args["journey_context"] = fields
		}
		sc := ridesCall("continue_journey", args, false)
		Expect(sc["to_connector"]).To(Equal(to))
		next := sc["relay_context"].(map[string]any)
		Expect(next["session_id"]).To(Equal(ctx["session_id"]), "continue_journey keeps the session")
		Expect(next["journey_id"]).To(Equal(ctx["journey_id"]), "continue_journey keeps the journey")
		if sc["status"] != "ready" {
			Expect(sc).NotTo(HaveKey("next_action"), "only ready carries next_action")
		}
		ctx = next
		return sc
	}

	BeforeEach(func() {
		if ridesURL() == "" {
			Skip("--rides-endpoint=off")
		}
		if serverMode == ModeOAuth && ridesToken == "" {
			Skip("OAuth mode: set CONFORMANCE_RIDES_TOKEN to a token for the Relay endpoint's resource with journeys:write")
		}
		if *ridesFlag == "" && !ridesServed() {
			Skip("the server has no Relay endpoint at " + ridesURL() + " (pass --rides-endpoint to require one)")
		}
		Expect(rcErr).NotTo(HaveOccurred(), "loading contracts/relay")
		connectors = loadConnectors()
		ctx = ridesCall("search_rides", map[string]any{}, false)["relay_context"].(map[string]any)
	})

	It("keeps the session and journey of a search, and refuses a tampered or foreign-journey context", func() {
		c := connectors[0]
		first := ctx
		cont(c.ID, nil)
		cont(c.ID, nil)
		Expect(ctx["request_id"]).NotTo(Equal(first["request_id"]), "each call has its own request_id")

		other := ridesCall("search_rides", map[string]any{}, false)["relay_context"].(map[string]any)
		Expect(other["journey_id"]).NotTo(Equal(ctx["journey_id"]), "a search without context starts another journey")
		for name, args := range map[string]map[string]any{
			"a tampered context":       {"journey_id": ctx["journey_id"], "context": tamperedContext(ctx), "to_connector": c.ID},
			"another journey's id":     {"journey_id": other["journey_id"], "context": ctx, "to_connector": c.ID},
			"a context for another id": {"journey_id": ctx["journey_id"], "context": other, "to_connector": c.ID},
		} {
			By(name)
			ridesRefusal("continue_journey", args, "invalid_context")
		}
	})

	It("is installation_unknown before any report, and connection_required for a connector left out of the latest report", func() {
		c, d := connectors[0], firstConnector(connectors, "second connector", func(x registryConnector) bool { return x.ID != connectors[0].ID })
		sc := cont(c.ID, journeyFields())
		Expect(sc["status"]).To(Equal("installation_unknown"), "no report for the session yet")
		Expect(sc["reason"]).NotTo(BeEmpty(), "the result carries the reason")
		Expect(sc["suggested_step"]).To(HaveKeyWithValue("action", "report_connectors"), "the host must report current capabilities")
		report(ctx, reported(c.ID))
		report(ctx, reported(d.ID))
		// The specification: "A missing connector returns connection_required".
		sc = cont(c.ID, journeyFields())
		Expect(sc["status"]).To(Equal("connection_required"), "a report replaces the previous one whole, and this one leaves the connector out")
		Expect(sc["reason"]).NotTo(BeEmpty(), "the result carries the reason")
		Expect(sc["suggested_step"]).To(And(HaveKeyWithValue("action", "connect"), HaveKeyWithValue("connector", c.ID)),
			"a connection step, never an install")
	})

	DescribeTable("answers from the host's report",
		func(status string, kv ...any) {
			c := firstConnector(connectors, "enabled connector", func(x registryConnector) bool { return x.Enabled })
			report(ctx, reported(c.ID, kv...))
			sc := cont(c.ID, journeyFields())
			Expect(sc["status"]).To(Equal(status))
			Expect(sc["reason"]).NotTo(BeEmpty(), "the result carries the reason")
			// A connection step or a permitted fallback, never an install.
			steps := map[string][]any{"connection_required": {"connect"}, "disabled": {"enable"}, "unauthorized": {"authorize"}, "unavailable": {"use_fallback", "try_later"}}[status]
			Expect(sc["suggested_step"]).To(HaveKeyWithValue("action", BeElementOf(steps...)), "suggested_step for %s", status)
		},
		Entry("not installed: connection_required", "connection_required", "installed", false),
		Entry("installed, disabled: disabled", "disabled", "enabled", false),
		Entry("enabled, not authorized: unauthorized", "unauthorized", "authorized", false),
		Entry("authorized, not available: unavailable", "unavailable", "available", false),
		Entry("not installed and not authorized: connection_required first", "connection_required", "installed", false, "authorized", false),
	)

	It("is unavailable for a connector the registry switches off, however usable the host says it is", func() {
		c := firstConnector(connectors, "connector with enabled: false", func(x registryConnector) bool { return !x.Enabled })
		report(ctx, reported(c.ID, "available", true))
		sc := cont(c.ID, journeyFields())
		Expect(sc["status"]).To(Equal("unavailable"))
		Expect(sc["suggested_step"]).To(HaveKeyWithValue("action", BeElementOf("use_fallback", "try_later")))
	})

	It("suggests a permitted fallback from the registry, one the host reports usable, for a connector it cannot reach", func() {
		c := firstConnector(connectors, "switched-off connector with a fallback", func(x registryConnector) bool { return !x.Enabled && len(x.Fallbacks) > 0 })
		fb := c.Fallbacks[0]
		report(ctx, reported(c.ID), reported(fb))
		sc := cont(c.ID, journeyFields())
		Expect(sc["status"]).To(Equal("unavailable"))
		Expect(sc["suggested_step"]).To(And(HaveKeyWithValue("action", "use_fallback"), HaveKeyWithValue("connector", fb)))
	})

	It("proposes, with missing_fields, when the journey lacks a required argument, and a proposal changes nothing", func() {
		c := firstConnector(connectors, "enabled connector with two required arguments", func(x registryConnector) bool {
			return x.Enabled && len(x.Required()) >= 2
		})
		req := c.Required()
		report(ctx, reported(c.ID))
		sc := cont(c.ID, journeyFields(req...))
		Expect(sc["status"]).To(Equal("proposal"))
		Expect(sc["suggested_step"]).To(HaveKeyWithValue("action", "provide_fields"))
		Expect(sc["missing_fields"]).To(ConsistOf(toAny(req)...))

		// All but the last required field: still a proposal, for that one.
		sc = cont(c.ID, journeyFields(req[len(req)-1]))
		Expect(sc["status"]).To(Equal("proposal"))
		Expect(sc["missing_fields"]).To(ConsistOf(req[len(req)-1]))
		// Only the last one: had the proposal saved the others, this were ready.
		sc = cont(c.ID, map[string]any{req[len(req)-1]: journeyValues[req[len(req)-1]]})
		Expect(sc["status"]).To(Equal("proposal"), "a proposal must not save the journey fields it was given")
		Expect(sc["missing_fields"]).To(ConsistOf(toAny(req[:len(req)-1])...))
	})

	It("is ready with next_action: the connector, its entry tool and the registry's arguments", func() {
		for _, c := range connectors {
			if !c.Enabled {
				continue
			}
			By(c.ID)
			report(ctx, reported(c.ID))
			sc := cont(c.ID, journeyFields())
			Expect(sc["status"]).To(Equal("ready"))
			Expect(sc).NotTo(HaveKey("suggested_step"), "ready needs no other step")
			args := map[string]any{}
			for _, a := range c.Arguments {
				args[a.Name] = journeyValues[a.From]
			}
			want, _ := json.Marshal(map[string]any{"connector": c.ID, "tool": c.EntryTool, "arguments": args})
			got, _ := json.Marshal(sc["next_action"])
			Expect(SameJSON(want, got)).To(BeTrue(), "next_action %s, the registry gives %s", got, want)
		}
	})

	It("refuses a tampered context with 403 and a body that is not a report with 400", func() {
		c := connectors[0]
		expectRefusal(postConnectors(map[string]any{"context": tamperedContext(ctx), "connectors": []any{reported(c.ID)}}), http.StatusForbidden, "invalid_context")
		for name, body := range map[string]any{
			"installed not a boolean": map[string]any{"context": ctx, "connectors": []any{reported(c.ID, "installed", "yes")}},
			"not an object":           []any{1},
			// The contract's SessionConnectorsReport: both members required,
			// no others.
			"no connectors":     map[string]any{"context": ctx},
			"no context":        map[string]any{"connectors": []any{reported(c.ID)}},
			"an unknown member": map[string]any{"context": ctx, "connectors": []any{reported(c.ID)}, "extra": 1},
		} {
			By(name)
			expectRefusal(postConnectors(body), http.StatusBadRequest, "invalid_request")
		}
		// Neither refusal stored anything.
		Expect(cont(c.ID, journeyFields())["status"]).To(Equal("installation_unknown"))
	})
})

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

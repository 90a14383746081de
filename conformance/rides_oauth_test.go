package conformance

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// ridesScopes is the scope each Relay tool needs in OAuth mode, as RELAY.md
// fixes them ("Access, limits, retention").
var ridesScopes = map[string]string{
	"search_rides":             "rides:read",
	"compare_rides":            "rides:read",
	"resolve_ride":             "rides:read",
	"get_ride_booking_handoff": "rides:handoff",
	"continue_journey":         "journeys:write",
}

// ridesBareToken (CONFORMANCE_RIDES_BARE_TOKEN) is a token for the Relay
// endpoint's resource that carries none of Relay's scopes: every tool must
// refuse it with 403 insufficient_scope. Without it these specs skip.
var ridesBareToken = os.Getenv("CONFORMANCE_RIDES_BARE_TOKEN")

// describeInsufficientScope provokes INSUFFICIENT_SCOPE: each Relay tool,
// called with a valid token for its resource that lacks the tool's scope,
// is refused before it runs with the RFC 6750 section 3.1 challenge naming
// that scope, and the resource's metadata lists every scope.
func describeInsufficientScope(e contracts.ErrorEntry) {
	Context("Relay in OAuth mode", Label("oauth", "rides"), func() {
		BeforeEach(func() {
			if serverMode != ModeOAuth {
				Skip("the server under test is public: scopes are enforced in OAuth mode only")
			}
			if ridesURL() == "" {
				Skip("--rides-endpoint=off")
			}
			if ridesBareToken == "" {
				Skip("set CONFORMANCE_RIDES_BARE_TOKEN to a token for the Relay resource without Relay's scopes")
			}
		})
		for _, tool := range slices.Sorted(maps.Keys(ridesScopes)) {
			need := ridesScopes[tool]
			It(tool+" without "+need+": 403, error=\"insufficient_scope\", scope=\""+need+"\" and resource_metadata", func() {
				ex, err := NewClient(ridesURL(), ridesBareToken, cfg.Timeout).CallTool(suiteCtx, 3, tool, map[string]any{}, nil)
				Expect(err).NotTo(HaveOccurred())
				Expect(ex.Status).To(Equal(e.HTTPStatus), ex.String())
				chs, err := ParseChallenges(ex.Header.Get("WWW-Authenticate"))
				Expect(err).NotTo(HaveOccurred(), ex.String())
				Expect(chs).NotTo(BeEmpty(), ex.String())
				Expect(strings.EqualFold(chs[0].Scheme, "Bearer")).To(BeTrue(), ex.String())
				Expect(chs[0].Params).To(HaveKeyWithValue("error", "insufficient_scope"), ex.String())
				Expect(chs[0].Params).To(HaveKeyWithValue("scope", need), ex.String())
				Expect(chs[0].Params).To(HaveKey("resource_metadata"), ex.String())
				var body struct {
					Error struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				Expect(json.Unmarshal(ex.Body, &body)).To(Succeed(), ex.String())
				Expect(body.Error.Code).To(Equal(e.JSONRPCCode), ex.String())
			})
		}
		It("lists Relay's scopes in the metadata the challenge names", func() {
			ex, err := NewClient(ridesURL(), ridesBareToken, cfg.Timeout).CallTool(suiteCtx, 3, "search_rides", map[string]any{}, nil)
			Expect(err).NotTo(HaveOccurred())
			chs, err := ParseChallenges(ex.Header.Get("WWW-Authenticate"))
			Expect(err).NotTo(HaveOccurred())
			Expect(chs).NotTo(BeEmpty(), ex.String())
			doc, err := anonymous().Get(suiteCtx, chs[0].Params["resource_metadata"])
			Expect(err).NotTo(HaveOccurred())
			Expect(doc.Status).To(Equal(http.StatusOK), doc.String())
			var meta struct {
				Resource        string   `json:"resource"`
				ScopesSupported []string `json:"scopes_supported"`
			}
			Expect(json.Unmarshal(doc.Body, &meta)).To(Succeed(), doc.String())
			Expect(SameURL(meta.Resource, ridesURL())).To(BeTrue(), "resource %q, want %q", meta.Resource, ridesURL())
			for _, s := range ridesScopes {
				Expect(meta.ScopesSupported).To(ContainElement(s), doc.String())
			}
		})
	})
}

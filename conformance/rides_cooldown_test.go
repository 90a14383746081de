package conformance

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
)

// A Relay endpoint whose Uber source calls a fake the suite serves, so that
// the suite can make Uber answer 429 and watch the cool-down that follows:
// CONFORMANCE_RIDES_UBER_ENDPOINT is that endpoint (its server started with
// UBER_API_URL=http://$CONFORMANCE_FAKE_UBER_ADDR and UBER_ACCESS_TOKEN=
// $CONFORMANCE_FAKE_UBER_TOKEN); conformance/run-local.sh's public pass
// starts one. Without them the spec is skipped.
var (
	ridesUberEndpoint = os.Getenv("CONFORMANCE_RIDES_UBER_ENDPOINT")
	fakeUberAddr      = os.Getenv("CONFORMANCE_FAKE_UBER_ADDR")
	fakeUberToken     = os.Getenv("CONFORMANCE_FAKE_UBER_TOKEN")
)

// serveFakeUber serves internal/fakeproviders' Uber at fakeUberAddr (the
// address the server was started with) until the spec ends, through a
// reverse proxy, since the fake listens where httptest puts it.
func serveFakeUber() *fakeproviders.Uber {
	GinkgoHelper()
	uber := fakeproviders.NewUber(suiteT, fakeUberToken)
	target, err := url.Parse(uber.URL)
	Expect(err).NotTo(HaveOccurred())
	ln, err := net.Listen("tcp", fakeUberAddr)
	Expect(err).NotTo(HaveOccurred(), "CONFORMANCE_FAKE_UBER_ADDR")
	srv := &http.Server{Handler: httputil.NewSingleHostReverseProxy(target)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			GinkgoWriter.Printf("fake Uber proxy: %v\n", err)
		}
	}()
	DeferCleanup(srv.Close)
	return uber
}

var _ = Describe("Relay rides with a provider in cool-down", Label("rides"), func() {
	BeforeEach(func() {
		if ridesUberEndpoint == "" || fakeUberAddr == "" || fakeUberToken == "" {
			Skip("CONFORMANCE_RIDES_UBER_ENDPOINT, CONFORMANCE_FAKE_UBER_ADDR and CONFORMANCE_FAKE_UBER_TOKEN are not all set (conformance/run-local.sh's public pass sets them)")
		}
		if suiteT == nil {
			Skip("no *testing.T for the fake")
		}
	})

	// The specification's "Rate limit or unavailable provider: respect
	// Retry-After, avoid repeated polling and use surviving options", and
	// "partial: render surviving options and explain missing coverage".
	It("is partial while an eligible provider is skipped for its cool-down, the provider's entry saying why and when to ask again", func() {
		uber := serveFakeUber()
		c := NewClient(ridesUberEndpoint, ridesToken, cfg.Timeout)
		searchOn := func() map[string]any {
			GinkgoHelper()
			ex, err := c.CallTool(suiteCtx, 1, "search_rides", map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2, "limit": 12}, nil)
			Expect(err).NotTo(HaveOccurred())
			r, err := DecodeResult(expectResponse(ex, 1).Result)
			Expect(err).NotTo(HaveOccurred(), ex.String())
			Expect(r.IsError).To(BeFalse(), ex.String())
			Expect(Validate(rc.out["search_rides"], r.StructuredContent)).To(Succeed(), ex.String())
			var sc map[string]any
			Expect(json.Unmarshal(r.StructuredContent, &sc)).To(Succeed())
			return sc
		}
		entry := func(sc map[string]any, id string) map[string]any {
			for _, p := range sc["providers"].([]any) {
				if p.(map[string]any)["provider"] == id {
					return p.(map[string]any)
				}
			}
			Fail("no providers[] entry for " + id)
			return nil
		}
		called := func(sc map[string]any, id string) bool {
			for _, pc := range sc["provider_calls"].([]any) {
				if pc.(map[string]any)["provider"] == id {
					return true
				}
			}
			return false
		}

		first := searchOn()
		Expect(entry(first, "uber")["status"]).To(Equal("ok"), "Uber answers the first search")
		Expect(first["status"]).To(Equal("ok"))

		uber.Set(fakeproviders.RateLimited)
		uber.SetRetryAfter("120")
		limited := searchOn()
		Expect(entry(limited, "uber")["status"]).To(Equal("rate_limited"), "Uber answered 429")
		Expect(limited["status"]).To(Equal("partial"), "a source failed")

		uber.Set(fakeproviders.Normal)
		seen := len(uber.Calls())
		cooling := searchOn()
		st := entry(cooling, "uber")
		Expect(called(cooling, "uber")).To(BeFalse(), "Uber is left alone until its Retry-After passes")
		Expect(len(uber.Calls())).To(Equal(seen), "the fake got a request during the cool-down")
		Expect(st["status"]).To(Equal("rate_limited"))
		Expect(st["reason"]).NotTo(BeEmpty(), "the entry says why")
		Expect(st["retry_after_seconds"]).To(And(BeNumerically(">", 0), BeNumerically("<=", 120)), "the entry says when to ask again")
		Expect(cooling["options"]).NotTo(BeEmpty(), "Trident's options survive")
		Expect(cooling["status"]).To(Equal("partial"), "an eligible provider was skipped for its cool-down: the search lacks its answer")
	})
})

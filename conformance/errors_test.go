package conformance

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// Junk addresses no geocoder resolves; "xxx" is the seed's own.
var junkAddresses = []string{"xxx", "Qzxq Nowhere Zz9 9ZZ"}

// triggers maps each catalogue row to the specs that provoke it. A row the
// suite has no trigger for fails, so a new catalogue row cannot go untested.
var triggers = map[string]func(e contracts.ErrorEntry){
	"INVALID_ARGUMENTS":            describeInvalidArguments,
	"GEOCODE_FAILED":               describeGeocodeFailed,
	"ROUTING_UNAVAILABLE":          describeRoutingUnavailable,
	"CAPACITY_EXCEEDED":            describeCapacityExceeded,
	"UNAUTHORIZED":                 describeUnauthorized,
	"METHOD_NOT_FOUND":             describeMethodNotFound,
	"NOT_ACCEPTABLE":               describeNotAcceptable,
	"PARSE_ERROR":                  describeParseError,
	"INVALID_REQUEST":              describeInvalidRequest,
	"INTERNAL_ERROR":               describeInternalError,
	"UNSUPPORTED_PROTOCOL_VERSION": describeUnsupportedVersion,
	"FORBIDDEN_ORIGIN":             describeForbiddenOrigin,
	"PAYLOAD_TOO_LARGE":            describePayloadTooLarge,
	"RATE_LIMITED":                 describeRateLimited,
	"INSUFFICIENT_SCOPE":           describeInsufficientScope,
}

var _ = Describe("contracts/errors.json", Label("errors"), func() {
	for _, e := range con.Errors {
		trigger, ok := triggers[e.Name]
		if !ok {
			It(e.Name+" has a trigger in the suite", func() {
				Fail(fmt.Sprintf("contracts/errors.json has a row %s that conformance/errors_test.go cannot trigger: add it to triggers", e.Name))
			})
			continue
		}
		Describe(e.Name, func() { trigger(e) })
	}
})

// baselineArgs returns valid arguments for tool: its success sample's.
func baselineArgs(tool string) map[string]any {
	return maps.Clone(sampleArgs(tool + ".success"))
}

func describeInvalidArguments(e contracts.ErrorEntry) {
	var entries []TableEntry
	for _, tool := range e.Tools {
		tc := con.Tools[tool]
		for _, v := range Violations(tc.Input) {
			entries = append(entries, Entry(tool+": "+v.Name(), tool, v))
		}
	}
	DescribeTable("-32602 for each constraint of each input schema, before any geocoding",
		func(tool string, v Violation) {
			args := baselineArgs(tool)
			// The other address is junk: a server that geocoded before
			// validating would answer GEOCODE_FAILED instead.
			junkField := "pickup"
			if v.Field == "pickup" {
				junkField = "dropoff"
			}
			if _, ok := con.Tools[tool].Input.Properties[junkField]; ok {
				args[junkField] = junkAddresses[1]
			}
			args = v.Apply(args)
			ex, err := client().CallTool(suiteCtx, 7, tool, args, nil)
			Expect(err).NotTo(HaveOccurred())
			rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, 7)
			Expect(rpcErr.Message).To(HavePrefix(v.MessagePrefix()), "the message must name the field\n%s", ex.String())
			if cfg.StrictMessages {
				Expect(rpcErr.Message).To(Equal(v.ExpectedMessage()), "exact Zod v3 wording (relax with --strict-messages=false)\n%s", ex.String())
			}
		}, entries)
}

func describeGeocodeFailed(e contracts.ErrorEntry) {
	var entries []TableEntry
	for _, tool := range e.Tools {
		for _, field := range []string{"pickup", "dropoff"} {
			for _, junk := range junkAddresses {
				entries = append(entries, Entry(fmt.Sprintf("%s with %s %q", tool, field, junk), tool, field, junk))
			}
		}
	}
	DescribeTable("a junk address is a tool error with the catalogue signal", func(tool, field, junk string) {
		args := baselineArgs(tool)
		args[field] = junk
		ex, err := client().CallTool(suiteCtx, 2, tool, args, nil)
		Expect(err).NotTo(HaveOccurred())
		r := expectToolError(e.Name, ex, 2, e.Messages[tool])
		Expect(r.StructuredContent).To(SatisfyAny(BeEmpty(), Equal([]byte("null"))), "a tool error carries no structuredContent\n%s", ex.String())
	}, entries)
}

func describeRoutingUnavailable(e contracts.ErrorEntry) {
	for _, tool := range e.Tools {
		It("is a retryable tool error when routing is down: "+tool, func() {
			if cfg.RoutingDownEndpoint == "" {
				Skip("no way to take the router down: pass --routing-down-endpoint=URL of the same server with its routing back end unreachable (run-local.sh does)")
			}
			c := NewClient(cfg.RoutingDownEndpoint, token, cfg.Timeout)
			ex, err := c.CallTool(suiteCtx, 5, tool, baselineArgs(tool), nil)
			Expect(err).NotTo(HaveOccurred())
			expectToolError(e.Name, ex, 5, e.Messages[tool])
		})
	}
}

func describeCapacityExceeded(e contracts.ErrorEntry) {
	caps, err := con.Capacities()
	if err != nil {
		It("reads the seat limits from the catalogue", func() { Fail(err.Error()) })
		return
	}
	for _, tool := range e.Tools {
		in := con.Tools[tool].Input
		vt, pax := in.Properties["vehicleType"], in.Properties["passengers"]
		if vt == nil || pax == nil || pax.Maximum == nil {
			It(tool+" has vehicleType and passengers", func() { Fail("the input schema lost vehicleType or passengers.maximum") })
			continue
		}
		var entries []TableEntry
		for _, v := range vt.Enum {
			name, _ := v.(string)
			c, ok := caps[name]
			if !ok || float64(c+1) > *pax.Maximum {
				continue
			}
			entries = append(entries, Entry(fmt.Sprintf("%s: %s with %d passengers", tool, name, c+1), tool, name, c))
		}
		DescribeTable("is checked before geocoding (a junk address still draws CAPACITY_EXCEEDED)", func(tool, vehicle string, capacity int) {
			args := baselineArgs(tool)
			args["pickup"], args["vehicleType"], args["passengers"] = junkAddresses[1], vehicle, capacity+1
			ex, err := client().CallTool(suiteCtx, 4, tool, args, nil)
			Expect(err).NotTo(HaveOccurred())
			r := expectToolError(e.Name, ex, 4, "")
			prefix := fmt.Sprintf("Vehicle '%s' seats up to %d passengers, but %d were requested.", vehicle, capacity, capacity+1)
			if cfg.StrictMessages {
				Expect(r.Text()).To(HavePrefix(prefix), ex.String())
			}
			geo, _ := con.ErrorEntry("GEOCODE_FAILED")
			Expect(r.Text()).NotTo(ContainSubstring(geo.Signal), "capacity must be checked before geocoding\n%s", ex.String())
		}, entries)
		DescribeTable("a full vehicle at exactly its capacity is accepted", func(tool, vehicle string, capacity int) {
			args := baselineArgs(tool)
			args["vehicleType"], args["passengers"] = vehicle, capacity
			ex, err := client().CallTool(suiteCtx, 8, tool, args, nil)
			Expect(err).NotTo(HaveOccurred())
			expectToolSuccess(tool, ex, 8)
		}, entries)
	}
}

func describeMethodNotFound(e contracts.ErrorEntry) {
	var entries []TableEntry
	for _, tool := range e.Tools {
		entries = append(entries, Entry(tool+"o", tool+"o"))
	}
	entries = append(entries, Entry("an empty name", ""), Entry("a differently cased name", strings.ToUpper(e.Tools[0])))
	DescribeTable("an unknown tool name is JSON-RPC -32601", func(name string) {
		ex, err := client().CallTool(suiteCtx, 3, name, map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, 3)
		if cfg.StrictMessages {
			Expect(rpcErr.Message).To(Equal(strings.ReplaceAll(e.Message, "{name}", name)), ex.String())
		}
	}, entries)
	It("an unknown JSON-RPC method is -32601", func() {
		ex, err := client().Call(suiteCtx, 9, "tools/frobnicate", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, 9)
	})
}

func describeNotAcceptable(e contracts.ErrorEntry) {
	// Each type must be named: the specification answers a call that leaves
	// Accept out with 406, and curl and fetch then send */*, so a wildcard
	// names neither.
	DescribeTable("an Accept header without both media types is HTTP 406", func(accept string) {
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request, Header{"Accept": accept})
		Expect(err).NotTo(HaveOccurred())
		rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil)
		if cfg.StrictMessages {
			Expect(rpcErr.Message).To(Equal(e.Message), ex.String())
		}
	},
		Entry("Accept dropped", ""),
		Entry("application/json only", "application/json"),
		Entry("text/event-stream only", "text/event-stream"),
		Entry("text/html", "text/html"),
		Entry("*/* (curl's and fetch's default)", "*/*"),
		Entry("type wildcards only", "application/*, text/*"),
		Entry("application/json with the stream only through */*", "application/json, */*"),
		Entry("text/event-stream with JSON only through application/*", "text/event-stream, application/*"),
	)
	It("both media types in any order, with parameters, are accepted", func() {
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request,
			Header{"Accept": "text/event-stream;q=0.9, application/json"})
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess("get_service_info", ex, 1)
	})
}

func describeParseError(e contracts.ErrorEntry) {
	DescribeTable("a body that is not JSON is -32700 with id null", func(body string) {
		ex, err := client().Post(suiteCtx, []byte(body), nil)
		Expect(err).NotTo(HaveOccurred())
		rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil)
		if cfg.StrictMessages {
			Expect(rpcErr.Message).To(HavePrefix(strings.SplitN(e.Message, "{", 2)[0]), ex.String())
		}
	},
		Entry("truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/list"`),
		Entry("not JSON at all", `tools/list please`),
		Entry("a trailing comma", `{"jsonrpc":"2.0","id":1,"method":"tools/list",}`),
	)
}

func describeInvalidRequest(e contracts.ErrorEntry) {
	DescribeTable("JSON that is not a JSON-RPC 2.0 request is -32600", func(body string, id any) {
		ex, err := client().Post(suiteCtx, []byte(body), nil)
		Expect(err).NotTo(HaveOccurred())
		// JSON-RPC 2.0 wants id null when the id cannot be read; when it
		// can, echoing it is also accepted.
		rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil, id)
		if cfg.StrictMessages {
			Expect(rpcErr.Message).To(HavePrefix(strings.SplitN(e.Message, "{", 2)[0]), ex.String())
		}
	},
		Entry("jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`, 1),
		Entry("no method", `{"jsonrpc":"2.0","id":1}`, 1),
		Entry("an object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, nil),
		Entry("a number as method", `{"jsonrpc":"2.0","id":1,"method":42}`, 1),
	)
}

func describeInternalError(e contracts.ErrorEntry) {
	It("cannot be provoked from outside", func() {
		Skip("a correct server has no request that fails internally; -32603 is checked by the server's own tests")
	})
}

func describeUnsupportedVersion(e contracts.ErrorEntry) {
	It("an unsupported MCP-Protocol-Version is HTTP 400", Label("transport"), func() {
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request, Header{"MCP-Protocol-Version": "1999-01-01"})
		Expect(err).NotTo(HaveOccurred())
		// MCP (2025-06-18, transports) asks for 400 Bad Request and fixes no
		// body; the catalogue's JSON-RPC code and wording are our server's
		// choice, held only with --strict-messages.
		if cfg.StrictMessages {
			rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil)
			Expect(rpcErr.Message).To(Equal(strings.ReplaceAll(e.Message, "{version}", "1999-01-01")), ex.String())
			return
		}
		Expect(ex.Status).To(Equal(e.HTTPStatus), "HTTP status\n%s", ex.String())
		if m, err := ex.Only(); err == nil && m.Error != nil {
			AddReportEntry("information: the 400 for an unsupported MCP-Protocol-Version", fmt.Sprintf("JSON-RPC error %d %q (the catalogue's is %d)", m.Error.Code, m.Error.Message, e.JSONRPCCode))
		}
	})
}

func describeForbiddenOrigin(e contracts.ErrorEntry) {
	It("a refused Origin is HTTP 403", func() {
		if cfg.ForbiddenOrigin == "" {
			Skip("pass --forbidden-origin=ORIGIN, an origin the server is configured to refuse")
		}
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request, Header{"Origin": cfg.ForbiddenOrigin})
		Expect(err).NotTo(HaveOccurred())
		rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil)
		if cfg.StrictMessages {
			Expect(rpcErr.Message).To(Equal(e.Message), ex.String())
		}
	})
}

func describePayloadTooLarge(e contracts.ErrorEntry) {
	It("a body over the limit is HTTP 413", func() {
		if cfg.MaxBodyBytes <= 0 {
			Skip("pass --max-body-bytes=N, the server's request body limit")
		}
		head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"`
		tail := `","dropoff":"Glasgow Airport"}}}`
		pad := cfg.MaxBodyBytes + 1 - len(head) - len(tail)
		body := head + strings.Repeat("a", max(pad, 0)) + tail
		ex, err := client().Post(suiteCtx, []byte(body), nil)
		Expect(err).NotTo(HaveOccurred())
		// The body was never read to its end, so no id can be echoed.
		rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil)
		if cfg.StrictMessages {
			Expect(rpcErr.Message).To(Equal(strings.ReplaceAll(e.Message, "{limit}", strconv.Itoa(cfg.MaxBodyBytes))), ex.String())
		}
	})
	It("a body at the limit is served", func() {
		if cfg.MaxBodyBytes <= 0 {
			Skip("pass --max-body-bytes=N, the server's request body limit")
		}
		// A valid call padded with whitespace to exactly the limit: the
		// limit must refuse only what exceeds it.
		req := sample("get_service_info.success").Request
		pad := cfg.MaxBodyBytes - len(req)
		Expect(pad).To(BeNumerically(">=", 0), "the limit is smaller than a minimal call")
		body := append(append([]byte{}, req...), []byte(strings.Repeat(" ", pad))...)
		ex, err := client().Post(suiteCtx, body, nil)
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess("get_service_info", ex, 1)
	})
}

func describeRateLimited(e contracts.ErrorEntry) {
	It("429 with Retry-After when the limiter refuses", func() {
		Skip("the limiter is off by default and its caps are the operator's choice; the server's own tests cover it")
	})
}

// describeUnauthorized is the OAuth area: every way a bearer can be wrong
// draws the same 401.
func describeUnauthorized(e contracts.ErrorEntry) {
	Context("in OAuth mode", Label("oauth"), func() {
		BeforeEach(func() {
			if serverMode != ModeOAuth {
				Skip("the server under test is public (an anonymous call succeeded); run against a server with MCP_REQUIRE_OAUTH=true and pass --token or --issuer")
			}
		})
		type badAuth struct {
			header string // Authorization value; "" sends none
			query  bool   // send the valid token as ?access_token= instead
		}
		cases := map[string]func() badAuth{
			"a missing token":   func() badAuth { return badAuth{} },
			"a malformed token": func() badAuth { return badAuth{header: "Bearer not-a-jwt"} },
			"an expired token": func() badAuth {
				if cfg.ExpiredToken == "" {
					Skip("pass --expired-token=JWT, a token from the issuer whose exp has passed")
				}
				return badAuth{header: "Bearer " + cfg.ExpiredToken}
			},
			"a token signed by a foreign key": func() badAuth {
				t, err := ForeignToken(token, cfg.Issuer, cfg.Resource, timeNow())
				Expect(err).NotTo(HaveOccurred())
				return badAuth{header: "Bearer " + t}
			},
			"a token with a tampered payload": func() badAuth {
				return badAuth{header: "Bearer " + tamper(token)}
			},
			"a valid token under another scheme": func() badAuth { return badAuth{header: "Token " + token} },
			"a valid token in the query string":  func() badAuth { return badAuth{query: true} },
		}
		for _, name := range slices.Sorted(maps.Keys(cases)) {
			mk := cases[name]
			It("refuses "+name+" with 401, WWW-Authenticate resource_metadata and -32001", func() {
				b := mk()
				c := anonymous()
				if b.query {
					c.Endpoint += "?access_token=" + token
				}
				hdr := Header{}
				if b.header != "" {
					hdr["Authorization"] = b.header
				}
				ex, err := c.Post(suiteCtx, sample("get_service_info.success").Request, hdr)
				Expect(err).NotTo(HaveOccurred())
				expectUnauthorized(e, ex)
			})
		}
		It("accepts a valid token with the scheme in lower case", func() {
			ex, err := anonymous().Post(suiteCtx, sample("get_service_info.success").Request, Header{"Authorization": "bearer " + token})
			Expect(err).NotTo(HaveOccurred())
			expectToolSuccess("get_service_info", ex, 1)
		})
		It("publishes the resource metadata the challenge points at", func() {
			ex, err := anonymous().Post(suiteCtx, sample("get_service_info.success").Request, nil)
			Expect(err).NotTo(HaveOccurred())
			url := expectUnauthorized(e, ex)
			doc, err := anonymous().Get(suiteCtx, url)
			Expect(err).NotTo(HaveOccurred())
			Expect(doc.Status).To(Equal(http.StatusOK), doc.String())
			var meta struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				BearerMethods        []string `json:"bearer_methods_supported"`
			}
			Expect(jsonUnmarshal(doc.Body, &meta)).To(Succeed(), doc.String())
			Expect(SameURL(meta.Resource, cfg.Resource)).To(BeTrue(), "resource %q, want %q", meta.Resource, cfg.Resource)
			Expect(meta.AuthorizationServers).NotTo(BeEmpty(), doc.String())
			if cfg.Issuer != "" {
				Expect(meta.AuthorizationServers[0]).To(Equal(strings.TrimRight(cfg.Issuer, "/")), doc.String())
			}
			Expect(meta.BearerMethods).To(Equal([]string{"header"}), "the seed accepts bearer tokens in the header only")
		})
	})
}

// expectUnauthorized checks the one 401 shape of every auth failure and
// returns the resource_metadata URL.
func expectUnauthorized(e contracts.ErrorEntry, ex *Exchange) string {
	GinkgoHelper()
	Expect(ex.Status).To(Equal(e.HTTPStatus), ex.String())
	h := ex.Header.Get("WWW-Authenticate")
	Expect(h).NotTo(BeEmpty(), "a 401 must carry WWW-Authenticate\n%s", ex.String())
	chs, err := ParseChallenges(h)
	Expect(err).NotTo(HaveOccurred(), ex.String())
	var bearer *Challenge
	for i := range chs {
		if strings.EqualFold(chs[i].Scheme, "Bearer") {
			bearer = &chs[i]
		}
	}
	Expect(bearer).NotTo(BeNil(), "no Bearer challenge in %q", h)
	rm, ok := bearer.Params["resource_metadata"]
	Expect(ok).To(BeTrue(), "the Bearer challenge lacks resource_metadata (RFC 9728 §5.1): %q", h)
	Expect(rm).To(HavePrefix("http"), "resource_metadata must be an absolute URL: %q", rm)
	if cfg.StrictMessages {
		Expect(rm).To(Equal(ResourceMetadataURL(cfg.PublicBaseURL)), "resource_metadata\n%s", ex.String())
	}
	rpcErr := expectRPCError(ex, e.HTTPStatus, e.JSONRPCCode, nil)
	if cfg.StrictMessages {
		Expect(rpcErr.Message).To(Equal(e.Message), ex.String())
	}
	return rm
}

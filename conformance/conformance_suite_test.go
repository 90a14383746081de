package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

type sampleT = contracts.Sample

// The configuration comes from flags and the environment; the contracts are
// loaded before RunSpecs so that the spec tables are built from the files.
var (
	cfg            = RegisterFlags(flag.CommandLine)
	con, conErr    = LoadContracts()
	tariff, tarErr = LoadTariff()
	oracle         *Oracle // built from tariff once the flags are parsed
	known          []KnownFailure
	serverMode     Mode   // what the probe found: public or oauth
	token          string // valid access token in OAuth mode
	propertySeed   int64
	suiteCtx       = context.Background()
	sampleBookBase = DefaultBookingBaseURL
)

// suiteT is TestConformance's *testing.T, for the fakes some specs serve
// to the server under test (internal/fakeproviders takes a testing.TB).
var suiteT *testing.T

func TestConformance(t *testing.T) {
	suiteT = t
	if cfg.Endpoint == "" {
		t.Skip("conformance: no server to test. Pass --endpoint=http://HOST:PORT/mcp " +
			"(go test ./conformance -args --endpoint=...) or set CONFORMANCE_ENDPOINT; see conformance/README.md. " +
			"`make test` runs the suite through conformance/run-local.sh.")
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("conformance: %v", err)
	}
	if conErr != nil {
		t.Fatalf("conformance: loading contracts: %v", conErr)
	}
	if tarErr != nil {
		t.Fatalf("conformance: loading the tariff for the fare oracle: %v", tarErr)
	}
	var err error
	if known, err = LoadKnownFailures(cfg.KnownFailures); err != nil {
		t.Fatalf("conformance: %v", err)
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "Trident Taxis MCP conformance")
}

var _ = BeforeSuite(func() {
	propertySeed = cfg.Seed
	if propertySeed == 0 {
		propertySeed = GinkgoRandomSeed()
	}
	By(fmt.Sprintf("endpoint %s, property seed %d, strict messages %v", cfg.Endpoint, propertySeed, cfg.StrictMessages))
	oracle = &Oracle{Tariff: tariff, Places: KnownPlaces, Clock: cfg.FareClockTime}

	// Probe: an anonymous call tells public mode from OAuth mode.
	ex, err := NewClient(cfg.Endpoint, "", cfg.Timeout).CallTool(suiteCtx, 1, "get_service_info", map[string]any{}, nil)
	Expect(err).NotTo(HaveOccurred(), "the endpoint does not answer")
	probed := ModePublic
	if ex.Status == http.StatusUnauthorized {
		probed = ModeOAuth
	}
	switch {
	case cfg.Mode == ModePublic && probed == ModeOAuth:
		Fail("--mode=public, but the server refused an anonymous call with 401:\n" + ex.String())
	case cfg.Mode == ModeOAuth && probed == ModePublic:
		Fail("--mode=oauth, but the server answered an anonymous call without 401 (it must refuse every unauthenticated call in OAuth mode):\n" + ex.String())
	}
	serverMode = probed
	if serverMode == ModeOAuth {
		if !cfg.HasOAuthCredentials() {
			Fail("the server is in OAuth mode (401 to an anonymous call); pass --token=ACCESS_TOKEN or --issuer=URL (see README)")
		}
		token = cfg.Token
		if token == "" {
			token, err = ObtainToken(suiteCtx, cfg)
			Expect(err).NotTo(HaveOccurred(), "obtaining a token from %s", cfg.Issuer)
		}
	}
})

// Known failures are skipped with their reason, never silently.
var _ = BeforeEach(func() {
	if k, ok := Lookup(known, CurrentSpecReport().FullText()); ok {
		Skip("known failure: " + k.Reason)
	}
})

// client returns a client that is authorised in OAuth mode.
func client() *Client { return NewClient(cfg.Endpoint, token, cfg.Timeout) }

// anonymous returns a client that sends no Authorization header.
func anonymous() *Client { return NewClient(cfg.Endpoint, "", cfg.Timeout) }

// sample returns the contract sample called name.
func sample(name string) (s sampleT) {
	for _, x := range con.Samples {
		if x.Name == name {
			return x
		}
	}
	panic("conformance: no sample " + name)
}

// sampleArgs returns a copy of the arguments of a sample's request.
func sampleArgs(name string) map[string]any {
	var req struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(sample(name).Request, &req); err != nil {
		panic(err)
	}
	return req.Params.Arguments
}

// expectResponse returns the single JSON-RPC response of ex whose id is id,
// failing with the whole exchange when there is none.
func expectResponse(ex *Exchange, id any) Message {
	GinkgoHelper()
	m, err := ex.Only()
	Expect(err).NotTo(HaveOccurred(), ex.String())
	want, _ := json.Marshal(id)
	Expect(SameJSON(m.ID, want)).To(BeTrue(), "response id %s does not echo the request id %s\n%s", m.ID, want, ex.String())
	Expect(m.JSONRPC).To(Equal("2.0"), ex.String())
	return m
}

// expectToolSuccess checks a tools/call reply that must succeed: HTTP 200, a
// result without isError, structuredContent valid against the tool's output
// schema, and text content consistent with it. It returns the result.
func expectToolSuccess(tool string, ex *Exchange, id any) ToolResult {
	GinkgoHelper()
	Expect(ex.Status).To(Equal(http.StatusOK), ex.String())
	m := expectResponse(ex, id)
	Expect(m.Error).To(BeNil(), "want a result, got a JSON-RPC error\n%s", ex.String())
	r, err := DecodeResult(m.Result)
	Expect(err).NotTo(HaveOccurred(), ex.String())
	Expect(r.IsError).To(BeFalse(), "want a successful result, got isError: %s\n%s", r.Text(), ex.String())
	checkStructured(tool, r, ex)
	return r
}

// checkStructured validates a successful result against the contracts.
func checkStructured(tool string, r ToolResult, ex *Exchange) {
	GinkgoHelper()
	problems := structuredProblems(tool, argsOf(ex), r)
	Expect(problems).To(BeEmpty(), "the successful %s result breaks the contracts:\n  %s\n%s", tool, strings.Join(problems, "\n  "), ex.String())
}

// structuredProblems lists how a successful result breaks the contracts:
// structuredContent missing or invalid against the output schema, text
// content that disagrees with it, or a quote the tariff does not give for
// the call's arguments (the fare oracle).
func structuredProblems(tool string, args map[string]any, r ToolResult) []string {
	tc, ok := con.Tools[tool]
	if !ok {
		return []string{"no contract for tool " + tool}
	}
	if len(r.StructuredContent) == 0 || string(r.StructuredContent) == "null" {
		return []string{"a successful result must carry structuredContent"}
	}
	var problems []string
	if err := Validate(tc.OutputSchema, r.StructuredContent); err != nil {
		problems = append(problems, fmt.Sprintf("structuredContent does not validate against %s: %v", tc.Tool.OutputSchema, err))
	}
	problems = append(problems, CheckTextConsistency(tool, r, cfg.BookingBaseURL)...)
	return append(problems, oracleVerdict(tool, args, r).Problems...)
}

// oracleVerdict judges a successful result's quote by the fare oracle. A
// tool that quotes nothing, or a quote the oracle refuses to judge (another
// tariff version), yields no problems: the fare specs report the refusal.
func oracleVerdict(tool string, args map[string]any, r ToolResult) Verdict {
	a, ok, err := AnswerOf(tool, r.StructuredContent)
	if err != nil || !ok {
		return Verdict{Skip: "no quote"} // the output schema check reports a malformed one
	}
	return oracle.Judge(Call{Tool: tool, Args: args}, a)
}

// argsOf returns params.arguments of the tools/call an exchange sent.
func argsOf(ex *Exchange) map[string]any {
	var req struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	_ = json.Unmarshal(ex.RequestBody, &req)
	return req.Params.Arguments
}

// expectToolError checks a tools/call reply that must be a tool-level error
// carrying the catalogue signal of code; exact, when not empty, is the text
// a strict server sends.
func expectToolError(code string, ex *Exchange, id any, exact string) ToolResult {
	GinkgoHelper()
	e, ok := con.ErrorEntry(code)
	Expect(ok).To(BeTrue(), "no catalogue row %s", code)
	Expect(ex.Status).To(Equal(http.StatusOK), ex.String())
	m := expectResponse(ex, id)
	Expect(m.Error).To(BeNil(), "%s is a tool-level error (result.isError), not a JSON-RPC error\n%s", code, ex.String())
	r, err := DecodeResult(m.Result)
	Expect(err).NotTo(HaveOccurred(), ex.String())
	Expect(r.IsError).To(BeTrue(), "want result.isError: true (%s)\n%s", code, ex.String())
	Expect(r.Text()).To(ContainSubstring(e.Signal), "the text of a %s error must contain the catalogue signal %q\n%s", code, e.Signal, ex.String())
	// Clients tell tool errors apart by signal alone, so a text that carries
	// another row's signal too (say, GEOCODE_FAILED's beside
	// ROUTING_UNAVAILABLE's) would have them retry the wrong thing.
	for _, other := range con.Errors {
		if other.Surface == "tool" && other.Name != code && other.Signal != "" {
			Expect(r.Text()).NotTo(ContainSubstring(other.Signal), "a %s error must not carry the signal of %s (%q)\n%s", code, other.Name, other.Signal, ex.String())
		}
	}
	if cfg.StrictMessages && exact != "" {
		Expect(r.Text()).To(Equal(exact), "exact %s wording (relax with --strict-messages=false)\n%s", code, ex.String())
	}
	return r
}

// expectRPCError checks a reply that must be the JSON-RPC error code with
// HTTP status; id is the id the error must carry (nil for null), and alsoOK
// lists other ids that are acceptable.
func expectRPCError(ex *Exchange, status, code int, id any, alsoOK ...any) *RPCError {
	GinkgoHelper()
	Expect(ex.Status).To(Equal(status), "HTTP status\n%s", ex.String())
	m, err := ex.Only()
	Expect(err).NotTo(HaveOccurred(), "the body must be a JSON-RPC error object\n%s", ex.String())
	Expect(m.JSONRPC).To(Equal("2.0"), ex.String())
	Expect(m.Result).To(BeNil(), "an error response carries no result\n%s", ex.String())
	Expect(m.Error).NotTo(BeNil(), "want JSON-RPC error %d\n%s", code, ex.String())
	Expect(m.Error.Code).To(Equal(code), "JSON-RPC error code\n%s", ex.String())
	ok := false
	for _, want := range append([]any{id}, alsoOK...) {
		b, _ := json.Marshal(want)
		ok = ok || SameJSON(m.ID, b)
	}
	Expect(ok).To(BeTrue(), "error id %q, want %v\n%s", m.ID, append([]any{id}, alsoOK...), ex.String())
	return m.Error
}

func timeNow() time.Time { return time.Now() }

// tamper changes one claim of a JWT's payload and keeps its signature, which
// no longer matches.
func tamper(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return jwt + "x"
	}
	claims, err := UnverifiedClaims(jwt)
	if err != nil {
		return jwt + "x"
	}
	claims["sub"] = "00000000-0000-4000-8000-00000000beef"
	b, _ := json.Marshal(claims)
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

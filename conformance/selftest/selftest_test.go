package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/tridenttaxis/trident-mcp/internal/brokenserver"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// target is a server the suite can be pointed at.
type target struct {
	base    string // scheme://host
	routing string // endpoint with the router down, or ""
	// OAuth mode only:
	issuer  string // the dev issuer's URL
	token   string // a valid token from the issuer's flow
	expired string // an expired token signed by the issuer
}

func TestSuiteCatchesEveryBrokenVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the suite and the server; skipped in -short mode")
	}
	dir := t.TempDir()
	suite := testserver.Go(t, filepath.Join(dir, "conformance.test"), "test", "-c", "./conformance")
	bin := testserver.Go(t, filepath.Join(dir, "trident-mcp"), "build", "./server/cmd/trident-mcp")

	public := startPublic(t, bin)
	oauth := startOAuth(t, bin)
	t.Logf("public server %s; OAuth server %s with dev issuer %s", public.base, oauth.base, oauth.issuer)

	t.Run("passes on the server itself", func(t *testing.T) {
		t.Parallel()
		res := runSuite(t, suite, dir, "direct", public.base, public, "--mode=public")
		if res.exit != 0 {
			t.Fatalf("the suite fails on the server; failing specs:\n%s\n%s", strings.Join(res.failed, "\n"), res.output)
		}
	})
	t.Run("passes through the identity proxy", func(t *testing.T) {
		t.Parallel()
		px := httptest.NewServer(brokenserver.Proxy(public.base, brokenserver.Variant{}, brokenserver.Options{}))
		t.Cleanup(px.Close)
		res := runSuite(t, suite, dir, "identity", px.URL, public, "--mode=public")
		if res.exit != 0 {
			t.Fatalf("the suite fails through the identity proxy; failing specs:\n%s\n%s", strings.Join(res.failed, "\n"), res.output)
		}
	})
	t.Run("passes on the server in OAuth mode", func(t *testing.T) {
		t.Parallel()
		// No --token: the suite runs the flow itself (metadata, DCR, PKCE,
		// auto-approved consent, exchange) against the dev issuer.
		up := oauth
		up.token = ""
		res := runSuite(t, suite, dir, "oauth-direct", oauth.base, up, "--mode=oauth")
		if res.exit != 0 {
			t.Fatalf("the suite fails on the OAuth server; failing specs:\n%s\n%s", strings.Join(res.failed, "\n"), res.output)
		}
		if !res.oauthRan {
			t.Fatal("the OAuth specs did not run against the OAuth server")
		}
	})
	t.Run("passes through the identity proxy in OAuth mode", func(t *testing.T) {
		t.Parallel()
		px := httptest.NewServer(brokenserver.Proxy(oauth.base, brokenserver.Variant{}, brokenserver.Options{ValidToken: oauth.token}))
		t.Cleanup(px.Close)
		res := runSuite(t, suite, dir, "oauth-identity", px.URL, oauth, "--mode=oauth")
		if res.exit != 0 {
			t.Fatalf("the suite fails through the identity proxy in OAuth mode; failing specs:\n%s\n%s", strings.Join(res.failed, "\n"), res.output)
		}
		if !res.oauthRan {
			t.Fatal("the OAuth specs did not run through the identity proxy")
		}
	})

	t.Run("skips the fare specs against another tariff version", func(t *testing.T) {
		t.Parallel()
		// A server that quotes with another tariff: the oracle must refuse
		// to judge it, with a clear skip, not fail it.
		version := regexp.MustCompile(`"tariffVersion":"[^"]*"`)
		other := brokenserver.Variant{Response: func(ex *brokenserver.Exchange, _ brokenserver.Options) {
			ex.Body = version.ReplaceAll(ex.Body, []byte(`"tariffVersion":"another-tariff-2099"`))
		}}
		px := httptest.NewServer(brokenserver.Proxy(public.base, other, brokenserver.Options{}))
		t.Cleanup(px.Close)
		res := runSuite(t, suite, dir, "other-tariff", px.URL, public, "--mode=public", "--ginkgo.label-filter=fare")
		if res.exit != 0 || res.passed != 0 || len(res.skipped) == 0 {
			t.Fatalf("want every fare spec skipped: exit %d, %d passed, %d skipped, failing:\n%s\n%s",
				res.exit, res.passed, len(res.skipped), strings.Join(res.failed, "\n"), res.output)
		}
		for _, sk := range res.skipped {
			if !strings.Contains(sk, `"another-tariff-2099"`) || !strings.Contains(sk, "does not judge another tariff") {
				t.Errorf("a fare spec skipped without saying why: %s", sk)
			}
		}
	})

	for _, v := range brokenserver.Variants() {
		t.Run("catches "+v.Name, func(t *testing.T) {
			t.Parallel()
			up, mode := public, "--mode=public"
			if v.OAuth {
				up, mode = oauth, "--mode=oauth"
			}
			px := httptest.NewServer(brokenserver.Proxy(up.base, v, brokenserver.Options{ValidToken: up.token}))
			t.Cleanup(px.Close)
			res := runSuite(t, suite, dir, v.Name, px.URL, up, mode)
			if res.exit == 0 {
				t.Fatalf("the suite PASSED a server that %s\n%s", v.Defect, res.output)
			}
			if len(res.failed) == 0 {
				t.Fatalf("the suite exited %d without a failing spec (a setup failure, not a verdict)\n%s", res.exit, res.output)
			}
			for _, f := range res.failed {
				for _, want := range v.MustFail {
					if strings.Contains(f, want) {
						t.Logf("caught (%s): %d failing specs, e.g. %q", v.Defect, len(res.failed), f)
						return
					}
				}
			}
			t.Fatalf("the suite failed, but not in a spec about the defect (%s): want a failing spec naming one of %q; failing:\n%s",
				v.Defect, v.MustFail, strings.Join(res.failed, "\n"))
		})
	}
}

type result struct {
	exit     int
	failed   []string
	passed   int
	skipped  []string // full text — skip reason
	oauthRan bool     // a spec under "in OAuth mode" passed
	output   string
}

// runSuite runs the compiled suite against base/mcp and reads its JSON report.
func runSuite(t *testing.T, suite, dir, name, base string, up target, extra ...string) result {
	t.Helper()
	report := filepath.Join(dir, "report-"+strings.ReplaceAll(name, "/", "_")+".json")
	args := []string{
		"-test.run=^TestConformance$", "-ginkgo.no-color", "-ginkgo.json-report=" + report,
		"--endpoint=" + base + "/mcp",
		// The server names itself by its own address, not the proxy's.
		"--public-base-url=" + up.base, "--resource=" + up.base + "/mcp",
		"--seed=20250618", "--property-cases=15", "--timeout=10s", "--known-failures=none",
		// What the server refuses with its defaults, as run-local.sh passes.
		"--forbidden-origin=https://attacker.example", "--max-body-bytes=1048576",
		// The servers' frozen fare clock, so that the oracle judges the
		// band of undated calls too.
		"--fare-clock=" + testserver.DayClock,
	}
	if up.issuer != "" {
		args = append(args, "--issuer="+up.issuer, "--auto-approve="+devissuer.DefaultUser.Email, "--expired-token="+up.expired)
	}
	if up.token != "" {
		args = append(args, "--token="+up.token)
	}
	if up.routing != "" && (name == "direct" || name == "oauth-direct") {
		args = append(args, "--routing-down-endpoint="+up.routing)
	}
	args = append(args, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CONFORMANCE_ENDPOINT=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res := result{output: tail(out.String(), 4000)}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.exit = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("running the suite: %v", err)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the suite wrote no JSON report (%v)\n%s", err, res.output)
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	oauthRan := false
	for _, r := range reports {
		if !r.SuiteSucceeded && len(r.SpecialSuiteFailureReasons) > 0 {
			res.failed = append(res.failed, "suite: "+strings.Join(r.SpecialSuiteFailureReasons, "; "))
		}
		for _, s := range r.SpecReports {
			if s.State.Is(types.SpecStateFailureStates) {
				res.failed = append(res.failed, s.FullText()+" — "+firstLine(s.Failure.Message))
			}
			if s.State == types.SpecStatePassed && s.LeafNodeType == types.NodeTypeIt {
				res.passed++
				oauthRan = oauthRan || strings.Contains(s.FullText(), "OAuth mode")
			}
			if s.State == types.SpecStateSkipped && s.Failure.Message != "" {
				res.skipped = append(res.skipped, s.FullText()+" — "+firstLine(s.Failure.Message))
			}
		}
	}
	res.oauthRan = oauthRan
	return res
}

// startPublic starts the real server in public mode, and a second instance
// whose router is unreachable, for ROUTING_UNAVAILABLE.
func startPublic(t *testing.T, bin string) target {
	t.Helper()
	// Several suites run at once from one address, over Relay's default
	// per-caller limit: it is off here (its own tests are in server/relay).
	// Options live 10 s, short enough for the expiry spec to wait one out
	// (rides-accepts-expired-options) and long enough for suites running
	// side by side to use theirs before it expires.
	base := testserver.Start(t, bin, testserver.FreeAddr(t), "RELAY_RATE_LIMIT=0", "RELAY_OPTION_TTL=10s")
	routing := testserver.Start(t, bin, testserver.FreeAddr(t), "ROUTER=osrm", "OSRM_URL=http://"+testserver.FreeAddr(t))
	return target{base: base, routing: routing + "/mcp"}
}

// startOAuth starts the real server with MCP_REQUIRE_OAUTH=true against an
// in-process dev issuer (the same code as tools/dev-issuer), takes a valid
// token through the issuer's OAuth flow, and has the issuer sign an expired
// one. It checks that the expired token differs from a good one only in its
// exp: the same claims with a future exp are accepted, so a server that
// refuses it refuses it for the right reason.
func startOAuth(t *testing.T, bin string) target {
	t.Helper()
	addr := testserver.FreeAddr(t)
	resource := "http://" + addr + "/mcp"
	iss := devissuertest.New(t, devissuer.Options{Resources: []string{resource}})
	env := []string{"MCP_REQUIRE_OAUTH=true", "OAUTH_ISSUER=" + iss.IssuerURL(), "RELAY_RATE_LIMIT=0"}
	base := testserver.Start(t, bin, addr, env...)
	// A replica with its router down, sharing the resource URL so that the
	// same token is good there.
	routing := testserver.Start(t, bin, testserver.FreeAddr(t), slices.Concat(env, []string{"MCP_RESOURCE_URL=" + resource, "ROUTER=osrm", "OSRM_URL=http://" + testserver.FreeAddr(t)})...)

	now := time.Now()
	mint := func(exp time.Time) string {
		tok, err := iss.MintAccessToken(devissuer.TokenClaims{
			Resource: resource, ClientID: "selftest", SessionID: "00000000-0000-4000-8000-00000000c0de",
			IssuedAt: exp.Add(-time.Hour), ExpiresAt: exp,
		})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if st := callStatus(t, resource, mint(now.Add(time.Hour))); st != http.StatusOK {
		t.Fatalf("the OAuth server refuses a live token minted by the dev issuer (HTTP %d): the expired-token case would prove nothing", st)
	}
	expired := mint(now.Add(-time.Hour))
	if st := callStatus(t, resource, expired); st != http.StatusUnauthorized {
		t.Fatalf("the OAuth server answers an expired token with HTTP %d, want 401", st)
	}
	tok := iss.Token(t, iss.Config(t), resource, "")
	return target{base: base, routing: routing + "/mcp", issuer: iss.IssuerURL(), token: tok.AccessToken, expired: expired}
}

// callStatus calls get_service_info at endpoint with token and returns the
// HTTP status.
func callStatus(t *testing.T, endpoint, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return fmt.Sprint(s)
}

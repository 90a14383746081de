package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// Helensburgh to Glasgow Airport, inside Trident's tariff area.
var (
	helensburgh   = map[string]any{"latitude": 56.00416, "longitude": -4.73253}
	glasgowAirprt = map[string]any{"latitude": 55.8719, "longitude": -4.43306}
)

// TestRelayOAuth runs the real binary in OAuth mode against the dev
// issuer: Relay's tools want their scopes (403 insufficient_scope naming
// the one missing, with the RFC 6750 challenge), its metadata lists them,
// and a user token with rides:read searches Helensburgh to Glasgow Airport
// and gets Trident's options, which Relay fetched with a client-credentials
// token of its own (the user's token is bound to /mcp/rides and would be
// refused by /mcp).
func TestRelayOAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := testserver.Build(t)
	iss := devissuertest.New(t, devissuer.Options{ServiceClients: []devissuer.ServiceClient{{ID: "relay-e2e", Secret: "relay-e2e-secret"}}})
	addr := testserver.FreeAddr(t)
	base := testserver.Start(t, bin, addr, "MCP_REQUIRE_OAUTH=true", "OAUTH_ISSUER="+iss.IssuerURL(),
		"RELAY_TRIDENT_CLIENT_ID=relay-e2e", "RELAY_TRIDENT_CLIENT_SECRET=relay-e2e-secret")
	rides := base + "/mcp/rides"
	token := func(scope string) string {
		tok, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: rides, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	stream := false // ask for progress: the SDK's path rather than the fast path
	call := func(tok, tool string, args map[string]any) (*http.Response, map[string]any) {
		t.Helper()
		params := map[string]any{"name": tool, "arguments": args}
		if stream {
			params["_meta"] = map[string]any{"progressToken": "p1"}
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		req, _ := http.NewRequest(http.MethodPost, rides, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out map[string]any
		json.Unmarshal(b, &out)
		return resp, out
	}
	meta := base + "/.well-known/oauth-protected-resource/mcp/rides"
	search := map[string]any{"pickup": helensburgh, "dropoff": glasgowAirprt, "party_size": 2}

	for _, c := range []struct {
		name, scope, tool, need string
		stream                  bool
	}{
		{"search without rides:read", "rides:handoff journeys:write", "search_rides", "rides:read", false},
		{"handoff without rides:handoff", "rides:read", "get_ride_booking_handoff", "rides:handoff", false},
		{"continue_journey without journeys:write", "rides:read rides:handoff", "continue_journey", "journeys:write", false},
		{"no scope at all", "", "compare_rides", "rides:read", false},
		{"search without rides:read, streaming", "", "search_rides", "rides:read", true},
	} {
		stream = c.stream
		resp, out := call(token(c.scope), c.tool, map[string]any{})
		want := `Bearer error="insufficient_scope", scope="` + c.need + `", resource_metadata="` + meta + `"`
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q, want 403 %q", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
		}
		if e, _ := out["error"].(map[string]any); e == nil || e["code"] != float64(-32000) {
			t.Errorf("%s: body %v, want JSON-RPC error -32000", c.name, out)
		}
	}

	stream = false
	resp, out := call(token("rides:read"), "search_rides", search)
	res, _ := out["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if resp.StatusCode != http.StatusOK || sc["status"] != "ok" {
		t.Fatalf("search with rides:read: %d %v, want status ok", resp.StatusCode, out)
	}
	opts, _ := sc["options"].([]any)
	trident := 0
	for _, o := range opts {
		if o.(map[string]any)["provider"] == "trident" {
			trident++
		}
	}
	if trident == 0 {
		t.Errorf("search with rides:read: no Trident option in %v", sc)
	}

	// The metadata lists Relay's scopes; Trident's lists none.
	var doc struct {
		Resource        string   `json:"resource"`
		ScopesSupported []string `json:"scopes_supported"`
	}
	getJSON(t, meta, &doc)
	if doc.Resource != rides || !slices.Equal(doc.ScopesSupported, []string{"journeys:write", "rides:handoff", "rides:read"}) {
		t.Errorf("Relay metadata = %+v, want resource %s and the three scopes", doc, rides)
	}
	doc.ScopesSupported = nil
	getJSON(t, base+"/.well-known/oauth-protected-resource", &doc)
	if len(doc.ScopesSupported) != 0 {
		t.Errorf("Trident metadata lists scopes %v", doc.ScopesSupported)
	}
}

// TestRelayLimitSharedAcrossReplicas starts two server processes on one
// Redis (a key prefix of this run's own): a caller that spent its limit on
// the first replica is refused rate_limited on the second.
func TestRelayLimitSharedAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	redisAddr := os.Getenv("RELAY_TEST_REDIS_ADDR")
	if redisAddr == "" {
		redisAddr = "127.0.0.1:6379"
	}
	if conn, err := net.DialTimeout("tcp", redisAddr, time.Second); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s does not answer (CI is set, so this fails rather than skips): %v", redisAddr, err)
		}
		t.Skipf("Redis at %s does not answer: %v", redisAddr, err)
	} else {
		conn.Close()
	}
	bin := testserver.Build(t)
	env := []string{"REDIS_URL=redis://" + redisAddr + "/0", "REDIS_KEY_PREFIX=e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":",
		"RELAY_RATE_LIMIT=3", "RELAY_SIGNING_KEYS=k1:" + strings.Repeat("A", 43)}
	first := testserver.Start(t, bin, testserver.FreeAddr(t), env...)
	second := testserver.Start(t, bin, testserver.FreeAddr(t), env...)
	status := func(base string) (string, any) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_rides","arguments":{"destination_city":"Glasgow"}}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp/rides", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		sc := out.Result.StructuredContent
		s, _ := sc["status"].(string)
		return s, sc["retry_after_seconds"]
	}
	for i := range 3 {
		if s, _ := status(first); s == "rate_limited" {
			t.Fatalf("call %d on the first replica refused: the limit is 3", i+1)
		}
	}
	s, retry := status(second)
	if s != "rate_limited" || retry == nil {
		t.Fatalf("fourth call, on the second replica: status %q retry_after_seconds %v, want rate_limited with a wait", s, retry)
	}
}

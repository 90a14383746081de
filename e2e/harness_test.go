package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// fareTime pins the server's fare clock: the seed's samples are priced on
// the day tariff, and the tariff band is picked by the time of the call.
var fareTime = time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)

// readyWait bounds every poll for a condition that should hold within a
// second or two; it is a deadline, never a delay.
const readyWait = 15 * time.Second

// clock is real time plus an offset the test moves forward, shared by the
// issuer (iat/exp it signs), the verifier (exp it checks) and the Go client
// (when it refreshes), so "an hour passes" is one call and no sleep.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// logBuffer collects the server's JSON log records so a test can check why
// the verifier refused a request (the 401 itself never says).
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Mark is the current end of the log, for [logBuffer.RefusalsSince].
func (l *logBuffer) Mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}

// RefusalsSince returns the reason of every "auth: request refused" record
// written after mark, in order.
func (l *logBuffer) RefusalsSince(mark int) []string {
	l.mu.Lock()
	data := append([]byte(nil), l.buf.Bytes()[mark:]...)
	l.mu.Unlock()
	var reasons []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rec struct {
			Msg    string `json:"msg"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "auth: request refused" {
			reasons = append(reasons, rec.Reason)
		}
	}
	return reasons
}

// listen opens a loopback listener on an ephemeral port.
func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	return ln
}

// startIssuerOn serves a dev issuer on ln until the test ends. It is
// devissuertest.New with the listener chosen by the caller, so that a test
// can point the server at an address before the issuer exists there.
// DevAutoApprove is on (it only acts on an explicit header or parameter;
// the HTML pages work as usual).
func startIssuerOn(t testing.TB, ln net.Listener, opts devissuer.Options) *devissuertest.Server {
	t.Helper()
	opts.BaseURL = "http://" + ln.Addr().String()
	opts.DevAutoApprove = true
	iss, err := devissuer.New(opts)
	if err != nil {
		ln.Close()
		t.Fatalf("devissuer: %v", err)
	}
	hs := httptest.NewUnstartedServer(iss.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		if err := iss.Close(); err != nil {
			t.Errorf("devissuer close: %v", err)
		}
	})
	return &devissuertest.Server{Issuer: iss, HTTP: hs}
}

// mcpServer is a running trident MCP server.
type mcpServer struct {
	*server.Server
	Base        string // http://127.0.0.1:<port>, PUBLIC_BASE_URL
	Endpoint    string // Base + "/mcp", MCP_RESOURCE_URL
	MetadataURL string // the resource_metadata of every 401
	Logs        *logBuffer
}

// startServer serves the host built from opts with the Trident endpoint
// built from ep on ln until the test ends, with PublicBaseURL set to ln's
// address, the fare clock pinned to fareTime unless ep.Now is set, and logs
// captured.
func startServer(t testing.TB, ln net.Listener, opts server.Options, ep trident.Options) *mcpServer {
	t.Helper()
	s := &mcpServer{Base: "http://" + ln.Addr().String(), Logs: &logBuffer{}}
	s.Endpoint = s.Base + "/mcp"
	s.MetadataURL = s.Base + "/.well-known/oauth-protected-resource"
	opts.PublicBaseURL = s.Base
	if ep.Now == nil {
		ep.Now = func() time.Time { return fareTime }
	}
	opts.Logger = slog.New(slog.NewJSONHandler(s.Logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ep.Logger = opts.Logger
	tridentEP, err := trident.New(&ep)
	if err != nil {
		ln.Close()
		t.Fatalf("trident.New: %v", err)
	}
	srv, err := server.New(&opts, tridentEP)
	if err != nil {
		ln.Close()
		t.Fatalf("server.New: %v", err)
	}
	s.Server = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("server.Serve: %v", err)
		}
		srv.Close()
	})
	return s
}

// pair is a dev issuer and an MCP server in OAuth mode that trusts it.
type pair struct {
	Issuer *devissuertest.Server
	Server *mcpServer
	Clock  *clock
}

// pairConfig adjusts a pair; the zero value is the documented setup.
type pairConfig struct {
	Issuer  devissuer.Options // BaseURL, Resources and Now are filled in
	Server  server.Options    // PublicBaseURL, Auth.Issuer and Auth.Now are filled in
	Trident trident.Options   // the endpoint at /mcp
}

// newPair starts an issuer that serves the server's resource, then the
// server in OAuth mode, and waits until the server has the issuer's keys.
func newPair(t testing.TB, cfg pairConfig) *pair {
	t.Helper()
	p := &pair{Clock: &clock{}}
	srvLn := listen(t)
	resource := "http://" + srvLn.Addr().String() + "/mcp"
	if cfg.Issuer.Resources == nil {
		cfg.Issuer.Resources = []string{resource}
	}
	if cfg.Issuer.Now == nil {
		cfg.Issuer.Now = p.Clock.Now
	}
	p.Issuer = startIssuerOn(t, listen(t), cfg.Issuer)
	a := auth.Config{}
	if cfg.Server.Auth != nil {
		a = *cfg.Server.Auth
	}
	a.Issuer = p.Issuer.IssuerURL()
	if a.Now == nil {
		a.Now = p.Clock.Now
	}
	cfg.Server.Auth = &a
	p.Server = startServer(t, srvLn, cfg.Server, cfg.Trident)
	waitReady(t, p.Server.Base)
	return p
}

// waitReady polls /readyz until it answers 200, failing after readyWait.
func waitReady(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(readyWait)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		status, body := readyz(t, base)
		if status == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d after %v: %s", status, readyWait, body)
		}
		<-tick.C
	}
}

func readyz(t testing.TB, base string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatalf("GET /readyz: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// loadSamples reads contracts/trident/samples once for the whole package.
var loadSamples = sync.OnceValues(tridentcontracts.Set.Samples)

// sample returns the seed's sample pair name (e.g. "estimate_fare.success").
func sample(t testing.TB, name string) contracts.Sample {
	t.Helper()
	all, err := loadSamples()
	if err != nil {
		t.Fatalf("samples: %v", err)
	}
	for _, s := range all {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no sample %q", name)
	return contracts.Sample{}
}

// rpcCall is one HTTP exchange with /mcp.
type rpcCall struct {
	Status int
	Header http.Header
	Body   []byte
}

// post sends a JSON-RPC body to endpoint with the MCP headers plus those
// edit adds (nil: none), and reads the answer.
func post(t testing.TB, endpoint string, body []byte, edit func(*http.Request)) rpcCall {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: reading body: %v", endpoint, err)
	}
	return rpcCall{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// bearer sets "Authorization: Bearer <token>".
func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

// estimateFare calls the seed's estimate_fare sample request with edit's
// credentials.
func estimateFare(t testing.TB, endpoint string, edit func(*http.Request)) rpcCall {
	t.Helper()
	return post(t, endpoint, sample(t, "estimate_fare.success").Request, edit)
}

// wantSampleResult fails unless c is the seed's estimate_fare answer,
// field for field.
func wantSampleResult(t testing.TB, c rpcCall) {
	t.Helper()
	if c.Status != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", c.Status, c.Body)
	}
	var got, want any
	if err := json.Unmarshal(c.Body, &got); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, c.Body)
	}
	if err := json.Unmarshal(sample(t, "estimate_fare.success").Response, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("estimate_fare reply differs from the seed sample (-want +got):\n%s", d)
	}
}

// wantUnauthorized fails unless c is exactly the contract's 401
// (contracts/trident/samples/errors/unauthorized.json): status, WWW-Authenticate,
// Content-Type and body.
func wantUnauthorized(t testing.TB, c rpcCall, base string) {
	t.Helper()
	s := sample(t, "errors/unauthorized")
	if c.Status != s.HTTP.Status {
		t.Errorf("status %d, want %d; body %s", c.Status, s.HTTP.Status, c.Body)
	}
	for name, want := range s.HTTP.Headers {
		want = strings.ReplaceAll(want, "{{PUBLIC_BASE_URL}}", base)
		if got := c.Header.Values(name); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q, want exactly [%q]", name, got, want)
		}
	}
	var got, want any
	if err := json.Unmarshal(c.Body, &got); err != nil {
		t.Errorf("401 body is not JSON: %v: %s", err, c.Body)
	}
	if err := json.Unmarshal(s.Response, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("401 body (-want +got):\n%s", d)
	}
}

// resourceMetadataOf parses the challenge with the go-sdk's parser, as an
// MCP client does, and returns its resource_metadata.
func resourceMetadataOf(t testing.TB, h http.Header) string {
	t.Helper()
	cs, err := oauthex.ParseWWWAuthenticate(h.Values("WWW-Authenticate"))
	if err != nil {
		t.Fatalf("WWW-Authenticate %q: %v", h.Values("WWW-Authenticate"), err)
	}
	for _, c := range cs {
		if c.Scheme == "bearer" {
			if u := c.Params["resource_metadata"]; u != "" {
				return u
			}
		}
	}
	t.Fatalf("WWW-Authenticate %q has no Bearer resource_metadata", h.Values("WWW-Authenticate"))
	return ""
}

// getJSON GETs u and decodes a 200 JSON answer into v.
func getJSON(t testing.TB, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", u, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", u, err, b)
	}
}

// tokenResponse is the token endpoint's answer, success or error.
type tokenResponse struct {
	Status           int    `json:"-"`
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int    `json:"expires_in"`
	RefreshToken     string `json:"refresh_token"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// postForm POSTs form to the token endpoint as the seed's curl does.
func postForm(t testing.TB, u string, form url.Values) tokenResponse {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var tr tokenResponse
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("POST %s: status %d, not JSON: %s", u, resp.StatusCode, b)
	}
	tr.Status = resp.StatusCode
	return tr
}

// jwtParts decodes a compact JWT's header and claims without verifying it
// (the server under test does the verifying).
func jwtParts(t testing.TB, token string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWS: %d parts", len(parts))
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatalf("JWT part %d: %v", i, err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatalf("JWT part %d: %v", i, err)
		}
	}
	return header, claims
}

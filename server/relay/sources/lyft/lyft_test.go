package lyft_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

// No test may leave a goroutine behind, the slow ones above all.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	clientID     = "lyft-client-id"
	clientSecret = "lyft-client-5ecret"
)

var (
	sfo = upstream.Coordinate{Latitude: 37.7763, Longitude: -122.3918}
	pre = upstream.Coordinate{Latitude: 37.7972, Longitude: -122.4533}
)

// clock is a test clock that only moves when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func setup(t *testing.T, id, secret string) (*fakeproviders.Lyft, *lyft.Client, *clock) {
	t.Helper()
	fake := fakeproviders.NewLyft(t, clientID, clientSecret)
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := lyft.New(lyft.Config{BaseURL: fake.URL, ClientID: id, ClientSecret: secret},
		&lyft.Options{HTTPClient: &http.Client{Transport: tr}, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	return fake, c, clk
}

func p(n int64) *int64 { return &n }

var trip = upstream.Request{Pickup: sfo, Dropoff: pre, PartySize: 3}

func TestEstimateNormalises(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	got, err := c.Estimate(context.Background(), trip)
	if err != nil {
		t.Fatal(err)
	}
	want := []upstream.Estimate{
		{ProductID: "lyft", ProductName: "Lyft", Currency: "USD", AmountMinor: p(1561), AmountMinorMax: p(2355),
			Basis: upstream.BasisEstimateRange, DistanceMeters: p(5295), DurationSeconds: p(913), PriceMultiplier: "1.25",
			ProviderText: upstream.ProviderText{DisplayName: "Lyft"}},
		{ProductID: "lyft_line", ProductName: "Lyft Shared", Currency: "USD", AmountMinor: p(475),
			Basis: upstream.BasisFixed, DistanceMeters: p(5295), DurationSeconds: p(913), PriceMultiplier: "1.00",
			ProviderText: upstream.ProviderText{DisplayName: "Lyft Shared"}},
		// lyft_lux is_valid_estimate: false carries no price and is left out.
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("estimates (-want +got):\n%s", diff)
	}

	// The secret goes only to the token endpoint, as HTTP Basic; the token
	// only to /v1/cost.
	tokens, costs := fake.TokenCalls(), fake.CostCalls()
	if len(tokens) != 1 || len(costs) != 1 {
		t.Fatalf("%d token and %d cost calls; want 1 and 1", len(tokens), len(costs))
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(clientID+":"+clientSecret))
	if tk := tokens[0]; tk.Authorization != basic || tk.Form.Get("grant_type") != "client_credentials" ||
		tk.Form.Get("scope") != "public" || tk.Form.Has("client_secret") || tk.Query.Encode() != "" {
		t.Fatalf("token request: %+v", tk)
	}
	cost := costs[0]
	if cost.Authorization != "Bearer lyft-token-1" ||
		cost.Query.Encode() != "end_lat=37.7972&end_lng=-122.4533&start_lat=37.7763&start_lng=-122.3918" {
		t.Fatalf("cost request: %+v", cost)
	}
	if strings.Contains(cost.Query.Encode()+cost.Authorization, clientSecret) {
		t.Fatal("the client secret was sent to /v1/cost")
	}
}

func TestRideTypeFilter(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	got, err := c.Estimate(context.Background(), upstream.Request{Pickup: sfo, Dropoff: pre, ProductID: "lyft_line"})
	if err != nil || len(got) != 1 || got[0].ProductID != "lyft_line" {
		t.Fatalf("%+v, %v", got, err)
	}
	if rt := fake.CostCalls()[0].Query.Get("ride_type"); rt != "lyft_line" {
		t.Fatalf("ride_type = %q", rt)
	}
}

func TestNotConfiguredMakesNoCall(t *testing.T) {
	for _, creds := range [][2]string{{"", ""}, {clientID, ""}, {"", clientSecret}} {
		fake, c, _ := setup(t, creds[0], creds[1])
		_, err := c.Estimate(context.Background(), trip)
		if c.Configured() || upstream.KindOf(err) != upstream.NotConfigured || len(fake.TokenCalls())+len(fake.CostCalls()) != 0 {
			t.Fatalf("%v: err %v", creds, err)
		}
	}
}

func TestTokenIsCachedUntilShortlyBeforeExpiry(t *testing.T) {
	fake, c, clk := setup(t, clientID, clientSecret)
	fake.SetExpiresIn(3600)
	for range 3 {
		if _, err := c.Estimate(context.Background(), trip); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fake.TokenCalls()); n != 1 {
		t.Fatalf("%d token calls for 3 estimates; want 1", n)
	}
	clk.Advance(3600*time.Second - time.Minute - time.Second) // still inside the token's life
	c.Estimate(context.Background(), trip)
	if n := len(fake.TokenCalls()); n != 1 {
		t.Fatalf("refetched %d times before the refresh window", n-1)
	}
	clk.Advance(2 * time.Second) // now within a minute of expiry
	if _, err := c.Estimate(context.Background(), trip); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.TokenCalls()); n != 2 {
		t.Fatalf("%d token calls; want a refresh inside the last minute", n)
	}
	if auth := fake.CostCalls()[4].Authorization; auth != "Bearer lyft-token-2" {
		t.Fatalf("after refresh the cost call carried %q", auth)
	}
}

func TestConcurrentCallsShareOneTokenFetch(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := c.Estimate(context.Background(), trip)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fake.TokenCalls()); n != 1 {
		t.Fatalf("%d token fetches for 8 concurrent calls; want 1", n)
	}
}

// A caller whose deadline ends a shared token fetch does not fail the
// callers that waited on it with time to spare.
func TestSharedFetchOutlivesImpatientCaller(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	fake.QueueToken(fakeproviders.Slow) // the first token request hangs, the next is answered
	impatient := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.Estimate(ctx, trip)
		impatient <- err
	}()
	for len(fake.TokenCalls()) == 0 { // wait until its fetch is in flight
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Estimate(ctx, trip); err != nil {
		t.Fatalf("patient caller: %v", err)
	}
	if err := <-impatient; upstream.KindOf(err) != upstream.Timeout {
		t.Fatalf("impatient caller: %v; want a timeout", err)
	}
	if n := len(fake.TokenCalls()); n != 2 {
		t.Fatalf("%d token calls; want 2", n)
	}
}

func TestQueuedCostFailureThenRecovery(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	fake.Queue(fakeproviders.ServerError)
	if _, err := c.Estimate(context.Background(), trip); upstream.KindOf(err) != upstream.Unavailable {
		t.Fatalf("first call: %v", err)
	}
	if _, err := c.Estimate(context.Background(), trip); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if n := len(fake.TokenCalls()); n != 1 {
		t.Fatalf("a 5xx must not cost the token: %d token calls", n)
	}
}

func TestOneRefreshOn401(t *testing.T) {
	fake, c, _ := setup(t, clientID, clientSecret)
	if _, err := c.Estimate(context.Background(), trip); err != nil {
		t.Fatal(err)
	}
	fake.RevokeTokens() // Lyft drops the cached token early
	if _, err := c.Estimate(context.Background(), trip); err != nil {
		t.Fatalf("after revocation: %v", err)
	}
	if nt, nc := len(fake.TokenCalls()), len(fake.CostCalls()); nt != 2 || nc != 3 {
		t.Fatalf("%d token and %d cost calls; want 2 and 3 (one retry)", nt, nc)
	}

	// A 401 that persists is reported after exactly one refresh.
	fake.Set(fakeproviders.Unauthorized)
	_, err := c.Estimate(context.Background(), trip)
	if upstream.KindOf(err) != upstream.Unauthorized || upstream.StatusOf(err) != 401 {
		t.Fatalf("err = %v", err)
	}
	if nt, nc := len(fake.TokenCalls()), len(fake.CostCalls()); nt != 3 || nc != 5 {
		t.Fatalf("%d token and %d cost calls; want 3 and 5", nt, nc)
	}
	assertClean(t, err)

	// 403 is not retried: a fresh token would not change the answer.
	fake.Set(fakeproviders.Forbidden)
	_, err = c.Estimate(context.Background(), trip)
	if upstream.KindOf(err) != upstream.Unauthorized || upstream.StatusOf(err) != 403 || len(fake.CostCalls()) != 6 {
		t.Fatalf("403: %v after %d cost calls", err, len(fake.CostCalls()))
	}
}

func TestCostFailures(t *testing.T) {
	tests := []struct {
		name       string
		knob       fakeproviders.Knob
		retryAfter string
		kind       upstream.Kind
		status     int
		wait       time.Duration
	}{
		{"429 seconds", fakeproviders.RateLimited, "12", upstream.RateLimited, 429, 12 * time.Second},
		{"429 date", fakeproviders.RateLimited, "Tue, 01 Dec 2026 09:00:45 GMT", upstream.RateLimited, 429, 45 * time.Second},
		{"429 bare", fakeproviders.RateLimited, "", upstream.RateLimited, 429, 0},
		{"500", fakeproviders.ServerError, "", upstream.Unavailable, 500, 0},
		{"503", fakeproviders.Unavailable, "", upstream.Unavailable, 503, 0},
		{"503 retry", fakeproviders.Unavailable, "Tue, 01 Dec 2026 09:05:00 GMT", upstream.Unavailable, 503, 5 * time.Minute},
		{"malformed", fakeproviders.MalformedJSON, "", upstream.Malformed, 200, 0},
		{"truncated", fakeproviders.TruncatedBody, "", upstream.Malformed, 200, 0},
		{"content type", fakeproviders.WrongContentType, "", upstream.Malformed, 200, 0},
		{"no prices", fakeproviders.EmptyObject, "", upstream.Malformed, 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c, _ := setup(t, clientID, clientSecret)
			fake.Set(tt.knob)
			fake.SetRetryAfter(tt.retryAfter)
			got, err := c.Estimate(context.Background(), trip)
			var le *upstream.Error
			if got != nil || !errors.As(err, &le) || le.Kind != tt.kind || le.Status != tt.status || le.RetryAfter != tt.wait {
				t.Fatalf("Estimate = %v, %#v; want kind %s status %d retry %v", got, err, tt.kind, tt.status, tt.wait)
			}
			if n := len(fake.CostCalls()); n != 1 {
				t.Fatalf("%d cost calls; only a 401 is retried", n)
			}
			assertClean(t, err)
		})
	}
}

func TestTokenFailures(t *testing.T) {
	tests := []struct {
		name       string
		knob       fakeproviders.Knob
		retryAfter string
		secret     string
		kind       upstream.Kind
		status     int
		wait       time.Duration
	}{
		{"wrong secret", fakeproviders.Normal, "", "not-the-secret", upstream.Unauthorized, 401, 0},
		{"401", fakeproviders.Unauthorized, "", clientSecret, upstream.Unauthorized, 401, 0},
		{"429", fakeproviders.RateLimited, "60", clientSecret, upstream.RateLimited, 429, time.Minute},
		{"500", fakeproviders.ServerError, "", clientSecret, upstream.Unavailable, 500, 0},
		{"503", fakeproviders.Unavailable, "", clientSecret, upstream.Unavailable, 503, 0},
		{"malformed", fakeproviders.MalformedJSON, "", clientSecret, upstream.Malformed, 200, 0},
		{"content type", fakeproviders.WrongContentType, "", clientSecret, upstream.Malformed, 200, 0},
		{"no access_token", fakeproviders.EmptyObject, "", clientSecret, upstream.Malformed, 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c, _ := setup(t, clientID, tt.secret)
			fake.SetToken(tt.knob)
			fake.SetRetryAfter(tt.retryAfter)
			_, err := c.Estimate(context.Background(), trip)
			var le *upstream.Error
			if !errors.As(err, &le) || le.Kind != tt.kind || le.Status != tt.status || le.RetryAfter != tt.wait {
				t.Fatalf("Estimate = %#v; want kind %s status %d retry %v", err, tt.kind, tt.status, tt.wait)
			}
			if n := len(fake.CostCalls()); n != 0 {
				t.Fatalf("%d cost calls without a token", n)
			}
			assertClean(t, err, tt.secret)
		})
	}
}

func TestSlowAnswersHonourDeadline(t *testing.T) {
	for _, slowToken := range []bool{true, false} {
		fake, c, _ := setup(t, clientID, clientSecret)
		if slowToken {
			fake.SetToken(fakeproviders.Slow)
		} else {
			fake.Set(fakeproviders.Slow)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := c.Estimate(ctx, trip)
		cancel()
		if upstream.KindOf(err) != upstream.Timeout || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("slow token %v: err = %v; want a timeout", slowToken, err)
		}
		assertClean(t, err)
	}
}

func TestUnusableEstimates(t *testing.T) {
	ok := fakeproviders.LyftDefaultEstimates[0]
	with := func(f func(*fakeproviders.LyftCostEstimate)) []fakeproviders.LyftCostEstimate {
		q := ok
		f(&q)
		return []fakeproviders.LyftCostEstimate{ok, q}
	}
	tests := map[string][]fakeproviders.LyftCostEstimate{
		"empty list":       {},
		"no ride_type":     with(func(q *fakeproviders.LyftCostEstimate) { q.RideType = "" }),
		"no display_name":  with(func(q *fakeproviders.LyftCostEstimate) { q.DisplayName = "" }),
		"unknown currency": with(func(q *fakeproviders.LyftCostEstimate) { q.Currency = "usd" }),
		"no min":           with(func(q *fakeproviders.LyftCostEstimate) { q.EstimatedCostCentsMin = nil }),
		"fractional cents": with(func(q *fakeproviders.LyftCostEstimate) { q.EstimatedCostCentsMax = fakeproviders.N("2355.5") }),
		"max below min":    with(func(q *fakeproviders.LyftCostEstimate) { q.EstimatedCostCentsMax = fakeproviders.N("1000") }),
		"negative miles":   with(func(q *fakeproviders.LyftCostEstimate) { q.EstimatedDistanceMiles = fakeproviders.N("-1") }),
	}
	for name, estimates := range tests {
		t.Run(name, func(t *testing.T) {
			fake, c, _ := setup(t, clientID, clientSecret)
			fake.SetEstimates(estimates)
			got, err := c.Estimate(context.Background(), trip)
			if len(estimates) == 0 { // no products here: a valid, empty answer
				if err != nil || got == nil || len(got) != 0 {
					t.Fatalf("%v, %v; want an empty list", got, err)
				}
				return
			}
			if upstream.KindOf(err) != upstream.Malformed || !strings.Contains(err.Error(), "cost_estimates[1]") {
				t.Fatalf("err = %v; want malformed naming cost_estimates[1]", err)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	for base, want := range map[string]upstream.DataMode{
		"": upstream.DataLive, "https://api.lyft.com": upstream.DataLive, "http://127.0.0.1:9": upstream.DataUnknown,
	} {
		c, err := lyft.New(lyft.Config{BaseURL: base}, nil)
		if err != nil || c.DataMode() != want {
			t.Errorf("DataMode(%q) = %v, %v; want %s", base, c.DataMode(), err, want)
		}
	}
	_, err := lyft.New(lyft.Config{BaseURL: "https://user:" + clientSecret + "@api.lyft.com"}, nil)
	if err == nil || strings.Contains(err.Error(), clientSecret) {
		t.Fatalf("user info in the base URL: %v", err)
	}
}

// assertClean fails when an error message carries a credential, a token or
// the passenger's coordinates.
func assertClean(t *testing.T, err error, secrets ...string) {
	t.Helper()
	msg := err.Error()
	for _, s := range append(secrets, clientID, clientSecret, "lyft-token", "37.7763", "122.4533", "Bearer", "Basic") {
		if s != "" && strings.Contains(msg, s) {
			t.Fatalf("error message %q contains %q", msg, s)
		}
	}
}

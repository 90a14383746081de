package uber_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

// No test may leave a goroutine behind, the slow ones above all.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "uber-server-token-5ecret"

var (
	now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	jfk = upstream.Coordinate{Latitude: 40.6413, Longitude: -73.7781}
	tsq = upstream.Coordinate{Latitude: 40.758, Longitude: -73.9855}
)

func newClient(t *testing.T, baseURL, tok string) *uber.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := uber.New(uber.Config{BaseURL: baseURL, AccessToken: tok},
		&uber.Options{HTTPClient: &http.Client{Transport: tr}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func p(n int64) *int64 { return &n }

func TestEstimateNormalises(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	c := newClient(t, fake.URL, token)
	got, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq, PartySize: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []upstream.Estimate{
		{ProductID: "a1111c8c-c720-46c3-8534-2fcdd730040d", ProductName: "UberX", Currency: "USD",
			AmountMinor: p(2100), AmountMinorMax: p(2600), Basis: upstream.BasisEstimateRange,
			DistanceMeters: p(9205), DurationSeconds: p(1140), PriceMultiplier: "1.0",
			ProviderText: upstream.ProviderText{DisplayName: "UberX", Estimate: "$21-26"}},
		{ProductID: "d4abaae7-f4d6-4152-91cc-77523e8165a4", ProductName: "Black", Currency: "USD",
			AmountMinor: p(5200), Basis: upstream.BasisFixed,
			DistanceMeters: p(9205), DurationSeconds: p(1140), PriceMultiplier: "1.0",
			ProviderText: upstream.ProviderText{DisplayName: "Black", Estimate: "$52"}},
		{ProductID: "821415d8-3bd5-4e27-9604-194e4359a449", ProductName: "UberXL", Currency: "USD",
			AmountMinor: p(3050), AmountMinorMax: p(3800), Basis: upstream.BasisEstimateRange,
			DistanceMeters: p(9205), DurationSeconds: p(1140), PriceMultiplier: "1.25",
			ProviderText: upstream.ProviderText{DisplayName: "UberXL", Estimate: "$30-38"}},
		{ProductID: "3ab64887-4842-4c8e-9780-ccecd3a0391d", ProductName: "Taxi",
			Basis: upstream.BasisMetered, DistanceMeters: p(9205), DurationSeconds: p(1140),
			ProviderText: upstream.ProviderText{DisplayName: "Taxi", Estimate: "Metered"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("estimates (-want +got):\n%s", diff)
	}
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls; want 1", len(calls))
	}
	call := calls[0]
	wantQuery := "end_latitude=40.758&end_longitude=-73.9855&seat_count=2&start_latitude=40.6413&start_longitude=-73.7781"
	if call.Path != fakeproviders.UberPricePath || call.Query.Encode() != wantQuery ||
		call.Authorization != "Bearer "+token || call.AcceptLanguage != "en_US" {
		t.Fatalf("request: %+v", call)
	}
}

func TestEstimateRequestVariants(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	c := newClient(t, fake.URL+"/", token) // a trailing slash on the base URL is fine
	got, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq, PartySize: 5,
		ProductID: "d4abaae7-f4d6-4152-91cc-77523e8165a4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ProductName != "Black" {
		t.Fatalf("product filter: %+v", got)
	}
	if q := fake.Calls()[0].Query; q.Has("seat_count") {
		t.Fatalf("seat_count sent for a party of 5: %v", q)
	}
	if got, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq, ProductID: "nope"}); err != nil || len(got) != 0 {
		t.Fatalf("unknown product: %v, %v; want an empty list", got, err)
	}
}

func TestNotConfiguredMakesNoCall(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	c := newClient(t, fake.URL, "")
	if c.Configured() {
		t.Fatal("Configured without a token")
	}
	_, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq})
	if upstream.KindOf(err) != upstream.NotConfigured || len(fake.Calls()) != 0 {
		t.Fatalf("err %v, %d calls", err, len(fake.Calls()))
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name       string
		knob       fakeproviders.Knob
		retryAfter string
		token      string
		kind       upstream.Kind
		status     int
		wait       time.Duration
	}{
		{"wrong token", fakeproviders.Normal, "", "not-the-token", upstream.Unauthorized, 401, 0},
		{"401", fakeproviders.Unauthorized, "", token, upstream.Unauthorized, 401, 0},
		{"403", fakeproviders.Forbidden, "", token, upstream.Unauthorized, 403, 0},
		{"429 seconds", fakeproviders.RateLimited, "30", token, upstream.RateLimited, 429, 30 * time.Second},
		{"429 date", fakeproviders.RateLimited, "Tue, 01 Dec 2026 09:02:00 GMT", token, upstream.RateLimited, 429, 2 * time.Minute},
		{"429 bare", fakeproviders.RateLimited, "", token, upstream.RateLimited, 429, 0},
		{"500", fakeproviders.ServerError, "", token, upstream.Unavailable, 500, 0},
		{"503", fakeproviders.Unavailable, "", token, upstream.Unavailable, 503, 0},
		{"503 retry", fakeproviders.Unavailable, "5", token, upstream.Unavailable, 503, 5 * time.Second},
		{"malformed", fakeproviders.MalformedJSON, "", token, upstream.Malformed, 200, 0},
		{"truncated", fakeproviders.TruncatedBody, "", token, upstream.Malformed, 200, 0},
		{"content type", fakeproviders.WrongContentType, "", token, upstream.Malformed, 200, 0},
		{"no prices", fakeproviders.EmptyObject, "", token, upstream.Malformed, 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakeproviders.NewUber(t, token)
			fake.Set(tt.knob)
			fake.SetRetryAfter(tt.retryAfter)
			c := newClient(t, fake.URL, tt.token)
			got, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq})
			var ue *upstream.Error
			if got != nil || !errors.As(err, &ue) || ue.Kind != tt.kind || ue.Status != tt.status || ue.RetryAfter != tt.wait {
				t.Fatalf("Estimate = %v, %#v; want kind %s status %d retry %v", got, err, tt.kind, tt.status, tt.wait)
			}
			assertClean(t, err, tt.token)
			if n := len(fake.Calls()); n != 1 {
				t.Fatalf("%d calls; a failure is never retried here", n)
			}
		})
	}
}

func TestImpossibleRequestIsNotSent(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	c := newClient(t, fake.URL, token)
	for _, req := range []upstream.Request{
		{Pickup: upstream.Coordinate{Latitude: 91}, Dropoff: tsq},
		{Pickup: jfk, Dropoff: upstream.Coordinate{Longitude: -180.5}},
		{Pickup: upstream.Coordinate{Latitude: math.NaN()}, Dropoff: tsq},
		{Pickup: jfk, Dropoff: tsq, PartySize: -1},
	} {
		if _, err := c.Estimate(context.Background(), req); upstream.KindOf(err) != upstream.Rejected || upstream.StatusOf(err) != 0 {
			t.Errorf("%+v: %v", req, err)
		}
	}
	if n := len(fake.Calls()); n != 0 {
		t.Fatalf("%d calls", n)
	}
}

func TestSlowAnswerHonoursDeadline(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	fake.Set(fakeproviders.Slow)
	c := newClient(t, fake.URL, token)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Estimate(ctx, upstream.Request{Pickup: jfk, Dropoff: tsq})
	if upstream.KindOf(err) != upstream.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want a timeout", err)
	}
	assertClean(t, err, token)

	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := c.Estimate(ctx2, upstream.Request{Pickup: jfk, Dropoff: tsq}); upstream.KindOf(err) != upstream.Canceled {
		t.Fatalf("canceled: %v", err)
	}
}

func TestUnusableAnswers(t *testing.T) {
	usd := fakeproviders.S("USD")
	ok := fakeproviders.UberPrice{ProductID: "x", DisplayName: "UberX", LowEstimate: fakeproviders.N("21"),
		HighEstimate: fakeproviders.N("26"), CurrencyCode: usd, Estimate: "$21-26"}
	with := func(f func(*fakeproviders.UberPrice)) []fakeproviders.UberPrice {
		q := ok
		f(&q)
		return []fakeproviders.UberPrice{ok, q}
	}
	tests := map[string][]fakeproviders.UberPrice{
		"prices null":       nil,
		"no product_id":     with(func(q *fakeproviders.UberPrice) { q.ProductID = "" }),
		"no display_name":   with(func(q *fakeproviders.UberPrice) { q.DisplayName = "" }),
		"unknown currency":  with(func(q *fakeproviders.UberPrice) { q.CurrencyCode = fakeproviders.S("ZZZ") }),
		"no currency":       with(func(q *fakeproviders.UberPrice) { q.CurrencyCode = nil }),
		"too precise":       with(func(q *fakeproviders.UberPrice) { q.LowEstimate = fakeproviders.N("21.505") }),
		"negative":          with(func(q *fakeproviders.UberPrice) { q.LowEstimate = fakeproviders.N("-1") }),
		"high below low":    with(func(q *fakeproviders.UberPrice) { q.HighEstimate = fakeproviders.N("20") }),
		"negative distance": with(func(q *fakeproviders.UberPrice) { q.Distance = fakeproviders.N("-5") }),
		"fractional secs":   with(func(q *fakeproviders.UberPrice) { q.Duration = fakeproviders.N("1.5") }),
	}
	for name, prices := range tests {
		t.Run(name, func(t *testing.T) {
			fake := fakeproviders.NewUber(t, token)
			fake.SetPrices(prices)
			c := newClient(t, fake.URL, token)
			_, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq})
			if upstream.KindOf(err) != upstream.Malformed {
				t.Fatalf("err = %v; want malformed", err)
			}
			if name != "prices null" && !strings.Contains(err.Error(), "prices[1]") {
				t.Fatalf("message %q does not say which price", err)
			}
		})
	}
}

func TestOtherCurrencies(t *testing.T) {
	fake := fakeproviders.NewUber(t, token)
	fake.SetPrices([]fakeproviders.UberPrice{
		{ProductID: "jp", DisplayName: "UberTaxi", LowEstimate: fakeproviders.N("4500"), HighEstimate: fakeproviders.N("5200"), CurrencyCode: fakeproviders.S("JPY")},
		{ProductID: "gb", DisplayName: "Exec", LowEstimate: fakeproviders.N("62.4"), HighEstimate: fakeproviders.N("62.4"), CurrencyCode: fakeproviders.S("GBP")},
		{ProductID: "kw", DisplayName: "UberX", LowEstimate: fakeproviders.N("3.250"), HighEstimate: fakeproviders.N("4"), CurrencyCode: fakeproviders.S("KWD")},
	})
	c := newClient(t, fake.URL, token)
	got, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Cur      string
		Low, Max *int64
		Basis    upstream.Basis
	}
	var rows []row
	for _, e := range got {
		rows = append(rows, row{e.Currency, e.AmountMinor, e.AmountMinorMax, e.Basis})
	}
	want := []row{{"JPY", p(4500), p(5200), upstream.BasisEstimateRange}, {"GBP", p(6240), nil, upstream.BasisFixed}, {"KWD", p(3250), p(4000), upstream.BasisEstimateRange}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Fatal(diff)
	}
}

func TestConfig(t *testing.T) {
	for _, bad := range []string{"api.uber.com", "ftp://api.uber.com", "https://", "https://api.uber.com/?x=1", "::"} {
		if _, err := uber.New(uber.Config{BaseURL: bad}, nil); err == nil {
			t.Errorf("New accepted base URL %q", bad)
		}
	}
	if c, err := uber.New(uber.Config{}, nil); err != nil || c.Configured() {
		t.Fatalf("zero config: %v", err)
	}
	for base, want := range map[string]upstream.DataMode{
		"": upstream.DataLive, "https://api.uber.com/": upstream.DataLive,
		"https://sandbox-api.uber.com": upstream.DataTest, "http://127.0.0.1:8080": upstream.DataUnknown,
		"http://api.uber.com": upstream.DataUnknown,
	} {
		c, err := uber.New(uber.Config{BaseURL: base}, nil)
		if err != nil || c.DataMode() != want {
			t.Errorf("DataMode(%q) = %v, %v; want %s", base, c.DataMode(), err, want)
		}
	}
}

// assertClean fails when an error message carries a credential or the
// passenger's coordinates.
func assertClean(t *testing.T, err error, secrets ...string) {
	t.Helper()
	msg := err.Error()
	for _, s := range append(secrets, token, "40.6413", "73.9855", "Bearer") {
		if s != "" && strings.Contains(msg, s) {
			t.Fatalf("error message %q contains %q", msg, s)
		}
	}
}

// A redirect is not followed: Go's client would carry the token to
// another port of the same host.
func TestRedirectDoesNotLeakToken(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.RedirectHandler(other.URL+uber.PricePath, http.StatusFound))
	defer redirector.Close()
	c := newClient(t, redirector.URL, token)
	_, err := c.Estimate(context.Background(), upstream.Request{Pickup: jfk, Dropoff: tsq})
	if upstream.KindOf(err) != upstream.Malformed || upstream.StatusOf(err) != http.StatusFound {
		t.Fatalf("err = %v", err)
	}
	assertClean(t, err)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 0 {
		t.Fatalf("the other host saw Authorization %q", seen)
	}
}

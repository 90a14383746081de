package geo

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tridenttaxis/trident-mcp/internal/fakegeo"
)

// burst runs n identical concurrent lookups and returns the first error.
func burst(n int, lookup func() error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = lookup() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TestBurstCostsOneRequest: identical lookups share one exchange while it
// runs and the cache answers them after; without the cache only the
// sharing is left, and sequential repeats each cost a request.
func TestBurstCostsOneRequest(t *testing.T) {
	const n = 64
	for _, tc := range []struct {
		name               string
		opts               []Option
		wantBurst, wantSeq int64 // requests for a burst of n (at most), then n in a row
	}{
		{"cached", nil, 1, 0},
		// Only a caller that starts 200 ms late misses the shared exchange.
		{"no cache", []Option{WithCache(0, 0)}, n / 4, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, BackendNominatim, tc.opts...)
			defer r.close()
			// Hold the replies 200 ms (within the 300 ms timeout), so that
			// the callers overlap.
			r.fake.SetFault(fakegeo.Slow)
			r.fake.SetSlowFor(200 * time.Millisecond)
			if err := burst(n, func() error { return r.lookup(context.Background(), 1) }); err != nil {
				t.Fatal(err)
			}
			afterBurst := r.fake.Requests()
			r.fake.SetFault(fakegeo.Healthy)
			for range n {
				if err := r.lookup(context.Background(), 1); err != nil {
					t.Fatal(err)
				}
			}
			seq := r.fake.Requests() - afterBurst
			t.Logf("%s: %d identical concurrent lookups cost %d upstream requests; %d more in a row cost %d (stats %+v)",
				tc.name, n, afterBurst, n, seq, r.stats())
			if afterBurst > tc.wantBurst || seq != tc.wantSeq {
				t.Errorf("requests: burst %d (want at most %d), in a row %d (want %d)", afterBurst, tc.wantBurst, seq, tc.wantSeq)
			}
		})
	}
}

func TestCacheExpires(t *testing.T) {
	r := newRig(t, BackendOSRM, WithCache(8, 50*time.Millisecond))
	defer r.close()
	if err := r.lookup(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if _, ok := eventually(t, 5*time.Second, func() bool {
		_ = r.lookup(context.Background(), 1)
		return r.fake.Requests() == 2
	}); !ok {
		t.Fatalf("the cached route never expired: %d requests", r.fake.Requests())
	}
}

func TestCacheIsBounded(t *testing.T) {
	r := newRig(t, BackendOSRM, WithCache(4, time.Hour))
	defer r.close()
	for i := range 10 {
		if err := r.lookup(context.Background(), i); err != nil {
			t.Fatal(err)
		}
	}
	// The oldest lookups were evicted: asking again costs a request each;
	// the newest four are still answered from the cache.
	before := r.fake.Requests()
	for i := 6; i < 10; i++ {
		_ = r.lookup(context.Background(), i)
	}
	if got := r.fake.Requests(); got != before {
		t.Errorf("the newest four lookups cost %d requests", got-before)
	}
	_ = r.lookup(context.Background(), 0)
	if got := r.fake.Requests(); got != before+1 {
		t.Errorf("an evicted lookup cost %d requests, want 1", got-before)
	}
}

// TestCallerGivesUp: a caller whose context ends first gets its own error
// at once; the shared exchange runs on to its timeout, no further, and
// leaves no goroutine behind.
func TestCallerGivesUp(t *testing.T) {
	r := newRig(t, BackendNominatim, WithTimeout(2*time.Second))
	leaks := goleak.IgnoreCurrent()
	defer func() {
		r.close()
		goleak.VerifyNone(t, leaks)
	}()
	r.fake.SetFault(fakegeo.Slow)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := r.lookup(ctx, 1)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lookup = %v, want ErrUnavailable wrapping DeadlineExceeded", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the caller waited %v past its own 50 ms deadline", took)
	}
}

// TestBreakerReopensOnFailedProbe: when the engine is still down after the
// open period, the one probe fails and the breaker opens again.
func TestBreakerReopensOnFailedProbe(t *testing.T) {
	r := newRig(t, BackendOSRM)
	defer r.close()
	r.fake.SetFault(fakegeo.ServerError)
	for i := range 3 {
		_ = r.lookup(context.Background(), i)
	}
	if st := r.stats(); st.Trips != 1 || st.Breaker != "open" {
		t.Fatalf("after 3 failures: %+v, want the breaker open", st)
	}
	if _, ok := eventually(t, breakerOpen+5*time.Second, func() bool { return r.stats().Breaker == "half-open" }); !ok {
		t.Fatal("the breaker never went half-open")
	}
	sent := r.fake.Requests()
	_ = r.lookup(context.Background(), 10)
	_ = r.lookup(context.Background(), 11)
	if st := r.stats(); st.Trips != 2 || st.Breaker != "open" || r.fake.Requests() != sent+1 {
		t.Errorf("after a failed probe: %+v and %d requests, want open again after exactly one probe", st, r.fake.Requests()-sent)
	}
}

// TestBreakerIgnoresRefusedQueries: a 4xx is the engine answering (our
// query was wrong, or OSRM found no road), not the engine failing.
func TestBreakerIgnoresRefusedQueries(t *testing.T) {
	ts, _ := nominatimServer(t, map[string]fixture{"Bad Request": {status: 400, file: "nominatim/error_400.json"}})
	n := NewNominatim(ts.URL, WithUserAgent("trident-test/1.0"), WithMinInterval(0), WithBreaker(2, time.Hour))
	for range 5 {
		if _, err := n.Geocode(context.Background(), "Bad Request"); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Geocode = %v", err)
		}
	}
	if st := n.Stats(); st.Trips != 0 || st.Requests != 5 {
		t.Errorf("stats %+v, want 5 requests and the breaker closed", st)
	}
}

// TestCoolDown: a 429 silences the engine for its Retry-After, without a
// retry and without opening the breaker; the refusals carry the time left.
func TestCoolDown(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, retryAfter := range []string{"120", start.Add(120 * time.Second).Format(http.TimeFormat)} {
		t.Run(retryAfter, func(t *testing.T) {
			clock := &testClock{t: start}
			r := newRig(t, BackendNominatim, withClock(clock))
			defer r.close()
			r.fake.SetFault(fakegeo.TooManyRequests)
			r.fake.SetRetryAfter(retryAfter)
			var be *BackendError
			if err := r.lookup(context.Background(), 1); !errors.As(err, &be) || be.StatusCode != 429 || be.RetryAfter != 120*time.Second {
				t.Fatalf("first lookup = %v, want a 429 BackendError asking for 120 s", err)
			}
			r.fake.SetFault(fakegeo.Healthy)
			clock.Advance(100 * time.Second)
			err := r.lookup(context.Background(), 2)
			if !errors.As(err, &be) || !errors.Is(err, ErrUnavailable) || be.RetryAfter != 20*time.Second || be.StatusCode != 0 {
				t.Fatalf("lookup during the cool-down = %v (%+v), want a refusal with 20 s left", err, be)
			}
			if got := r.fake.Requests(); got != 1 {
				t.Fatalf("%d requests during the cool-down, want only the first", got)
			}
			clock.Advance(21 * time.Second)
			if err := r.lookup(context.Background(), 3); err != nil {
				t.Fatalf("after the cool-down: %v", err)
			}
			if st := r.stats(); st.Trips != 0 || st.Refused != 1 {
				t.Errorf("stats %+v, want no trip and one refusal", st)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-5", 0},
		{"soon", 0},
		{"1", time.Second},
		{" 30 ", 30 * time.Second},
		{"86400", maxCoolDown},
		{"99999999999999999999", 0}, // overflows int64: unreadable
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{now.Add(48 * time.Hour).Format(http.TimeFormat), maxCoolDown},
	} {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestOptionsOff: WithCache(0, 0) and WithBreaker(0, 0) turn those parts off.
func TestOptionsOff(t *testing.T) {
	o := NewOSRM("http://127.0.0.1:1", WithCache(0, time.Minute), WithBreaker(0, 0))
	if o.guard.cache != nil || o.guard.breaker != nil || o.Stats().Breaker != "off" {
		t.Errorf("cache %v, breaker %v: want both off", o.guard.cache, o.guard.breaker)
	}
	o = NewOSRM("http://127.0.0.1:1")
	if o.guard.cache == nil || o.guard.breaker == nil || o.Stats().Breaker != "closed" || o.http.limiter != nil {
		t.Error("defaults: want a cache and a closed breaker, and no rate limit for OSRM")
	}
	if n := NewNominatim("http://127.0.0.1:1"); n.http.limiter == nil || n.http.limiter.Limit() != 1 {
		t.Error("Nominatim's default: one request a second")
	}
}

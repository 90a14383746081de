package geo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tridenttaxis/trident-mcp/internal/fakegeo"
)

// These tests put the real Nominatim and OSRM clients in front of
// internal/fakegeo's fault-injecting engines, under concurrent load. The
// bounds are generous on purpose (the machines are shared): a call that
// hangs would take fakegeo's SlowFor, a minute, and one that retries in a
// loop would show in the request counts.
const (
	faultTimeout = 300 * time.Millisecond // WithTimeout, as GEO_TIMEOUT
	faultMargin  = time.Second            // slack on a loaded machine
	breakerOpen  = 400 * time.Millisecond // WithBreaker's open period
	waveSize     = 48                     // concurrent calls per wave
	waveKeys     = 16                     // distinct lookups per wave (3 callers each)
)

// testClock is the cool-down's clock, moved by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func withClock(c *testClock) Option { return func(h *httpConfig) { h.now = c.Now } }

// rig is one HTTP back end and its fake engine. lookup(i) is the i-th
// distinct lookup: a street address for Nominatim, a trip from a point
// i*10 m further north for OSRM.
type rig struct {
	fake   *fakegeo.Server
	lookup func(ctx context.Context, i int) error
	stats  func() Stats
	cfg    *httpConfig
}

func newRig(t *testing.T, engine string, opts ...Option) *rig {
	t.Helper()
	opts = append([]Option{WithTimeout(faultTimeout), WithMinInterval(0), WithBreaker(3, breakerOpen), WithLogger(slog.New(slog.DiscardHandler))}, opts...)
	switch engine {
	case BackendNominatim:
		fake := fakegeo.NewNominatim()
		n := NewNominatim(fake.URL, opts...)
		return &rig{fake: fake, stats: n.Stats, cfg: &n.http, lookup: func(ctx context.Context, i int) error {
			_, err := n.Geocode(ctx, fmt.Sprintf("%d Sinclair Street, Helensburgh", i))
			return err
		}}
	case BackendOSRM:
		fake := fakegeo.NewOSRM()
		o := NewOSRM(fake.URL, opts...)
		return &rig{fake: fake, stats: o.Stats, cfg: &o.http, lookup: func(ctx context.Context, i int) error {
			from := Place{Lat: 56.0 + float64(i)*1e-4, Lon: -4.73}
			_, err := o.Route(ctx, from, glasgowAirport)
			return err
		}}
	}
	t.Fatalf("no rig for %q", engine)
	return nil
}

// close stops the fake and drops idle client connections, so that what
// goroutines are left are the ones a leak would leave.
func (r *rig) close() {
	r.fake.Close()
	r.cfg.client.CloseIdleConnections()
}

// wave is waveSize concurrent lookups over waveKeys distinct ones from
// base on: each call's error and duration.
type wave struct {
	errs  []error
	times []time.Duration
}

func (r *rig) wave(base int) wave {
	w := wave{errs: make([]error, waveSize), times: make([]time.Duration, waveSize)}
	var wg sync.WaitGroup
	for k := range waveSize {
		wg.Go(func() {
			start := time.Now()
			w.errs[k] = r.lookup(context.Background(), base+k%waveKeys)
			w.times[k] = time.Since(start)
		})
	}
	wg.Wait()
	return w
}

func (w wave) check(t *testing.T, name string, want error) {
	t.Helper()
	for k, err := range w.errs {
		if !errors.Is(err, want) {
			t.Errorf("%s call %d: %v, want %v", name, k, err, want)
		}
		if w.times[k] > faultTimeout+faultMargin {
			t.Errorf("%s call %d took %v, want at most the timeout %v plus %v", name, k, w.times[k], faultTimeout, faultMargin)
		}
	}
}

func (w wave) max() time.Duration {
	s := append([]time.Duration(nil), w.times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)-1]
}

// eventually retries f every 20 ms until it returns true or limit passes.
func eventually(t *testing.T, limit time.Duration, f func() bool) (time.Duration, bool) {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !f() {
		if time.Since(start) > limit {
			return time.Since(start), false
		}
		<-tick.C
	}
	return time.Since(start), true
}

// TestBackendFaultsUnderLoad runs, for each engine and fault: a wave of
// concurrent lookups against the fault, a second wave of new lookups
// while it lasts, then heals the engine and waits for a lookup to succeed.
// Every call must end within the timeout plus a margin with the right
// error class, the second wave must cost at most one request (the breaker
// or the cool-down holds it back), the engine must be used again once it
// heals, and no goroutine may be left behind.
func TestBackendFaultsUnderLoad(t *testing.T) {
	for _, engine := range []string{BackendNominatim, BackendOSRM} {
		for _, fault := range fakegeo.Faults {
			t.Run(engine+"/"+string(fault), func(t *testing.T) {
				clock := &testClock{t: time.Now()}
				r := newRig(t, engine, withClock(clock))
				leaks := goleak.IgnoreCurrent()
				defer func() {
					r.close()
					goleak.VerifyNone(t, leaks)
				}()
				want, trips := ErrUnavailable, true
				switch {
				case fault == fakegeo.Empty && engine == BackendNominatim:
					want, trips = ErrNoMatch, false // an unknown address: GEOCODE_FAILED
				case fault == fakegeo.TooManyRequests:
					trips = false // the cool-down holds calls back, not the breaker
				}
				r.fake.SetFault(fault)

				w1 := r.wave(0)
				w1.check(t, "first wave", want)
				// About one request per distinct lookup: failures are not
				// cached, so a caller that comes after a lookup failed (and
				// before the breaker opened) asks again, and Go's transport
				// resends a GET once when a reused connection dies before
				// any reply (the reset fault).
				sent1 := r.fake.Requests()
				if sent1 > 2*waveKeys {
					t.Errorf("first wave sent %d requests for %d distinct lookups", sent1, waveKeys)
				}
				// Nominatim's "no such place" is cached, so the second wave
				// asks the same again; otherwise new lookups, which only
				// the breaker or cool-down can hold back.
				base := waveKeys
				if want == ErrNoMatch {
					base = 0
				}
				w2 := r.wave(base)
				w2.check(t, "second wave", want)
				sent2 := r.fake.Requests() - sent1
				if sent2 > 1 {
					t.Errorf("second wave sent %d requests, want at most one probe", sent2)
				}
				st := r.stats()
				if trips != (st.Trips > 0) {
					t.Errorf("breaker trips %d, want trips=%v (stats %+v)", st.Trips, trips, st)
				}

				r.fake.SetFault(fakegeo.Healthy)
				clock.Advance(3 * time.Second) // past fakegeo's Retry-After: 2
				next := 2 * waveKeys
				took, ok := eventually(t, breakerOpen+5*time.Second, func() bool {
					next++
					return r.lookup(context.Background(), next) == nil
				})
				if !ok {
					t.Fatalf("no lookup succeeded within %v of the engine healing (stats %+v)", took, r.stats())
				}
				st = r.stats()
				if trips && (st.Recoveries == 0 || st.Breaker != "closed") {
					t.Errorf("after healing: stats %+v, want a recovery and the breaker closed", st)
				}
				t.Logf("%-9s %-15s first wave max %4dms (%2d requests), second wave max %4dms (%d requests), trips %d, recovered after %4dms (recoveries %d)",
					engine, fault, w1.max().Milliseconds(), sent1, w2.max().Milliseconds(), sent2, st.Trips, took.Milliseconds(), st.Recoveries)
				for ua := range r.fake.UserAgents() {
					if ua != DefaultUserAgent {
						t.Errorf("User-Agent %q, want %q", ua, DefaultUserAgent)
					}
				}
			})
		}
	}
}

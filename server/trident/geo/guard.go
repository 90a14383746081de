package geo

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/sony/gobreaker/v2"
	"golang.org/x/sync/singleflight"
)

// guard stands between the tools and one HTTP back end, because the engines
// are other people's servers and a quote must not hang on them, nor a burst
// of quotes bury them. For each lookup, in order:
//
//  1. Cache: an answer seen within the TTL (a place, a route, or "no such
//     place", which is as deterministic) is returned without a request.
//  2. Single flight: identical lookups in flight share one exchange, so a
//     burst of the same quote costs one upstream call, not one per caller.
//  3. Cool-down: after a 429 (or a 503 with Retry-After) the back end is
//     left alone for as long as it asked ([maxCoolDown] at most; the breaker's
//     open period when it named no time), and lookups fail at once instead
//     of retrying into its limit.
//  4. Circuit breaker (sony/gobreaker): after N consecutive failed
//     exchanges, lookups fail at once for the open period; then one probe
//     passes (half-open), and a good answer closes the breaker again.
//  5. Client-side rate limit (Nominatim's one request a second), waited on
//     within the timeout, never past it.
//  6. The exchange, bounded by the timeout.
//
// The exchange runs detached from the first caller's cancellation (but
// bounded by the timeout): the callers sharing it wait on their own
// contexts, and one of them giving up neither fails the others nor wastes
// the answer. Every failure is an [ErrUnavailable] [*BackendError].
type guard[T any] struct {
	backend string
	cfg     *httpConfig
	cache   *expirable.LRU[string, outcome[T]] // nil: off
	flights singleflight.Group
	breaker *gobreaker.TwoStepCircuitBreaker[T] // nil: off

	mu        sync.Mutex
	coolUntil time.Time

	lookups, cacheHits, flightsRun, requests, refused, trips, recoveries atomic.Uint64
}

// outcome is a cached answer: a value, or an [ErrNoMatch] error.
type outcome[T any] struct {
	val T
	err error
}

// errNotCounted tells the breaker that an exchange says nothing about the
// back end's health: a 4xx other than 429 (our request was wrong; the
// engine answered), a 429 (its limit, handled by the cool-down), or a
// request never sent (the client-side limit).
var errNotCounted = errors.New("geo: not counted by the breaker")

// Stats counts what an HTTP back end did since it was built; [Nominatim.Stats]
// and [OSRM.Stats] return it, for logs, metrics and tests.
type Stats struct {
	Lookups    uint64 // lookups that reached the guard (after local screening)
	CacheHits  uint64 // answered from the cache
	Flights    uint64 // distinct lookups run; the rest shared one in flight
	Requests   uint64 // HTTP requests sent upstream
	Refused    uint64 // failed without a request: breaker, cool-down, rate limit
	Trips      uint64 // times the breaker opened
	Recoveries uint64 // times it closed again after a good probe
	Breaker    string // "closed", "open", "half-open", or "off"
}

func newGuard[T any](backend string, cfg *httpConfig) *guard[T] {
	g := &guard[T]{backend: backend, cfg: cfg}
	if cfg.cacheSize > 0 && cfg.cacheTTL > 0 {
		// expirable runs one goroutine per cache for the whole process, to
		// drop expired entries; a back end is built once per server.
		g.cache = expirable.NewLRU[string, outcome[T]](cfg.cacheSize, nil, cfg.cacheTTL)
	}
	if cfg.breakerFailures > 0 {
		failures := uint32(cfg.breakerFailures)
		g.breaker = gobreaker.NewTwoStepCircuitBreaker[T](gobreaker.Settings{
			Name:        backend,
			MaxRequests: 1, // one probe when half-open
			Timeout:     cfg.breakerOpen,
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures },
			IsExcluded:  func(err error) bool { return errors.Is(err, errNotCounted) },
			OnStateChange: func(name string, from, to gobreaker.State) {
				switch {
				case to == gobreaker.StateOpen:
					g.trips.Add(1)
					cfg.log().Warn("geo: circuit breaker open: the back end keeps failing; calls fail fast until a probe succeeds",
						slog.String("backend", name), slog.String("from", from.String()), slog.Duration("open_for", cfg.breakerOpen))
				case from == gobreaker.StateHalfOpen && to == gobreaker.StateClosed:
					g.recoveries.Add(1)
					cfg.log().Info("geo: circuit breaker closed: the back end answers again", slog.String("backend", name))
				}
			},
		})
	}
	return g
}

// do answers one lookup: key identifies it (the request URL), exchange
// performs it against the engine within the context it is given.
func (g *guard[T]) do(ctx context.Context, key string, exchange func(context.Context) (T, error)) (T, error) {
	var zero T
	g.lookups.Add(1)
	if err := ctx.Err(); err != nil {
		return zero, g.gaveUp(key, err)
	}
	if g.cache != nil {
		if o, ok := g.cache.Get(key); ok {
			g.cacheHits.Add(1)
			return o.val, o.err
		}
	}
	ch := g.flights.DoChan(key, func() (any, error) {
		// A caller that missed the cache just before another's flight
		// filled it and left would otherwise start a second exchange.
		if g.cache != nil {
			if o, ok := g.cache.Peek(key); ok {
				g.cacheHits.Add(1)
				return o.val, o.err
			}
		}
		return g.flight(ctx, key, exchange)
	})
	select {
	case r := <-ch:
		v, _ := r.Val.(T)
		return v, r.Err
	case <-ctx.Done():
		return zero, g.gaveUp(key, ctx.Err())
	}
}

func (g *guard[T]) gaveUp(key string, err error) error {
	return &BackendError{Backend: g.backend, URL: key, Message: "caller gave up waiting", Err: err, class: ErrUnavailable}
}

// flight is the one exchange identical concurrent lookups share.
func (g *guard[T]) flight(parent context.Context, key string, exchange func(context.Context) (T, error)) (T, error) {
	var zero T
	if g.cache != nil {
		// A flight for key may have ended between do's cache look and this
		// flight's start: its answer is cached, and asking again would
		// spend a request the cache exists to save.
		if o, ok := g.cache.Get(key); ok {
			g.cacheHits.Add(1)
			return o.val, o.err
		}
	}
	g.flightsRun.Add(1)
	refuse := func(msg string, cause error, wait time.Duration) (T, error) {
		g.refused.Add(1)
		return zero, &BackendError{Backend: g.backend, URL: key, Message: msg, Err: cause, RetryAfter: wait, class: ErrUnavailable}
	}
	if wait := g.coolDownLeft(); wait > 0 {
		return refuse("cooling down: the back end asked for a pause (Retry-After)", nil, wait)
	}
	done := func(error) {}
	if g.breaker != nil {
		d, err := g.breaker.Allow()
		if err != nil {
			return refuse("circuit breaker open after repeated failures", err, 0)
		}
		done = d
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), g.cfg.timeout)
	defer cancel()
	if g.cfg.limiter != nil {
		if err := g.cfg.limiter.Wait(ctx); err != nil {
			done(errNotCounted)
			return refuse("client-side rate limit: no request slot within the timeout", err, 0)
		}
	}
	g.requests.Add(1)
	v, err := exchange(ctx)
	done(g.judge(err))
	if g.cache != nil && (err == nil || errors.Is(err, ErrNoMatch)) {
		g.cache.Add(key, outcome[T]{val: v, err: err})
	}
	return v, err
}

// judge turns an exchange's error into the breaker's verdict (nil is a
// success), and starts a cool-down when the back end asked for one.
func (g *guard[T]) judge(err error) error {
	if err == nil || errors.Is(err, ErrNoMatch) {
		return nil
	}
	var be *BackendError
	if !errors.As(err, &be) {
		return err
	}
	switch {
	case be.StatusCode == 429:
		wait := be.RetryAfter
		if wait <= 0 {
			wait = g.cfg.breakerOpen
		}
		g.coolDown(wait)
		return errNotCounted
	case be.StatusCode == 503 && be.RetryAfter > 0:
		g.coolDown(be.RetryAfter)
	case be.StatusCode >= 400 && be.StatusCode < 500:
		return errNotCounted
	}
	return err
}

func (g *guard[T]) coolDown(d time.Duration) {
	if d <= 0 {
		return
	}
	now := g.cfg.now()
	until := now.Add(min(d, maxCoolDown))
	g.mu.Lock()
	starts := !g.coolUntil.After(now) // not already cooling down: say so once
	if until.After(g.coolUntil) {
		g.coolUntil = until
	}
	g.mu.Unlock()
	if starts {
		g.cfg.log().Warn("geo: back end asked for a pause; calls fail fast until it ends",
			slog.String("backend", g.backend), slog.Duration("retry_after", d))
	}
}

func (g *guard[T]) coolDownLeft() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.coolUntil.Sub(g.cfg.now())
}

func (g *guard[T]) stats() Stats {
	s := Stats{
		Lookups: g.lookups.Load(), CacheHits: g.cacheHits.Load(), Flights: g.flightsRun.Load(),
		Requests: g.requests.Load(), Refused: g.refused.Load(), Trips: g.trips.Load(), Recoveries: g.recoveries.Load(),
		Breaker: "off",
	}
	if g.breaker != nil {
		s.Breaker = g.breaker.State().String()
	}
	return s
}

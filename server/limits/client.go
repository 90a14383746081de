package limits

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// DefaultTimeout is how long one Redis call on the request path may take
// (REDIS_TIMEOUT) before the caller falls back: the limiter admits, the
// cool-downs answer from the replica's own. A healthy Redis answers in well
// under a millisecond on the same network and in a few tens across zones,
// and a new connection (TCP, TLS, HELLO) costs a few round trips more, so
// 250ms is never spent by a Redis that works; yet it is small beside a
// tool call's own work (geocoding, routing, providers' APIs), so a Redis
// that hangs delays a call by a fraction of a second, not by go-redis's
// own defaults (5s a read, retried three times: 20s).
const DefaultTimeout = 250 * time.Millisecond

// breakerOpen is how long, after a Redis call failed, calls fall back at
// once without asking Redis; then one call probes it, and an answer
// resumes the shared behaviour. Without it each call of a hung Redis would
// wait out the budget (and a search_rides call makes several: Relay's
// caller limit, each provider's cool-down and budget, Trident's limiter),
// and each would log. Two seconds: an outage costs each replica one
// budget and one warning every two seconds, and shared limiting resumes
// within two seconds of Redis answering again.
const breakerOpen = 2 * time.Second

// startTimeout bounds the start-up PING, dial retries included, so a
// server pointed at an address that drops packets stops in seconds.
const startTimeout = 5 * time.Second

// ErrUnavailable is the error of a Redis call made while an earlier one
// has just failed ([Connect]'s circuit breaker is open): the call was not
// sent. Callers fall back as for any error; since the failure that opened
// the breaker was logged, they need not log this one again.
var ErrUnavailable = errors.New("limits: Redis did not answer just before; not asked again yet")

// ConnectOptions tune [Connect]. The zero value is the defaults.
type ConnectOptions struct {
	// Timeout bounds each Redis call (its retries, a wait for a pooled
	// connection and a new connection's dial included). Zero:
	// [DefaultTimeout].
	Timeout time.Duration
	// Logger hears Redis stop and start answering. Zero: slog.Default().
	Logger *slog.Logger
}

// Connect opens a client to the Redis redisURL names (redis://, rediss://,
// unix://, as go-redis parses them) and checks it with a PING, so that a
// wrong URL or an unreachable server fails at start rather than on the first
// request. Errors name REDIS_URL and the address, never the password. The
// caller closes the client.
//
// The client is for the request path: every call is bounded by o.Timeout
// and fails rather than wait longer, and after a call fails (no answer in
// time, a connection refused or cut) calls fail at once with
// [ErrUnavailable] for a moment before Redis is probed again, so a hung
// Redis costs a tool call at most one budget. Timeouts the URL sets
// itself (?read_timeout=, ?write_timeout=, ?pool_timeout=, ?dial_timeout=)
// are kept; the budget still bounds the whole call.
func Connect(ctx context.Context, redisURL string, o ConnectOptions) (redis.UniversalClient, error) {
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		// url.Parse's error repeats the whole URL, password included.
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("limits: REDIS_URL: %w", err)
	}
	budget := o.Timeout
	if budget <= 0 {
		budget = DefaultTimeout
	}
	// go-redis's read and write timeouts bound each socket operation, not
	// the call (a timed-out read is retried, MaxRetries times), and the
	// context's deadline reaches the socket only with
	// ContextTimeoutEnabled. So: the budget on each socket operation too
	// (for the PING below, which runs before the budget hook), the pool's
	// wait for a connection no longer than it, and the context honoured,
	// so the hook's deadline ends the call, retries, dial and pool wait
	// included. Zero is "not in the URL"; the URL's -1 (no timeout) is
	// left as the operator wrote it, and WriteTimeout, unset, follows
	// ReadTimeout.
	for _, d := range []*time.Duration{&opt.ReadTimeout, &opt.PoolTimeout} {
		if *d == 0 {
			*d = budget
		}
	}
	opt.ContextTimeoutEnabled = true
	client := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("limits: REDIS_URL %s: no answer in time (REDIS_TIMEOUT=%s): %w", opt.Addr, budget, err)
		}
		return nil, fmt.Errorf("limits: REDIS_URL %s: %w", opt.Addr, err)
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	client.AddHook(newGuard(opt.Addr, budget, log))
	return client, nil
}

// guard is the go-redis hook that bounds each call by the budget and
// fails calls fast while Redis does not answer (sony/gobreaker: one
// failure opens the breaker for breakerOpen, then one probe passes and an
// answer closes it).
type guard struct {
	budget  time.Duration
	breaker *gobreaker.TwoStepCircuitBreaker[struct{}]
}

func newGuard(addr string, budget time.Duration, log *slog.Logger) *guard {
	return &guard{budget: budget, breaker: gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        addr,
		MaxRequests: 1, // one probe when half-open
		Timeout:     breakerOpen,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1 },
		IsExcluded:  func(err error) bool { return errors.Is(err, context.Canceled) },
		OnStateChange: func(addr string, from, to gobreaker.State) {
			switch {
			case from == gobreaker.StateClosed && to == gobreaker.StateOpen:
				log.Warn("limits: Redis does not answer; until it does, the limits admit calls and each replica keeps its own cool-downs",
					slog.String("redis", addr), slog.Duration("budget", budget), slog.Duration("probe_every", breakerOpen))
			case from == gobreaker.StateHalfOpen && to == gobreaker.StateClosed:
				log.Info("limits: Redis answers again; limits and cool-downs are shared again", slog.String("redis", addr))
			}
		},
	})}
}

func (g *guard) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *guard) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return g.do(ctx, func(ctx context.Context) error { return next(ctx, cmd) }, func(err error) { cmd.SetErr(err) })
	}
}

func (g *guard) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return g.do(ctx, func(ctx context.Context) error { return next(ctx, cmds) }, func(err error) {
			for _, c := range cmds {
				c.SetErr(err)
			}
		})
	}
}

// guarded marks the context of a call under way: the commands go-redis
// runs inside it on a new connection (HELLO, CLIENT SETINFO) pass the same
// hooks, and are part of that call, not calls of their own (which, while
// the breaker lets one probe through, would be refused, failing the probe).
type guarded struct{}

// do runs one call under the breaker and the budget; refused sets the
// error on the commands of a call not sent.
func (g *guard) do(ctx context.Context, call func(context.Context) error, refused func(error)) error {
	if ctx.Value(guarded{}) != nil {
		return call(ctx)
	}
	done, err := g.breaker.Allow()
	if err != nil {
		err = fmt.Errorf("%w (%v)", ErrUnavailable, err)
		refused(err)
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithValue(ctx, guarded{}, true), g.budget)
	defer cancel()
	err = call(cctx)
	done(g.verdict(ctx, err))
	return err
}

// verdict is what err says of Redis's health, for the breaker: nil when
// Redis answered, even with an error reply (redis.Nil, NOSCRIPT, WRONGTYPE:
// it is there); context.Canceled when the caller gave up, which says
// nothing; otherwise a failure (no answer within the budget, a connection
// refused or cut).
func (g *guard) verdict(ctx context.Context, err error) error {
	var reply redis.Error
	switch {
	case err == nil, errors.As(err, &reply):
		return nil
	case errors.Is(ctx.Err(), context.Canceled):
		return context.Canceled
	}
	return err
}

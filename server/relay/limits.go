package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// Defaults of Relay's limits (RELAY_RATE_LIMIT, RELAY_PROVIDER_BUDGET),
// both per minute. The actor limit covers every tool call of one caller;
// the budget every upstream request to one provider, from all callers.
const (
	DefaultActorPerMinute    = 300
	DefaultProviderPerMinute = 600
)

// accessLimits are Relay's per-actor rate limit and per-provider request
// budgets, counted by one [limits.Limiter]: in process by default, shared
// by every replica through Redis when REDIS_URL is set, so a caller
// limited on one replica is limited on the others, and a provider's budget
// is one budget for the whole deployment.
type accessLimits struct {
	lim            limits.Limiter
	actor, budget  limits.Limit
	actorOff, open bool // actorOff: RELAY_RATE_LIMIT=0
	log            *slog.Logger
}

func newAccessLimits(o *Options, log *slog.Logger) *accessLimits {
	a := &accessLimits{lim: o.Limiter, log: log,
		actor:  limits.PerMinute(DefaultActorPerMinute),
		budget: limits.PerMinute(DefaultProviderPerMinute)}
	if a.lim == nil && o.Redis != nil {
		a.lim = limits.NewRedis(o.Redis, o.RedisPrefix)
	}
	if a.lim == nil {
		// The wall clock, not Options.Now: a server whose option clock is
		// frozen (samples, demos) must still earn calls back.
		a.lim = limits.NewLocal(nil)
	}
	switch {
	case o.ActorLimit.Rate < 0:
		a.actorOff = true
	case o.ActorLimit.Rate > 0:
		a.actor = o.ActorLimit
	}
	if o.ProviderBudget.Rate > 0 {
		a.budget = o.ProviderBudget
	}
	return a
}

// allow spends one event of limit under key. A limiter that cannot decide
// (Redis unreachable, or not answering within REDIS_TIMEOUT) admits the
// call and logs it: refusing every call while Redis is down would take
// Relay down with it. The calls that Redis's client does not even send,
// because one just failed ([limits.ErrUnavailable]), are logged at debug
// level: the failure was logged, and an outage must not log every call.
func (a *accessLimits) allow(ctx context.Context, key string, limit limits.Limit) (time.Duration, bool) {
	d, err := a.lim.Allow(ctx, key, limit)
	if err != nil {
		a.log.Log(ctx, unavailableLevel(err), "relay: limiter unavailable; admitting", "key", key, "error", err.Error())
		return 0, true
	}
	return d.RetryAfter, d.Allowed
}

// unavailableLevel is the level of a record of a Redis call that failed:
// warn, or debug for one not sent because the last one had just failed.
func unavailableLevel(err error) slog.Level {
	if errors.Is(err, limits.ErrUnavailable) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

// limited wraps a tool handler with the per-actor limit: the token's sub
// and client in OAuth mode, the remote address in public mode (where every
// caller is "anonymous"). A caller over the limit gets the rate_limited
// refusal with retry_after_seconds, as Relay's other refusals are results
// (the specification's error table), not the front door's HTTP 429.
func (s *Server) limited(tool string, h mcp.ToolHandler) mcp.ToolHandler {
	if s.limits.actorOff {
		return h
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		key := actor(ctx, req)
		if key == "anonymous" {
			key = "ip:" + mcphttp.RemoteHost(ctx)
		}
		if wait, ok := s.limits.allow(ctx, "actor:"+key, s.limits.actor); !ok {
			n := int64(limits.RetryAfterSeconds(wait))
			return s.refuse(ctx, tool, &refusal{out: mcptypes.Refusal{
				Status: mcptypes.RefusalStatusRateLimited, RetryAfterSeconds: &n,
				Message: message(errcodes.RateLimited, "seconds", strconv.FormatInt(n, 10)),
			}})
		}
		return h(ctx, req)
	}
}

// budgeted spends the provider's request budget before each upstream
// request of src. A spent budget is the provider's rate_limited failure
// with the wait as its Retry-After, so the search puts the provider in
// cool-down and reports retry_after_seconds, and the provider is not
// called at all (no provider_calls entry).
func (s *Server) budgeted(provider string, src Source) Source {
	b := budgetedSource{s: s, provider: provider, src: src}
	if booker, ok := src.(Booker); ok {
		return budgetedBooker{b, booker}
	}
	return b
}

type budgetedSource struct {
	s        *Server
	provider string
	src      Source
}

func (b budgetedSource) spend(ctx context.Context) error {
	if wait, ok := b.s.limits.allow(ctx, "provider:"+b.provider, b.s.limits.budget); !ok {
		return &SourceError{Code: mcptypes.ProviderErrorCodeRateLimited, RetryAfter: time.Duration(limits.RetryAfterSeconds(wait)) * time.Second,
			Message: fmt.Sprintf("Relay's request budget for %s is spent for now", b.provider)}
	}
	return nil
}

func (b budgetedSource) Quote(ctx context.Context, trip Trip, rec Recorder) ([]Quote, error) {
	if err := b.spend(ctx); err != nil {
		return nil, err
	}
	return b.src.Quote(ctx, trip, rec)
}

type budgetedBooker struct {
	budgetedSource
	booker Booker
}

func (b budgetedBooker) BookingLink(ctx context.Context, trip Trip, product ProductEntry, rec Recorder) (string, error) {
	if err := b.spend(ctx); err != nil {
		return "", err
	}
	return b.booker.BookingLink(ctx, trip, product, rec)
}

// limitsFromEnv reads RELAY_RATE_LIMIT and RELAY_PROVIDER_BUDGET (calls
// per minute; RELAY_RATE_LIMIT=0 turns the actor limit off) and sets
// o.Redis: the host's client when [WithRedis] gave one, else, with
// REDIS_URL, a client of Relay's own under REDIS_KEY_PREFIX (default
// "trident-mcp:") + "relay:", checked with a PING so a wrong URL fails at
// start, its calls bounded by REDIS_TIMEOUT, and closed with the endpoint.
func limitsFromEnv(ctx context.Context, o *Options, getenv func(string) string, e envOptions) error {
	for _, v := range []struct {
		name string
		dst  *limits.Limit
		zero int // what 0 means
	}{{"RELAY_RATE_LIMIT", &o.ActorLimit, -1}, {"RELAY_PROVIDER_BUDGET", &o.ProviderBudget, 0}} {
		s := getenv(v.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || (n == 0 && v.zero == 0) {
			return fmt.Errorf("relay: %s=%q: want a positive number of calls per minute", v.name, s)
		}
		if n == 0 {
			*v.dst = limits.Limit{Rate: v.zero}
			continue
		}
		*v.dst = limits.PerMinute(n)
	}
	if e.redis != nil {
		o.Redis, o.RedisPrefix = e.redis, e.redisPrefix
		return nil
	}
	url := getenv("REDIS_URL")
	if url == "" {
		return nil
	}
	prefix := getenv("REDIS_KEY_PREFIX")
	if prefix == "" {
		prefix = "trident-mcp:"
	}
	var timeout time.Duration
	if s := getenv("REDIS_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("relay: REDIS_TIMEOUT=%q: want a positive duration such as 250ms", s)
		}
		timeout = d
	}
	client, err := limits.Connect(ctx, url, limits.ConnectOptions{Timeout: timeout})
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	o.Redis, o.RedisPrefix, o.CloseLimiter = client, prefix+"relay:", client.Close
	return nil
}

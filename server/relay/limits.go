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
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

// accessLimits are Relay's per-actor rate limit and per-provider request
// budgets, counted by one [limits.Limiter]: in process by default, shared
// by every replica through Redis when REDIS_URL is set, so a caller
// limited on one replica is limited on the others, and a provider's budget
// is one budget for the whole deployment.
type accessLimits struct {
	lim           limits.Limiter
	actor, budget limits.Limit
	actorOff      bool // RELAY_RATE_LIMIT=0
	log           *slog.Logger
}

func newAccessLimits(o *Options) *accessLimits {
	a := &accessLimits{lim: o.Limiter, log: o.Logger,
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

// coolingDown is how long provider still cools down after a 429 (or a
// spent budget): on every replica when they share Redis, else on this one.
// An answer Redis could not give is this replica's own, and logged.
func (s *endpoint) coolingDown(ctx context.Context, provider string) time.Duration {
	d, err := s.cooldowns.Remaining(ctx, provider)
	if err != nil {
		s.log.Log(ctx, unavailableLevel(err), "relay: cool-down store unavailable; answering from this replica's own", "provider", provider, "error", err.Error())
	}
	return d
}

// coolDown leaves provider alone for wait: no search asks it, and
// resolve_ride refuses its options, until the wait has passed.
func (s *endpoint) coolDown(ctx context.Context, provider string, wait time.Duration) {
	s.obs.cooledDown(provider)
	if err := s.cooldowns.Hold(ctx, provider, wait); err != nil {
		s.log.Log(ctx, unavailableLevel(err), "relay: cool-down store unavailable; this replica alone holds the cool-down", "provider", provider, "error", err.Error())
	}
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
func (s *endpoint) limited(tool string, h mcp.ToolHandler) mcp.ToolHandler {
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
func (s *endpoint) budgeted(provider string, src sources.Source) sources.Source {
	b := budgetedSource{s: s, provider: provider, src: src}
	if booker, ok := src.(sources.Booker); ok {
		return budgetedBooker{b, booker}
	}
	return b
}

type budgetedSource struct {
	s        *endpoint
	provider string
	src      sources.Source
}

func (b budgetedSource) spend(ctx context.Context) error {
	if wait, ok := b.s.limits.allow(ctx, "provider:"+b.provider, b.s.limits.budget); !ok {
		b.s.obs.budgetExhausted(b.provider)
		return &sources.Error{Code: mcptypes.ProviderErrorCodeRateLimited, RetryAfter: time.Duration(limits.RetryAfterSeconds(wait)) * time.Second,
			Message: fmt.Sprintf("Relay's request budget for %s is spent for now", b.provider)}
	}
	return nil
}

func (b budgetedSource) Quote(ctx context.Context, trip sources.Trip, rec sources.Recorder) ([]sources.Quote, error) {
	if err := b.spend(ctx); err != nil {
		return nil, err
	}
	trip.Spend = b.spend
	return b.src.Quote(ctx, trip, rec)
}

type budgetedBooker struct {
	budgetedSource
	booker sources.Booker
}

func (b budgetedBooker) BookingLink(ctx context.Context, trip sources.Trip, product registry.ProductEntry, rec sources.Recorder) (string, error) {
	if err := b.spend(ctx); err != nil {
		return "", err
	}
	return b.booker.BookingLink(ctx, trip, product, rec)
}

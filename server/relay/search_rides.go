package relay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/journey"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// defaultCooldown is how long a provider that answered 429 without a
// Retry-After is left alone.
const defaultCooldown = 30 * time.Second

// searchRequest is search_rides' input with the journey's fields applied:
// explicit input first, then journey_context, then what the journey already
// holds.
type searchRequest struct {
	pickup, dropoff *mcptypes.Coordinates
	party           int
	currency        string
	limit           int
	requested       []string // provider ids in the caller's order; nil: every provider
}

func newSearchRequest(in mcptypes.SearchRidesInput, f journey.Fields) searchRequest {
	r := searchRequest{pickup: in.Pickup, dropoff: in.Dropoff, limit: DefaultLimit, currency: f.Currency}
	if f.PartySize != nil {
		r.party = *f.PartySize
	}
	if in.Limit != nil {
		r.limit = int(*in.Limit)
	}
	for _, id := range in.Providers {
		if !slices.Contains(r.requested, string(id)) {
			r.requested = append(r.requested, string(id))
		}
	}
	if in.Providers == nil {
		r.requested = nil
	}
	return r
}

// explicitFields are search_rides' own journey fields, which take
// precedence over journey_context.
func explicitFields(in mcptypes.SearchRidesInput) journey.Fields {
	var f journey.Fields
	if in.DestinationCity != nil {
		f.DestinationCity = *in.DestinationCity
	}
	if in.PartySize != nil {
		n := int(*in.PartySize)
		f.PartySize = &n
	}
	if in.Currency != nil {
		f.Currency = *in.Currency
	}
	return f
}

func (r searchRequest) wants(id string) bool {
	return r.requested == nil || slices.Contains(r.requested, id)
}

// missing lists the required inputs of p the request lacks. Both ends are
// always required of an API source (a [sources.Trip] has both), whatever the
// registry lists.
func (r searchRequest) missing(p registry.Provider) []string {
	out := []string{}
	for _, f := range append([]string{"pickup", "dropoff"}, p.API.RequiredInputs...) {
		if slices.Contains(out, f) {
			continue
		}
		if (f == "pickup" && r.pickup == nil) || (f == "dropoff" && r.dropoff == nil) || (f == "party_size" && r.party == 0) {
			out = append(out, f)
		}
	}
	return out
}

// selected is an eligible source picked for this search.
type selected struct {
	p     registry.Provider
	src   sources.Source
	index int // in the providers[] answer
}

// plan gives every provider its status and picks at most MaxSources
// eligible API sources, in the caller's provider order or else registry
// order. Eligibility, in order: requested; credentials (or authorization)
// configured; required inputs present; trip in coverage; not cooling down.
// skipped counts the eligible providers left out for a cool-down: the
// search lacks their answers as it would a failed source's, so it is
// partial when it has options (the specification's "Rate limit or
// unavailable provider ... use surviving options").
func (s *endpoint) plan(ctx context.Context, r searchRequest) (statuses []mcptypes.ProviderStatus, picked []selected, skipped int) {
	statuses = make([]mcptypes.ProviderStatus, len(s.registry.Providers))
	eligible := map[string]int{}
	for i, p := range s.registry.Providers {
		st := mcptypes.ProviderStatus{Provider: p.ID, Name: p.Name, Kind: mcptypes.ProviderStatusKind(p.Kind), MissingFields: []string{}}
		set := func(status mcptypes.ProviderStatusStatus, reason string) {
			st.Status = status
			if reason != "" {
				st.Reason = &reason
			}
		}
		switch {
		case !r.wants(p.ID):
			set(mcptypes.ProviderStatusStatusNotSelected, "not among the requested providers")
		case p.Kind == "handoff":
			set(mcptypes.ProviderStatusStatusHandoffOnly, "no API source; see browser_handoffs")
		case s.sources[p.ID] == nil && len(p.API.Credentials) > 0:
			set(mcptypes.ProviderStatusStatusCredentialsRequired, "the operator has not configured credentials for this source")
		case s.sources[p.ID] == nil:
			set(mcptypes.ProviderStatusStatusNotEligible, "this source is disabled on this server")
		case p.API.Authorized != nil && !*p.API.Authorized:
			set(mcptypes.ProviderStatusStatusApiAuthorizationRequired, "the operator has no API authorization for this source")
		case len(r.missing(p)) > 0:
			st.MissingFields = r.missing(p)
			set(mcptypes.ProviderStatusStatusInputRequired, "the request lacks inputs this source needs")
		case !p.Covers(r.pickup, r.dropoff):
			set(mcptypes.ProviderStatusStatusNotEligible, "the trip is outside this source's coverage: "+coverageText(p))
		default:
			if wait := s.coolingDown(ctx, p.ID); wait > 0 {
				n := ceilSeconds(wait)
				set(mcptypes.ProviderStatusStatusRateLimited, fmt.Sprintf("cooling down after a rate limit; retry after %d seconds", n))
				st.RetryAfterSeconds = &n
				skipped++
				break
			}
			eligible[p.ID] = i
		}
		statuses[i] = st
	}
	order := r.requested
	if order == nil {
		for _, p := range s.registry.Providers {
			order = append(order, p.ID)
		}
	}
	for _, id := range order {
		i, ok := eligible[id]
		if !ok {
			continue
		}
		if len(picked) == MaxSources {
			reason := fmt.Sprintf("%d sources were already queried for this search", MaxSources)
			statuses[i].Status, statuses[i].Reason = mcptypes.ProviderStatusStatusNotSelected, &reason
			continue
		}
		picked = append(picked, selected{p: s.registry.Providers[i], src: s.sources[id], index: i})
	}
	return statuses, picked, skipped
}

func coverageText(p registry.Provider) string { return p.CoverageText() }

func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

// answer is what one source returned.
type answer struct {
	quotes []sources.Quote
	err    *sources.Error
}

// query asks the picked sources concurrently, each under the per-call
// timeout, and lists every attempt in source order.
func (s *endpoint) query(ctx context.Context, picked []selected, trip sources.Trip) ([]answer, []mcptypes.ProviderCall) {
	answers := make([]answer, len(picked))
	perSource := make([][]mcptypes.ProviderCall, len(picked))
	one := func(i int) {
		sel := picked[i]
		var mu sync.Mutex
		rec := func(a sources.Attempt) {
			mu.Lock()
			defer mu.Unlock()
			perSource[i] = append(perSource[i], providerCall(sel.p.ID, a))
		}
		t := trip
		if t.Products == nil {
			t.Products = productsFor(sel.p)
		}
		answers[i] = s.ask(ctx, sel, t, rec)
	}
	// Every source but the last is asked in a goroutine of its own; the
	// last is asked in the caller's, whose stack has grown already: a fresh
	// goroutine's stack grows through the client, Trident's front door and
	// its decoding on every search (copystack: 57 µs of a search's ~1.1 ms
	// of CPU when the in-process Trident was the one source asked).
	var wg sync.WaitGroup
	for i := range len(picked) - 1 {
		wg.Go(func() { one(i) })
	}
	if len(picked) > 0 {
		one(len(picked) - 1)
	}
	wg.Wait()
	calls := []mcptypes.ProviderCall{}
	for _, c := range perSource {
		calls = append(calls, c...)
	}
	return answers, calls
}

// ask runs one source under the per-call timeout; a 429 puts the provider
// in cool-down for its Retry-After, on every replica when they share Redis.
func (s *endpoint) ask(ctx context.Context, sel selected, t sources.Trip, rec sources.Recorder) answer {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	quotes, err := sel.src.Quote(cctx, t, rec)
	a := answer{quotes: quotes}
	if err != nil {
		a.err = sources.AsError(err)
		s.log.WarnContext(ctx, "relay: source failed", "provider", sel.p.ID, "code", string(a.err.Code), "error", a.err.Error())
		if a.err.Code == mcptypes.ProviderErrorCodeRateLimited {
			// Held even when the caller has gone: the provider still said 429.
			s.coolDown(context.WithoutCancel(ctx), sel.p.ID, cooldownOf(a.err))
		}
	}
	return a
}

// cooldownOf is how long a rate-limited provider is left alone: its
// Retry-After, or defaultCooldown when it gave none.
func cooldownOf(e *sources.Error) time.Duration {
	if e.RetryAfter > 0 {
		return e.RetryAfter
	}
	return defaultCooldown
}

func providerCall(provider string, a sources.Attempt) mcptypes.ProviderCall {
	c := mcptypes.ProviderCall{Provider: provider, Operation: a.Operation, Outcome: a.Outcome, DurationMs: a.Duration.Milliseconds(), Options: int64(a.Options)}
	if a.HTTPStatus != 0 {
		st := int64(a.HTTPStatus)
		c.HttpStatus = &st
	}
	return c
}

func providerError(provider string, e *sources.Error) mcptypes.ProviderError {
	pe := mcptypes.ProviderError{Provider: provider, Code: e.Code, Message: e.Message, Retryable: e.Retryable()}
	if e.RetryAfter > 0 {
		n := ceilSeconds(e.RetryAfter)
		pe.RetryAfterSeconds = &n
	}
	return pe
}

func (s *endpoint) searchRides(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = mcptypes.ToolSearchRides
	var in mcptypes.SearchRidesInput
	if r := s.inputs.decode(tool, req.Params.Arguments, &in); r != nil {
		return s.refuse(ctx, tool, r)
	}
	var unknown []mcptypes.FieldProblem
	for i, id := range in.Providers {
		if _, ok := s.registry.Lookup(string(id)); !ok {
			unknown = append(unknown, mcptypes.FieldProblem{Field: fmt.Sprintf("/providers/%d", i), Reason: s.unknownProvider(string(id))})
		}
	}
	if len(unknown) > 0 {
		return s.refuse(ctx, tool, invalidArguments(unknown...))
	}
	given, err := fieldsOf(in.JourneyContext, "journey_context")
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	asked, err := journey.Combine(explicitFields(in), "", given, "journey_context")
	if err != nil {
		return s.fail(ctx, tool, fieldRefusal(err, ""))
	}
	act := actor(ctx, req)
	c, err := s.callContext(ctx, act, tool, in.Context, true)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	rc := c.rc
	fields := journey.Merge(asked, c.fields)
	cc, err := continuation(fields)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	sr := newSearchRequest(in, fields)
	statuses, picked, skipped := s.plan(ctx, sr)

	out := mcptypes.SearchRidesResult{
		Options:             []mcptypes.RideOption{},
		BrowserHandoffs:     s.handoffs(sr),
		Providers:           statuses,
		ProviderCalls:       []mcptypes.ProviderCall{},
		Errors:              []mcptypes.ProviderError{},
		RelayContext:        rc,
		ContinuationContext: cc,
	}
	// A source that failed, or an eligible one skipped for its cool-down,
	// makes a search with options partial.
	failed := skipped > 0
	if len(picked) > 0 {
		trip := sources.Trip{Pickup: *sr.pickup, Dropoff: *sr.dropoff, PartySize: sr.party, Currency: sr.currency}
		answers, calls := s.query(ctx, picked, trip)
		out.ProviderCalls = calls
		b := signing.Binding{Actor: act, SessionID: rc.SessionID, JourneyID: rc.JourneyID}
		perSource := make([][]mcptypes.RideOption, len(picked))
		for i, a := range answers {
			sel := picked[i]
			st := &out.Providers[sel.index]
			for _, q := range a.quotes {
				o, err := s.issue(b, sel.p, trip, q)
				if err != nil {
					return nil, fmt.Errorf("relay: signing an option: %w", err)
				}
				perSource[i] = append(perSource[i], o)
			}
			switch {
			case a.err == nil:
				st.Status = mcptypes.ProviderStatusStatusOk
			case len(a.quotes) > 0:
				st.Status = mcptypes.ProviderStatusStatusOk
				failed = true
			case a.err.Code == mcptypes.ProviderErrorCodeRateLimited:
				st.Status = mcptypes.ProviderStatusStatusRateLimited
				n := ceilSeconds(cooldownOf(a.err))
				st.RetryAfterSeconds = &n
				failed = true
			default:
				st.Status = mcptypes.ProviderStatusStatusFailed
				failed = true
			}
			if a.err != nil {
				reason := a.err.Message
				st.Reason = &reason
				out.Errors = append(out.Errors, providerError(sel.p.ID, a.err))
			}
		}
		out.Options = roundRobin(perSource, sr.limit)
	}
	switch {
	case len(out.Options) > 0 && failed:
		out.Status = mcptypes.SearchRidesResultStatusPartial
	case len(out.Options) > 0:
		out.Status = mcptypes.SearchRidesResultStatusOk
	case len(out.BrowserHandoffs) > 0:
		out.Status = mcptypes.SearchRidesResultStatusHandoffAvailable
	default:
		out.Status = mcptypes.SearchRidesResultStatusAccessRequired
	}
	s.obs.search(out.Status)
	event := store.Event{Kind: store.EventRequest, Tool: tool, Status: string(out.Status)}
	if len(out.Options) > 0 {
		event.RequestScope = out.Options[0].RequestScope
	}
	if err := s.saveAndRecord(ctx, act, c, &fields, event); err != nil {
		return nil, err
	}
	return result(out, false)
}

// roundRobin takes options from each source in turn, so that the limit
// never lets the first source crowd out the second.
func roundRobin(per [][]mcptypes.RideOption, limit int) []mcptypes.RideOption {
	n := 0
	for _, l := range per {
		n += len(l)
	}
	out := make([]mcptypes.RideOption, 0, min(n, limit))
	for i := 0; len(out) < limit; i++ {
		took := false
		for _, l := range per {
			if i < len(l) && len(out) < limit {
				out = append(out, l[i])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// handoffs are the providers' browser paths for this request, independent
// of API results: one per requested provider that has a link or an entry
// page, in registry order. A provider with declared coverage is left out
// when the trip's coordinates are known and outside it
// ([registry.Provider.OffersHandoff], get_ride_booking_handoff's rule too).
func (s *endpoint) handoffs(r searchRequest) []mcptypes.BrowserHandoff {
	out := []mcptypes.BrowserHandoff{}
	for _, p := range s.registry.Providers {
		if !r.wants(p.ID) {
			continue
		}
		if !p.OffersHandoff(r.pickup, r.dropoff) {
			continue
		}
		if h, ok := p.Handoff(r.pickup, r.dropoff); ok {
			out = append(out, h)
		}
	}
	return out
}

// unknownProvider is the refusal reason for a provider id this server's
// registry lacks (one the schema's enum lists but the operator's
// RELAY_PROVIDERS_FILE leaves out), naming the ids it has.
func (s *endpoint) unknownProvider(id string) string {
	ids := make([]string, len(s.registry.Providers))
	for i, p := range s.registry.Providers {
		ids[i] = p.ID
	}
	return fmt.Sprintf("unknown provider id %q: use one of %s", id, strings.Join(ids, ", "))
}

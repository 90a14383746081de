package relay

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// Relay's own series (relay_…), handed to the host through
// mcphttp.Endpoint.Collectors, which adds the endpoint label; and its
// spans: one per source asked (relay.source), one per store operation
// (relay.store), under the front door's span of the tool call. Every
// label value is a closed set: provider ids from the registry, outcomes
// and statuses from the contracts, store operations from the Store
// interface, signature-refusal reasons from [refusalReason].
const (
	// ProviderCalls counts upstream attempts {provider, outcome}: the
	// provider_calls entries, outcome as the contract names them (ok,
	// rate_limited, failed, timeout, unauthorized, malformed).
	ProviderCalls = "relay_provider_calls_total"
	// ProviderCallDuration is an upstream attempt's latency {provider, outcome}.
	ProviderCallDuration = "relay_provider_call_duration_seconds"
	// ProviderBudgetSpent counts requests not sent because the provider's
	// request budget was spent {provider}.
	ProviderBudgetSpent = "relay_provider_budget_exhausted_total"
	// ProviderBudget is each provider's request budget per minute {provider}.
	ProviderBudget = "relay_provider_budget_per_minute"
	// ProviderCooldowns counts cool-downs started (an upstream 429 or a
	// spent budget) {provider}.
	ProviderCooldowns = "relay_provider_cooldowns_total"
	// ProviderCooldownRemaining is how long the provider still cools down,
	// 0 when it does not, read at scrape time from the (shared) cool-down
	// store {provider}.
	ProviderCooldownRemaining = "relay_provider_cooldown_remaining_seconds"
	// Searches counts search_rides results by status {status}: ok, partial,
	// handoff_available, access_required.
	Searches = "relay_searches_total"
	// SignatureRefusals counts invalid_option and invalid_context refusals
	// by reason {reason}.
	SignatureRefusals = "relay_signature_refusals_total"
	// StoreDuration is a store operation's latency {operation}.
	StoreDuration = "relay_store_operation_duration_seconds"
	// StoreErrors counts store operations that failed {operation}; a record
	// not found or of another actor is an answer, not an error.
	StoreErrors = "relay_store_errors_total"
	// EventsRecorded counts retained events {kind}: request, selection,
	// handoff, outcome.
	EventsRecorded = "relay_events_recorded_total"
	// EventsPurged counts what the retention purge deleted {kind}: events,
	// connector_reports, intents, journeys, sessions.
	EventsPurged = "relay_purged_total"
)

// storeBuckets span an in-process SQLite read (tens of microseconds) to a
// PostgreSQL transaction over a slow network.
var storeBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}

// providerBuckets span an in-process Trident quote to a provider timing
// out (the per-call timeout is seconds).
var providerBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// observer holds Relay's collectors.
type observer struct {
	providerCalls    *prometheus.CounterVec
	providerDuration *prometheus.HistogramVec
	budgetSpent      *prometheus.CounterVec
	cooldowns        *prometheus.CounterVec
	searches         *prometheus.CounterVec
	refusals         *prometheus.CounterVec
	storeDuration    *prometheus.HistogramVec
	storeErrors      *prometheus.CounterVec
	recorded         *prometheus.CounterVec
	purged           *prometheus.CounterVec
	state            *providerState
}

func newObserver(s *endpoint) *observer {
	o := &observer{
		providerCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ProviderCalls,
			Help: "Upstream provider attempts by provider and outcome (ok, rate_limited, failed, timeout, unauthorized, malformed), as provider_calls lists them."},
			[]string{"provider", "outcome"}),
		providerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: ProviderCallDuration,
			Help: "Latency of an upstream provider attempt, by provider and outcome.", Buckets: providerBuckets},
			[]string{"provider", "outcome"}),
		budgetSpent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ProviderBudgetSpent,
			Help: "Provider requests not sent because the provider's request budget (RELAY_PROVIDER_BUDGET) was spent."},
			[]string{"provider"}),
		cooldowns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ProviderCooldowns,
			Help: "Provider cool-downs started, after an upstream 429 or a spent budget."},
			[]string{"provider"}),
		searches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: Searches,
			Help: "search_rides results by status (ok, partial, handoff_available, access_required); refusals are in mcp_tool_calls_total."},
			[]string{"status"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: SignatureRefusals,
			Help: "invalid_option and invalid_context refusals by reason."},
			[]string{"reason"}),
		storeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: StoreDuration,
			Help: "Latency of a Relay store operation (SQLite or PostgreSQL), by operation.", Buckets: storeBuckets},
			[]string{"operation"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: StoreErrors,
			Help: "Relay store operations that failed, by operation (not found and another actor's are answers, not errors)."},
			[]string{"operation"}),
		recorded: prometheus.NewCounterVec(prometheus.CounterOpts{Name: EventsRecorded,
			Help: "Events retained in the store, by kind (request, selection, handoff, outcome)."},
			[]string{"kind"}),
		purged: prometheus.NewCounterVec(prometheus.CounterOpts{Name: EventsPurged,
			Help: "Rows the retention purge deleted, by kind (events, connector_reports, intents, journeys, sessions)."},
			[]string{"kind"}),
		state: &providerState{s: s},
	}
	// Every provider and outcome from the start, so that rates and alerts
	// see a zero rather than no series before the first failure.
	for _, p := range s.registry.Providers {
		if p.Kind != "api" {
			continue
		}
		for _, oc := range mcptypes.ProviderCallOutcomeValues {
			o.providerCalls.WithLabelValues(p.ID, string(oc))
		}
		o.budgetSpent.WithLabelValues(p.ID)
		o.cooldowns.WithLabelValues(p.ID)
	}
	for _, st := range []mcptypes.SearchRidesResultStatus{mcptypes.SearchRidesResultStatusOk, mcptypes.SearchRidesResultStatusPartial,
		mcptypes.SearchRidesResultStatusHandoffAvailable, mcptypes.SearchRidesResultStatusAccessRequired} {
		o.searches.WithLabelValues(string(st))
	}
	for _, op := range storeOperations {
		o.storeErrors.WithLabelValues(op)
	}
	for _, r := range refusalReasons {
		o.refusals.WithLabelValues(r)
	}
	for _, k := range []store.EventKind{store.EventRequest, store.EventSelection, store.EventHandoff, store.EventOutcome} {
		o.recorded.WithLabelValues(string(k))
	}
	for _, k := range purgedKinds {
		o.purged.WithLabelValues(k)
	}
	return o
}

func (o *observer) collectors() []prometheus.Collector {
	return []prometheus.Collector{o.providerCalls, o.providerDuration, o.budgetSpent, o.cooldowns, o.searches,
		o.refusals, o.storeDuration, o.storeErrors, o.recorded, o.purged, o.state}
}

// search counts one search_rides result.
func (o *observer) search(status mcptypes.SearchRidesResultStatus) {
	o.searches.WithLabelValues(string(status)).Inc()
}

// budgetExhausted counts one request a spent budget held back.
func (o *observer) budgetExhausted(provider string) { o.budgetSpent.WithLabelValues(provider).Inc() }

// cooledDown counts one cool-down started.
func (o *observer) cooledDown(provider string) { o.cooldowns.WithLabelValues(provider).Inc() }

// refused counts a refusal when it is a signature refusal.
func (o *observer) refused(r *refusal) {
	if reason := refusalReason(r); reason != "" {
		o.refusals.WithLabelValues(reason).Inc()
	}
}

// refusalReason names why an option or a context was refused: expired, a
// signature that does not verify (tampered, or presented under another
// actor, session or journey: the MAC cannot tell those apart), an option
// presented without its context, a journey the store does not know or
// that is another actor's, a journey not in the context's session. ""
// for refusals of other kinds.
func refusalReason(r *refusal) string {
	switch r.out.Status {
	case mcptypes.RefusalStatusInvalidOption:
		switch {
		case errors.Is(r.cause, errExpired):
			return "option_expired"
		case errors.Is(r.cause, errNoContext):
			return "option_without_context"
		case errors.Is(r.cause, errSignature):
			return "option_signature"
		}
		return "option_other" // its provider left the registry, an unreadable expiry
	case mcptypes.RefusalStatusInvalidContext:
		switch {
		case errors.Is(r.cause, store.ErrNotFound):
			return "context_unknown_journey"
		case errors.Is(r.cause, store.ErrForeignActor):
			return "context_foreign_actor"
		case errors.Is(r.cause, errSessionMismatch):
			return "context_session_mismatch"
		case errors.Is(r.cause, errSignature):
			return "context_signature"
		}
		return "context_other"
	}
	return ""
}

// refusalReasons are every value [refusalReason] gives.
var refusalReasons = []string{"option_expired", "option_without_context", "option_signature", "option_other",
	"context_unknown_journey", "context_foreign_actor", "context_session_mismatch", "context_signature", "context_other"}

// purgedKinds are the kind label's values of [EventsPurged].
var purgedKinds = []string{"events", "connector_reports", "intents", "journeys", "sessions"}

// Sentinels refusalReason tells apart; the refusals wrap them.
var (
	errNoContext       = errors.New("no context given")
	errSignature       = errors.New("signature does not verify")
	errSessionMismatch = errors.New("is not in session")
)

// providerState reports each API provider's budget and cool-down at
// scrape time: the cool-down as the cool-down store (Redis when shared)
// answers, so every replica shows the deployment's state.
type providerState struct{ s *endpoint }

var (
	budgetDesc   = prometheus.NewDesc(ProviderBudget, "Each provider's request budget per minute (RELAY_PROVIDER_BUDGET), from all callers.", []string{"provider"}, nil)
	cooldownDesc = prometheus.NewDesc(ProviderCooldownRemaining, "Seconds the provider still cools down after a 429 or a spent budget (0: not cooling down), as the cool-down store answers.", []string{"provider"}, nil)
)

func (p *providerState) Describe(ch chan<- *prometheus.Desc) { ch <- budgetDesc; ch <- cooldownDesc }

func (p *providerState) Collect(ch chan<- prometheus.Metric) {
	b := p.s.limits.budget
	perMinute := float64(b.Rate)
	if b.Period > 0 {
		perMinute = float64(b.Rate) * float64(time.Minute) / float64(b.Period)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for id := range p.s.sources {
		ch <- prometheus.MustNewConstMetric(budgetDesc, prometheus.GaugeValue, perMinute, id)
		wait, _ := p.s.cooldowns.Remaining(ctx, id) // an unavailable Redis: this replica's own answer
		ch <- prometheus.MustNewConstMetric(cooldownDesc, prometheus.GaugeValue, wait.Seconds(), id)
	}
}

// observed wraps a configured source: a span per source asked, and each
// upstream attempt it records counted by provider and outcome.
func (s *endpoint) observed(provider string, src sources.Source) sources.Source {
	o := observedSource{s: s, provider: provider, src: src}
	if booker, ok := src.(sources.Booker); ok {
		return observedBooker{o, booker}
	}
	return o
}

type observedSource struct {
	s        *endpoint
	provider string
	src      sources.Source
}

// recorder counts each attempt, then passes it on.
func (o observedSource) recorder(rec sources.Recorder) sources.Recorder {
	return func(a sources.Attempt) {
		o.s.obs.providerCalls.WithLabelValues(o.provider, string(a.Outcome)).Inc()
		o.s.obs.providerDuration.WithLabelValues(o.provider, string(a.Outcome)).Observe(a.Duration.Seconds())
		rec(a)
	}
}

func (o observedSource) start(ctx context.Context, op string) (context.Context, trace.Span) {
	ctx, span := telemetry.Start(ctx, "relay.source "+o.provider)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("relay.provider", o.provider), attribute.String("relay.operation", op))
	}
	return ctx, span
}

func endSource(span trace.Span, err error) {
	if err != nil {
		telemetry.Fail(span, string(sources.AsError(err).Code))
	}
	span.End()
}

func (o observedSource) Quote(ctx context.Context, trip sources.Trip, rec sources.Recorder) ([]sources.Quote, error) {
	ctx, span := o.start(ctx, "quote")
	q, err := o.src.Quote(ctx, trip, o.recorder(rec))
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("relay.quotes", len(q)))
	}
	endSource(span, err)
	return q, err
}

type observedBooker struct {
	observedSource
	booker sources.Booker
}

func (o observedBooker) BookingLink(ctx context.Context, trip sources.Trip, product registry.ProductEntry, rec sources.Recorder) (string, error) {
	ctx, span := o.start(ctx, "booking_link")
	link, err := o.booker.BookingLink(ctx, trip, product, o.recorder(rec))
	endSource(span, err)
	return link, err
}

// storeOperations are the Store methods observedStore times, the values
// of the operation label.
var storeOperations = []string{"begin", "session", "new_journey", "journey", "set_journey_context", "new_intent", "intent",
	"report_connectors", "connector_report", "record_event", "events", "write_call", "purge", "ping"}

// observedStore times every store operation, counts its failures, the
// events it retains and the rows the purge deletes, and makes each a
// client span (relay.store <operation>) under the call's. Ping, which
// /readyz calls every few seconds, is timed but not traced.
type observedStore struct {
	store.Store
	obs *observer
}

func (o observedStore) WriteCall(ctx context.Context, actor string, w store.CallWrites) ([]store.Event, error) {
	ctx, done := o.op(ctx, "write_call")
	r, err := o.Store.WriteCall(ctx, actor, w)
	done(err)
	if err == nil {
		for _, e := range w.Events {
			o.obs.recorded.WithLabelValues(string(e.Kind)).Inc()
		}
	}
	return r, err
}

func (o observedStore) op(ctx context.Context, name string) (context.Context, func(error)) {
	start := time.Now()
	var span trace.Span
	if name != "ping" {
		ctx, span = telemetry.StartClient(ctx, "relay.store "+name)
		if span.IsRecording() {
			span.SetAttributes(attribute.String("db.operation.name", name))
		}
	}
	return ctx, func(err error) {
		o.obs.storeDuration.WithLabelValues(name).Observe(time.Since(start).Seconds())
		if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrForeignActor) {
			o.obs.storeErrors.WithLabelValues(name).Inc()
			if span != nil {
				telemetry.Fail(span, "store error")
			}
		}
		if span != nil {
			span.End()
		}
	}
}

func (o observedStore) Begin(ctx context.Context, actor, tool string, jc json.RawMessage) (store.Refs, error) {
	ctx, done := o.op(ctx, "begin")
	r, err := o.Store.Begin(ctx, actor, tool, jc)
	done(err)
	return r, err
}

func (o observedStore) Session(ctx context.Context, actor, sessionID string) (store.Session, error) {
	ctx, done := o.op(ctx, "session")
	r, err := o.Store.Session(ctx, actor, sessionID)
	done(err)
	return r, err
}

func (o observedStore) NewJourney(ctx context.Context, actor, sessionID string, jc json.RawMessage) (store.Journey, error) {
	ctx, done := o.op(ctx, "new_journey")
	r, err := o.Store.NewJourney(ctx, actor, sessionID, jc)
	done(err)
	return r, err
}

func (o observedStore) Journey(ctx context.Context, actor, journeyID string) (store.Journey, error) {
	ctx, done := o.op(ctx, "journey")
	r, err := o.Store.Journey(ctx, actor, journeyID)
	done(err)
	return r, err
}

func (o observedStore) SetJourneyContext(ctx context.Context, actor, journeyID string, jc json.RawMessage) (store.Journey, error) {
	ctx, done := o.op(ctx, "set_journey_context")
	r, err := o.Store.SetJourneyContext(ctx, actor, journeyID, jc)
	done(err)
	return r, err
}

func (o observedStore) NewIntent(ctx context.Context, actor, journeyID, tool string) (store.Intent, error) {
	ctx, done := o.op(ctx, "new_intent")
	r, err := o.Store.NewIntent(ctx, actor, journeyID, tool)
	done(err)
	return r, err
}

func (o observedStore) Intent(ctx context.Context, actor, intentID string) (store.Intent, error) {
	ctx, done := o.op(ctx, "intent")
	r, err := o.Store.Intent(ctx, actor, intentID)
	done(err)
	return r, err
}

func (o observedStore) ReportConnectors(ctx context.Context, actor string, report store.ConnectorReport) error {
	ctx, done := o.op(ctx, "report_connectors")
	err := o.Store.ReportConnectors(ctx, actor, report)
	done(err)
	return err
}

func (o observedStore) ConnectorReport(ctx context.Context, actor, sessionID string) (store.ConnectorReport, error) {
	ctx, done := o.op(ctx, "connector_report")
	r, err := o.Store.ConnectorReport(ctx, actor, sessionID)
	done(err)
	return r, err
}

func (o observedStore) RecordEvent(ctx context.Context, actor string, e store.Event) (store.Event, error) {
	ctx, done := o.op(ctx, "record_event")
	r, err := o.Store.RecordEvent(ctx, actor, e)
	done(err)
	if err == nil {
		o.obs.recorded.WithLabelValues(string(e.Kind)).Inc()
	}
	return r, err
}

func (o observedStore) Events(ctx context.Context, actor, journeyID string) ([]store.Event, error) {
	ctx, done := o.op(ctx, "events")
	r, err := o.Store.Events(ctx, actor, journeyID)
	done(err)
	return r, err
}

func (o observedStore) Purge(ctx context.Context, before time.Time) (store.Purged, error) {
	ctx, done := o.op(ctx, "purge")
	n, err := o.Store.Purge(ctx, before)
	done(err)
	for i, c := range []int64{n.Events, n.ConnectorReports, n.Intents, n.Journeys, n.Sessions} { // purgedKinds' order
		o.obs.purged.WithLabelValues(purgedKinds[i]).Add(float64(c))
	}
	return n, err
}

func (o observedStore) Ping(ctx context.Context) error {
	_, done := o.op(ctx, "ping")
	err := o.Store.Ping(ctx)
	done(err)
	return err
}

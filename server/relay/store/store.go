package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Store keeps Relay's sessions, journeys, intents, connector reports and
// retained events. Every read or write that names a session, journey or intent
// also names the actor asking: a record of another actor is [ErrForeignActor],
// an unknown one [ErrNotFound]. Implementations are safe for concurrent use,
// and a write that returned nil is durable (it survives a crash of the process).
type Store interface {
	// Begin opens a session, its first journey and that journey's first
	// intent in one transaction, owned by actor. journeyContext is the
	// journey's minimised context (see [Journey.Context]); nil stores "{}".
	Begin(ctx context.Context, actor, tool string, journeyContext json.RawMessage) (Refs, error)
	// Session reads a session of actor.
	Session(ctx context.Context, actor, sessionID string) (Session, error)
	// NewJourney opens another journey in an existing session of actor.
	NewJourney(ctx context.Context, actor, sessionID string, journeyContext json.RawMessage) (Journey, error)
	// Journey reads a journey of actor.
	Journey(ctx context.Context, actor, journeyID string) (Journey, error)
	// SetJourneyContext replaces a journey's context and bumps its UpdatedAt.
	// Callers merge first; a proposal must not call it (it changes nothing).
	SetJourneyContext(ctx context.Context, actor, journeyID string, journeyContext json.RawMessage) (Journey, error)
	// NewIntent opens an intent (one thing the passenger asked for, such as
	// a search) in a journey of actor.
	NewIntent(ctx context.Context, actor, journeyID, tool string) (Intent, error)
	// Intent reads an intent of a journey of actor.
	Intent(ctx context.Context, actor, intentID string) (Intent, error)
	// ReportConnectors stores what the host reported about a session's
	// connectors. The whole report replaces the previous one (a connector
	// left out is unreported again); a report older than the stored one is
	// ignored, so the latest report wins even when replicas race.
	ReportConnectors(ctx context.Context, actor string, report ConnectorReport) error
	// ConnectorReport reads a session's latest report. A session of actor
	// with no report yet gives a zero report (no connectors) and no error.
	ConnectorReport(ctx context.Context, actor, sessionID string) (ConnectorReport, error)
	// RecordEvent retains a request, selection, handoff or outcome signal
	// under its journey and intent, and returns it with ID and OccurredAt set.
	RecordEvent(ctx context.Context, actor string, event Event) (Event, error)
	// Events lists a journey's events in the order they were recorded.
	Events(ctx context.Context, actor, journeyID string) ([]Event, error)
	// WriteCall commits the writes that end one tool call together: either
	// all of them are durable when it returns nil, or none was made; each
	// write is checked as its one-at-a-time method checks it (ErrNotFound,
	// ErrForeignActor, ErrInvalid). The events come back with ID and
	// OccurredAt set.
	WriteCall(ctx context.Context, actor string, w CallWrites) ([]Event, error)
	// Purge deletes what has been idle since before: events that occurred
	// and reports made before it, then intents, journeys and sessions that
	// are that old and have nothing newer left under them.
	Purge(ctx context.Context, before time.Time) (Purged, error)
	// Ping checks that the database answers (for /readyz).
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// Errors a caller can tell apart with [errors.Is]. Both become Relay's
// invalid_context refusal on the wire; they are distinct so that logs and
// metrics can say which happened.
var (
	// ErrNotFound: no session, journey or intent has that id (or it was
	// purged), or the intent is not in the journey named beside it.
	ErrNotFound = errors.New("store: not found")
	// ErrForeignActor: the record exists but belongs to another actor.
	ErrForeignActor = errors.New("store: belongs to another actor")
	// ErrInvalid: the call itself is malformed (unknown event kind, a
	// required reference missing, an empty actor).
	ErrInvalid = errors.New("store: invalid input")
)

// Refs names what [Store.Begin] opened: the references Relay signs into
// relay_context.
type Refs struct {
	SessionID string
	JourneyID string
	IntentID  string
}

// Session is one host conversation of one actor. It holds no credentials:
// the actor is an opaque identity string (in OAuth mode the token's sub and
// client_id; in public mode "anonymous" with ownership resting on the signed
// context), never a token.
type Session struct {
	ID        string
	Actor     string
	CreatedAt time.Time
}

// Journey ties the calls of one trip together.
type Journey struct {
	ID        string
	SessionID string
	Actor     string
	// Context is the journey's minimised shared fields as JSON (city,
	// airport, date, party size, currency: see package journey), never
	// coordinates, payment details or conversation text. The store keeps it
	// opaque; the caller validates it before storing.
	Context   json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Intent is one thing asked for within a journey, such as a search, opened
// by Tool. Events are keyed by journey and intent.
type Intent struct {
	ID        string
	JourneyID string
	Tool      string
	CreatedAt time.Time
}

// ConnectorReport is the host's latest word on a session's connectors
// (POST /v1/session/connectors).
type ConnectorReport struct {
	SessionID  string
	Connectors []ConnectorState
	// ReportedAt orders reports; zero: the store's clock at the write.
	ReportedAt time.Time
}

// ConnectorState is one reported connector. Available is already defaulted
// (the endpoint treats an omitted "available" as true).
type ConnectorState struct {
	ID         string `json:"id"`
	Installed  bool   `json:"installed"`
	Enabled    bool   `json:"enabled"`
	Authorized bool   `json:"authorized"`
	Available  bool   `json:"available"`
}

// EventKind is the kind of a retained signal.
type EventKind string

// The signals the specification retains ("request, selection, handoff and
// known outcome signals ... using the shared journey and intent references").
const (
	EventRequest   EventKind = "request"
	EventSelection EventKind = "selection"
	EventHandoff   EventKind = "handoff"
	EventOutcome   EventKind = "outcome"
)

// Event is one retained signal. It has no field for coordinates, addresses,
// tokens or provider credentials, so none can be stored: a request is
// described by its RequestScope digest, not its route. What each kind keeps:
//
//   - request: Tool, RequestID, Status (the result status, e.g. "ok",
//     "partial") and RequestScope.
//   - selection: Provider and OptionID (required), RequestScope, and the
//     price shown (AmountMinor, Currency) so that a later outcome can be
//     compared with it.
//   - handoff: Provider (required), OptionID when the handoff was for an
//     option, Status the destination_kind handed over.
//   - outcome: Provider and Status (required): the outcome as the provider
//     confirmed it; absent confirmation is "unknown". Never a client's claim.
type Event struct {
	// ID is assigned by the store, increasing in recording order.
	ID        int64
	Kind      EventKind
	JourneyID string
	IntentID  string
	RequestID string
	Tool      string
	Provider  string
	OptionID  string
	// RequestScope is the option's request_scope: a digest of route and
	// party size, which identifies a request without revealing it.
	RequestScope string
	Status       string
	// AmountMinor is a price in the currency's minor units, when the event
	// concerns one.
	AmountMinor *int64
	Currency    string
	// OccurredAt: zero means the store's clock at the write.
	OccurredAt time.Time
}

// Purged counts what [Store.Purge] deleted.
type Purged struct {
	Events, ConnectorReports, Intents, Journeys, Sessions int64
}

// Options tunes [Open]. A nil *Options is the zero value.
type Options struct {
	// Now is the store's clock for created, updated and reported times.
	// Nil: time.Now.
	Now func() time.Time
	// BusyTimeout is how long a SQLite write waits for another writer's lock
	// before failing. Zero: 5s. PostgreSQL ignores it.
	BusyTimeout time.Duration
	// MaxConns caps the connections the store holds open, so that several
	// replicas stay within PostgreSQL's max_connections (100 by default).
	// On PostgreSQL up to a quarter of them (at most two) are the writer's,
	// one per batch committing. Zero: 16.
	MaxConns int
	// NewID mints the ids of sessions ("ses"), journeys ("jny") and intents
	// ("int") from their prefix, so that Relay's ids keep one form whatever
	// mints them. Nil: a random UUID.
	NewID func(prefix string) string
}

func (o *Options) newID() func(prefix string) string {
	if o == nil || o.NewID == nil {
		return func(string) string { return uuid.NewString() }
	}
	return o.NewID
}

func (o *Options) now() func() time.Time {
	if o == nil || o.Now == nil {
		return time.Now
	}
	return o.Now
}

func (o *Options) maxConns() int {
	if o == nil || o.MaxConns <= 0 {
		return 16
	}
	return o.MaxConns
}

func (o *Options) busyTimeout() time.Duration {
	if o == nil || o.BusyTimeout == 0 {
		return 5 * time.Second
	}
	return o.BusyTimeout
}

// CallWrites are the writes that end one tool call: the journey's new
// context and the call's events, committed in one transaction (one commit,
// one fsync on SQLite, instead of one each) by [Store.WriteCall].
type CallWrites struct {
	// Open, when not nil, is opened first, in the same transaction: a call
	// that starts a journey or a search costs no commit of its own.
	Open *Opening
	// JourneyID is the journey Context replaces the context of (with
	// Open.SessionID set, the journey Open.JourneyID opens).
	JourneyID string
	// Context is the journey's new context, as [Store.SetJourneyContext]
	// takes it; nil leaves the journey as it is.
	Context json.RawMessage
	// Events are recorded in order, as [Store.RecordEvent] records each.
	Events []Event
}

// Opening is what [CallWrites] opens before its other writes. With
// SessionID set, a session, its first journey and that journey's intent,
// as [Store.Begin] opens them (the journey's context is CallWrites.Context,
// or "{}"); with only IntentID, an intent in CallWrites.JourneyID, as
// [Store.NewIntent] opens it. The ids are the caller's, minted as
// [Options.NewID] mints the store's own, so that a call can sign them into
// its relay_context before its one commit.
type Opening struct {
	Refs
	// Tool is the tool that opened the intent.
	Tool string
}

package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/journey"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// Relay's journeys live in the store (package store), not in the signed
// context: relay_context carries only references, and every call that
// presents one is checked against the store, so a journey that was never
// opened, belongs to another actor or was purged is invalid_context even
// when its signature verifies. This is what lets a journey survive a restart
// and continue on another replica that shares RELAY_DATABASE_URL.

// call is what a tool call works under: the relay_context it answers with
// and the journey as the store kept it before the call.
type call struct {
	rc      mcptypes.RelayContext
	journey store.Journey
	fields  journey.Fields // journey.Context decoded
	// open is the session, journey or intent the call opens: written with
	// the call's last writes ([endpoint.saveAndRecord]), in its one commit.
	open *store.Opening
}

// callContext opens or continues the call's session and journey. Without a
// context it names a new session, journey and intent; with one it verifies
// the signature for act, then loads the journey from the store (which
// checks that act owns it) and, for a search (newIntent), names a new intent
// in it. What it names is opened with the call's last writes (c.open, one
// commit per call: BenchmarkSearchRidesParallel), so a call that fails
// before them opens nothing, and its caller never saw the ids. Either way
// the call gets a new request id and a freshly signed context.
func (s *endpoint) callContext(ctx context.Context, act, tool string, given *mcptypes.RelayContext, newIntent bool) (call, error) {
	var c call
	if given == nil {
		refs := store.Refs{SessionID: s.newID("ses"), JourneyID: s.newID("jny"), IntentID: s.newID("int")}
		c.open = &store.Opening{Refs: refs, Tool: tool}
		c.rc.SessionID, c.rc.JourneyID, c.rc.IntentID = refs.SessionID, refs.JourneyID, refs.IntentID
		c.journey = store.Journey{ID: refs.JourneyID, SessionID: refs.SessionID, Actor: act}
	} else {
		if err := s.keys.VerifyContext(act, *given); err != nil {
			return c, invalidContext(fmt.Errorf("%w: %w", errSignature, err))
		}
		c.rc = *given
		j, err := s.store.Journey(ctx, act, given.JourneyID)
		switch {
		case errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrForeignActor):
			return c, invalidContext(err)
		case err != nil:
			return c, fmt.Errorf("relay: reading journey %s: %w", given.JourneyID, err)
		case j.SessionID != given.SessionID:
			return c, invalidContext(fmt.Errorf("journey %s: %w %s", j.ID, errSessionMismatch, given.SessionID))
		}
		c.journey = j
		if c.fields, err = journey.Decode(j.Context); err != nil {
			return c, fmt.Errorf("relay: journey %s holds an invalid context: %w", j.ID, err)
		}
		if newIntent {
			c.open = &store.Opening{Refs: store.Refs{IntentID: s.newID("int")}, Tool: tool}
			c.rc.IntentID = c.open.IntentID
		}
	}
	c.rc.RequestID = s.newID("req")
	if err := s.keys.SignContext(act, &c.rc); err != nil {
		return c, &refusal{out: mcptypes.Refusal{Status: mcptypes.RefusalStatusInvalidContext, Message: "the context could not be signed"}, cause: err}
	}
	return c, nil
}

// record retains events under the call's journey, intent and request.
func (s *endpoint) record(ctx context.Context, act string, c call, events ...store.Event) error {
	return s.saveAndRecord(ctx, act, c, nil, events...)
}

// saveAndRecord stores f (when not nil) as the journey's context when it
// differs from what the store holds, and records events, in one commit with
// what the call opens ([store.Store.WriteCall]): a call's writes cost one
// transaction, one fsync on SQLite, instead of one each. Every call that
// answers with its relay_context ends here, so what it names exists once it
// has answered.
func (s *endpoint) saveAndRecord(ctx context.Context, act string, c call, f *journey.Fields, events ...store.Event) error {
	var changed json.RawMessage
	if f != nil {
		b, err := json.Marshal(*f)
		if err != nil {
			return err
		}
		if was, _ := json.Marshal(c.fields); !bytes.Equal(b, was) {
			changed = b
		}
	}
	if changed == nil && len(events) == 0 && c.open == nil {
		return nil
	}
	for i := range events {
		events[i].JourneyID, events[i].IntentID, events[i].RequestID = c.rc.JourneyID, c.rc.IntentID, c.rc.RequestID
	}
	if _, err := s.store.WriteCall(ctx, act, store.CallWrites{Open: c.open, JourneyID: c.journey.ID, Context: changed, Events: events}); err != nil {
		return fmt.Errorf("relay: saving journey %s and its events: %w", c.journey.ID, err)
	}
	return nil
}

// fieldsOf reads a journey_context argument as shared journey fields.
func fieldsOf(jc *mcptypes.JourneyContext, at string) (journey.Fields, error) {
	if jc == nil {
		return journey.Fields{}, nil
	}
	b, err := json.Marshal(jc)
	if err != nil {
		return journey.Fields{}, err
	}
	f, err := journey.Decode(b)
	if err != nil {
		return journey.Fields{}, fieldRefusal(err, at)
	}
	return f, nil
}

// fieldRefusal turns [journey.FieldErrors] into invalid_arguments naming
// each field as a JSON pointer ("/journey_context/end_date"); any other
// error passes through.
func fieldRefusal(err error, at string) error {
	var fe journey.FieldErrors
	if !errors.As(err, &fe) {
		return err
	}
	fe = fe.At(at)
	problems := make([]mcptypes.FieldProblem, len(fe))
	for i, e := range fe {
		problems[i] = mcptypes.FieldProblem{Field: "/" + strings.ReplaceAll(e.Field, ".", "/"), Reason: e.Reason}
	}
	return invalidArguments(problems...)
}

// continuation is the continuation_context of f: its shared fields and
// nothing else (never coordinates).
func continuation(f journey.Fields) (mcptypes.ContinuationContext, error) {
	var out mcptypes.ContinuationContext
	cf, err := journey.ContinuationContext(f)
	if err != nil {
		return out, fieldRefusal(err, "journey_context")
	}
	b, err := json.Marshal(cf)
	if err != nil {
		return out, err
	}
	return out, json.Unmarshal(b, &out)
}

// selections are the selection events of options a caller chose to
// resolve or hand off: provider, option, request scope and the price shown.
func selections(opts ...mcptypes.RideOption) []store.Event {
	out := make([]store.Event, len(opts))
	for i, o := range opts {
		amount := o.Price.AmountMinor
		out[i] = store.Event{Kind: store.EventSelection, Provider: o.Provider, OptionID: o.OptionID,
			RequestScope: o.RequestScope, AmountMinor: &amount, Currency: o.Price.Currency}
	}
	return out
}

// handoffEvents are a handoff and its outcome as far as Relay knows it:
// unknown, since only the provider confirms a ride.
func handoffEvents(h mcptypes.RideBookingHandoff) []store.Event {
	e := store.Event{Kind: store.EventHandoff, Provider: h.Provider, Status: string(h.DestinationKind)}
	if h.OptionID != nil {
		e.OptionID = *h.OptionID
	}
	return []store.Event{e, {Kind: store.EventOutcome, Provider: h.Provider, OptionID: e.OptionID, Status: "unknown"}}
}

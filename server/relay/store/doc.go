// Package store is Relay's memory: sessions, journeys, intents, the host's
// connector reports and the retained request, selection, handoff and outcome
// signals, behind one [Store] interface with two engines.
//
// SQLite is the default (RELAY_DATABASE_URL=sqlite:relay.db, the pure-Go
// modernc.org/sqlite driver, so the binary needs no cgo); PostgreSQL
// (postgres://…, through pgx) lets several replicas share one journey. Both
// run the same statements through database/sql; the schema is versioned SQL
// embedded in the binary (migrations/<engine>/), applied by goose when the
// store opens.
//
// Ownership is part of every call: a journey read or continued by an actor
// other than its owner is [ErrForeignActor], distinct from [ErrNotFound], so
// Relay can refuse both as invalid_context and still log which it was.
//
// Nothing here holds provider credentials, and the types have no field for
// coordinates: a journey's context is its minimised shared fields (cities,
// airports, dates, party size, currency) and an event names its request by
// the option's request_scope digest. Retention (RELAY_RETENTION, default 30
// days) is [Store.Purge], run on a timer by [Purger].
//
// A tool call's writes are one commit: [Store.WriteCall] opens what the call
// names (a new search's session, journey and intent), saves the journey's
// context and records the call's events together. Every write goes through
// a group-commit writer, so concurrent calls share a transaction and its
// commit: one writer on SQLite, a few on PostgreSQL, where a new search's
// four rows are also one statement.
//
//	st, err := store.Open(ctx, databaseURL, nil) // the binary's RELAY_DATABASE_URL
//	if err != nil { … }
//	defer st.Close()
//	o := store.Opening{Refs: store.Refs{SessionID: newID("ses"), JourneyID: newID("jny"), IntentID: newID("int")}, Tool: "search_rides"}
//	_, err = st.WriteCall(ctx, actor, store.CallWrites{Open: &o, JourneyID: o.JourneyID, Context: continuation,
//		Events: []store.Event{{Kind: store.EventRequest, JourneyID: o.JourneyID, IntentID: o.IntentID,
//			RequestID: requestID, Tool: "search_rides", Status: "ok"}}})
//	go (&store.Purger{Store: st, Retention: retention}).Run(ctx)
package store

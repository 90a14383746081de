package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sqlStore is the one implementation of [Store] over database/sql: both
// engines take the same statements (ON CONFLICT, RETURNING and NOT EXISTS
// read alike in SQLite and PostgreSQL), written with ? placeholders and
// rewritten to $n once at start for PostgreSQL.
type sqlStore struct {
	d     dialect
	db    *sql.DB
	now   func() time.Time
	newID func(prefix string) string
	q     queries
	// w is the group-commit writer (writer.go), through which every write
	// goes on both engines; reads go to the pool.
	w *writer
	// stmts are SQLite's prepared statements by their text (prepared.go);
	// nil for PostgreSQL.
	stmts map[string]*sql.Stmt
}

// on is q with the store's prepared statements.
func (s *sqlStore) on(q querier) preparedQuerier { return preparedQuerier{q: q, stmts: s.stmts} }

type queries struct {
	insertSession, insertJourney, insertIntent                            string
	openJourney, openIntent, openEvent                                    string
	beginPostgres, openPostgres                                           string
	session, journey, intent                                              string
	setJourneyContext                                                     string
	upsertReport, report                                                  string
	insertEvent, events                                                   string
	purgeEvents, purgeReports, purgeIntents, purgeJourneys, purgeSessions string
}

func newSQLStore(ctx context.Context, d dialect, db *sql.DB, opts *Options) (*sqlStore, error) {
	r := d.rebind
	s := &sqlStore{d: d, db: db, now: opts.now(), newID: opts.newID(), q: queries{
		insertSession: r(`INSERT INTO sessions (id, actor, created_at) VALUES (?, ?, ?)`),
		insertJourney: r(`INSERT INTO journeys (id, session_id, actor, context, created_at, updated_at)
			SELECT ?, s.id, s.actor, ?, ?, ? FROM sessions s WHERE s.id = ? AND s.actor = ?`),
		insertIntent: r(`INSERT INTO intents (id, journey_id, tool, created_at)
			SELECT ?, j.id, ?, ? FROM journeys j WHERE j.id = ? AND j.actor = ?`),
		// A call that opens its session inserts the rows under it with
		// plain VALUES: their parents are the rows it has just inserted,
		// for the same actor, so the guards of insertJourney, insertIntent
		// and insertEvent would find what they look for. It also spares
		// SQLite the statement journal it opens for an INSERT … SELECT
		// inside a transaction (its sub-journal copies every page the
		// statement touches: 9% of a search's write in
		// BenchmarkStore/sqlite/SearchWriteParallel).
		openJourney: r(`INSERT INTO journeys (id, session_id, actor, context, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
		openIntent:  r(`INSERT INTO intents (id, journey_id, tool, created_at) VALUES (?, ?, ?, ?)`),
		// SQLite reports the event's id as the last insert's rowid, without
		// the rows a RETURNING is read through (CPU per search write in
		// BenchmarkStore/sqlite/SearchWriteParallel: 187 µs with them, 144
		// without); PostgreSQL has no such id and returns it.
		openEvent: r(`INSERT INTO events (journey_id, intent_id, kind, request_id, tool, provider, option_id,
				request_scope, status, amount_minor, currency, occurred_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)` + d.returningID()),
		// PostgreSQL opens the three rows in one statement (data-modifying
		// CTEs, atomic on their own): one round trip to the server instead
		// of five (BEGIN, three INSERTs, COMMIT). $3 is the time of all three.
		beginPostgres: `WITH s AS (INSERT INTO sessions (id, actor, created_at) VALUES ($1, $2, $3) RETURNING id, actor),
			j AS (INSERT INTO journeys (id, session_id, actor, context, created_at, updated_at)
				SELECT $4, s.id, s.actor, $5, $3, $3 FROM s RETURNING id)
			INSERT INTO intents (id, journey_id, tool, created_at) SELECT $6, j.id, $7, $3 FROM j`,
		// A call that opens its session and records one event in it (a
		// new search) writes all four rows in one statement: one round
		// trip, where the transaction took four (BEGIN, the rows, the
		// event, COMMIT; BenchmarkStore/postgres/SearchWrite). The event's
		// guard is the statement itself: its intent is the one it opens.
		openPostgres: `WITH s AS (INSERT INTO sessions (id, actor, created_at) VALUES ($1, $2, $3) RETURNING id, actor),
			j AS (INSERT INTO journeys (id, session_id, actor, context, created_at, updated_at)
				SELECT $4, s.id, s.actor, $5, $3, $3 FROM s RETURNING id),
			i AS (INSERT INTO intents (id, journey_id, tool, created_at) SELECT $6, j.id, $7, $3 FROM j RETURNING id, journey_id)
			INSERT INTO events (journey_id, intent_id, kind, request_id, tool, provider, option_id,
				request_scope, status, amount_minor, currency, occurred_at)
			SELECT i.journey_id, i.id, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17 FROM i
			RETURNING id`,
		session: r(`SELECT id, actor, created_at FROM sessions WHERE id = ?`),
		journey: r(`SELECT id, session_id, actor, context, created_at, updated_at FROM journeys WHERE id = ?`),
		intent:  r(`SELECT i.id, i.journey_id, i.tool, i.created_at, j.actor FROM intents i JOIN journeys j ON j.id = i.journey_id WHERE i.id = ?`),
		setJourneyContext: r(`UPDATE journeys SET context = ?, updated_at = ? WHERE id = ? AND actor = ?
			RETURNING id, session_id, actor, context, created_at, updated_at`),
		// The WHERE on the SELECT is also what lets SQLite parse an
		// INSERT … SELECT … ON CONFLICT without ambiguity.
		upsertReport: r(`INSERT INTO connector_reports (session_id, connectors, reported_at)
			SELECT s.id, ?, ? FROM sessions s WHERE s.id = ? AND s.actor = ?
			ON CONFLICT (session_id) DO UPDATE SET connectors = excluded.connectors, reported_at = excluded.reported_at
			WHERE excluded.reported_at >= connector_reports.reported_at`),
		report: r(`SELECT connectors, reported_at FROM connector_reports WHERE session_id = ?`),
		insertEvent: r(`INSERT INTO events (journey_id, intent_id, kind, request_id, tool, provider, option_id,
				request_scope, status, amount_minor, currency, occurred_at)
			SELECT j.id, i.id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
			FROM intents i JOIN journeys j ON j.id = i.journey_id
			WHERE i.id = ? AND j.id = ? AND j.actor = ?
			RETURNING id`),
		events: r(`SELECT id, kind, journey_id, intent_id, request_id, tool, provider, option_id,
				request_scope, status, amount_minor, currency, occurred_at
			FROM events WHERE journey_id = ? ORDER BY id`),
		purgeEvents:  r(`DELETE FROM events WHERE occurred_at < ?`),
		purgeReports: r(`DELETE FROM connector_reports WHERE reported_at < ?`),
		purgeIntents: r(`DELETE FROM intents WHERE created_at < ?
			AND NOT EXISTS (SELECT 1 FROM events e WHERE e.intent_id = intents.id)`),
		purgeJourneys: r(`DELETE FROM journeys WHERE updated_at < ?
			AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.journey_id = journeys.id)`),
		purgeSessions: r(`DELETE FROM sessions WHERE created_at < ?
			AND NOT EXISTS (SELECT 1 FROM journeys j WHERE j.session_id = sessions.id)
			AND NOT EXISTS (SELECT 1 FROM connector_reports c WHERE c.session_id = sessions.id)`),
	}}
	if d == sqliteDialect {
		stmts, err := prepareAll(ctx, db, s.q)
		if err != nil {
			return nil, err
		}
		s.stmts, s.w = stmts, newWriter(db, stmts, 1, maxBatch, false)
		return s, nil
	}
	s.w = newWriter(db, nil, writerLoops(opts.maxConns()), postgresMaxBatch, true)
	return s, nil
}

// returningID is what an INSERT into events ends with to return the new
// row's id: RETURNING on PostgreSQL, nothing on SQLite, whose driver
// reports it as the last insert id.
func (d dialect) returningID() string {
	if d == postgresDialect {
		return " RETURNING id"
	}
	return ""
}

// rebind rewrites ? placeholders as $1, $2 … for PostgreSQL. The statements
// above hold no ? inside literals, so a plain scan is exact.
func (d dialect) rebind(query string) string {
	if !d.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// write runs fn's statements as one write, in a batch of the group-commit
// writer: its statements are atomic together, whichever other writes
// share the batch's transaction. single says fn runs one statement (see
// [writeJob]). It returns once the write is committed or has failed.
func (s *sqlStore) write(ctx context.Context, single bool, fn func(ctx context.Context, q querier) error) error {
	return s.closed(s.w.submit(ctx, single, func(ctx context.Context, q querier) error { return fn(ctx, s.on(q)) }))
}

// writeRow is write of one statement returning one row ([rowWrite]),
// which PostgreSQL's writer may send with others in one round trip.
func (s *sqlStore) writeRow(ctx context.Context, r *rowWrite) error {
	return s.closed(s.w.submitRow(ctx, r))
}

// closed names the store in the error of a write submitted after Close.
func (s *sqlStore) closed(err error) error {
	if errors.Is(err, errClosed) {
		return s.wrap("write", err)
	}
	return err
}

func micros(t time.Time) int64      { return t.UnixMicro() }
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func contextJSON(c json.RawMessage) (string, error) {
	if len(c) == 0 {
		return "{}", nil
	}
	if !json.Valid(c) {
		return "", fmt.Errorf("%w: journey context is not valid JSON", ErrInvalid)
	}
	return string(c), nil
}

func needActor(actor string) error {
	if actor == "" {
		return fmt.Errorf("%w: empty actor", ErrInvalid)
	}
	return nil
}

func (s *sqlStore) Begin(ctx context.Context, actor, tool string, journeyContext json.RawMessage) (Refs, error) {
	if err := needActor(actor); err != nil {
		return Refs{}, err
	}
	jc, err := contextJSON(journeyContext)
	if err != nil {
		return Refs{}, err
	}
	refs := Refs{SessionID: s.newID("ses"), JourneyID: s.newID("jny"), IntentID: s.newID("int")}
	now := micros(s.now())
	// On PostgreSQL open's one statement is atomic on its own.
	err = s.write(ctx, s.d == postgresDialect, func(ctx context.Context, q querier) error {
		_, err := s.open(ctx, q, actor, &Opening{Refs: refs, Tool: tool}, refs.JourneyID, jc, now)
		return err
	})
	if err != nil {
		return Refs{}, err
	}
	return refs, nil
}

func (s *sqlStore) Session(ctx context.Context, actor, sessionID string) (Session, error) {
	var ses Session
	var created int64
	err := s.on(s.db).QueryRowContext(ctx, s.q.session, sessionID).Scan(&ses.ID, &ses.Actor, &created)
	if err := s.owned("session", sessionID, err, ses.Actor, actor); err != nil {
		return Session{}, err
	}
	ses.CreatedAt = fromMicros(created)
	return ses, nil
}

func (s *sqlStore) NewJourney(ctx context.Context, actor, sessionID string, journeyContext json.RawMessage) (Journey, error) {
	if err := needActor(actor); err != nil {
		return Journey{}, err
	}
	jc, err := contextJSON(journeyContext)
	if err != nil {
		return Journey{}, err
	}
	now := s.now()
	j := Journey{ID: s.newID("jny"), SessionID: sessionID, Actor: actor, Context: json.RawMessage(jc),
		CreatedAt: fromMicros(micros(now)), UpdatedAt: fromMicros(micros(now))}
	n, err := s.exec(ctx, "insert journey", s.q.insertJourney, j.ID, jc, micros(now), micros(now), sessionID, actor)
	if err != nil {
		return Journey{}, err
	}
	if err := s.inserted(n, func() error { _, err := s.Session(ctx, actor, sessionID); return err }, false); err != nil {
		return Journey{}, err
	}
	return j, nil
}

func (s *sqlStore) Journey(ctx context.Context, actor, journeyID string) (Journey, error) {
	j, err := scanJourney(s.on(s.db).QueryRowContext(ctx, s.q.journey, journeyID))
	if err := s.owned("journey", journeyID, err, j.Actor, actor); err != nil {
		return Journey{}, err
	}
	return j, nil
}

func scanJourney(row *sql.Row) (Journey, error) {
	var j Journey
	var jc string
	var created, updated int64
	if err := row.Scan(&j.ID, &j.SessionID, &j.Actor, &jc, &created, &updated); err != nil {
		return Journey{}, err
	}
	j.Context, j.CreatedAt, j.UpdatedAt = json.RawMessage(jc), fromMicros(created), fromMicros(updated)
	return j, nil
}

func (s *sqlStore) SetJourneyContext(ctx context.Context, actor, journeyID string, journeyContext json.RawMessage) (Journey, error) {
	jc, err := contextJSON(journeyContext)
	if err != nil {
		return Journey{}, err
	}
	var j Journey
	err = s.write(ctx, true, func(ctx context.Context, q querier) error {
		var err error
		j, err = scanJourney(q.QueryRowContext(ctx, s.q.setJourneyContext, jc, micros(s.now()), journeyID, actor))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		_, err = s.Journey(ctx, actor, journeyID)
		if err == nil { // purged between the two statements
			err = fmt.Errorf("store: journey %q: %w", journeyID, ErrNotFound)
		}
		return Journey{}, err
	}
	if err != nil {
		return Journey{}, s.wrap("update journey", err)
	}
	return j, nil
}

func (s *sqlStore) NewIntent(ctx context.Context, actor, journeyID, tool string) (Intent, error) {
	if err := needActor(actor); err != nil {
		return Intent{}, err
	}
	now := s.now()
	in := Intent{ID: s.newID("int"), JourneyID: journeyID, Tool: tool, CreatedAt: fromMicros(micros(now))}
	n, err := s.exec(ctx, "insert intent", s.q.insertIntent, in.ID, tool, micros(now), journeyID, actor)
	if err != nil {
		return Intent{}, err
	}
	if err := s.inserted(n, func() error { _, err := s.Journey(ctx, actor, journeyID); return err }, false); err != nil {
		return Intent{}, err
	}
	return in, nil
}

func (s *sqlStore) Intent(ctx context.Context, actor, intentID string) (Intent, error) {
	var in Intent
	var created int64
	var owner string
	err := s.on(s.db).QueryRowContext(ctx, s.q.intent, intentID).Scan(&in.ID, &in.JourneyID, &in.Tool, &created, &owner)
	if err := s.owned("intent", intentID, err, owner, actor); err != nil {
		return Intent{}, err
	}
	in.CreatedAt = fromMicros(created)
	return in, nil
}

func (s *sqlStore) ReportConnectors(ctx context.Context, actor string, report ConnectorReport) error {
	if err := needActor(actor); err != nil {
		return err
	}
	connectors := report.Connectors
	if connectors == nil {
		connectors = []ConnectorState{}
	}
	body, err := json.Marshal(connectors)
	if err != nil {
		return fmt.Errorf("store: encode connector report: %w", err)
	}
	at := report.ReportedAt
	if at.IsZero() {
		at = s.now()
	}
	n, err := s.exec(ctx, "upsert connector report", s.q.upsertReport, string(body), micros(at), report.SessionID, actor)
	if err != nil {
		return err
	}
	// No row changed: the session is unknown or foreign, or a newer report
	// is already stored (which wins, so this one is dropped without error).
	return s.inserted(n, func() error { _, err := s.Session(ctx, actor, report.SessionID); return err }, true)
}

func (s *sqlStore) ConnectorReport(ctx context.Context, actor, sessionID string) (ConnectorReport, error) {
	if _, err := s.Session(ctx, actor, sessionID); err != nil {
		return ConnectorReport{}, err
	}
	r := ConnectorReport{SessionID: sessionID}
	var body string
	var at int64
	err := s.on(s.db).QueryRowContext(ctx, s.q.report, sessionID).Scan(&body, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil
	}
	if err != nil {
		return ConnectorReport{}, s.wrap("read connector report", err)
	}
	if err := json.Unmarshal([]byte(body), &r.Connectors); err != nil {
		return ConnectorReport{}, fmt.Errorf("store: stored connector report of session %q: %w", sessionID, err)
	}
	r.ReportedAt = fromMicros(at)
	return r, nil
}

func validEvent(e Event) error {
	missing := func(what string) error {
		return fmt.Errorf("%w: %s event without %s", ErrInvalid, e.Kind, what)
	}
	switch {
	case e.JourneyID == "":
		return missing("journey_id")
	case e.IntentID == "":
		return missing("intent_id")
	case e.RequestID == "":
		return missing("request_id")
	}
	switch e.Kind {
	case EventRequest:
	case EventSelection:
		if e.Provider == "" || e.OptionID == "" {
			return missing("provider and option_id")
		}
	case EventHandoff:
		if e.Provider == "" {
			return missing("provider")
		}
	case EventOutcome:
		if e.Provider == "" || e.Status == "" {
			return missing("provider and status")
		}
	default:
		return fmt.Errorf("%w: unknown event kind %q", ErrInvalid, e.Kind)
	}
	if (e.AmountMinor == nil) != (e.Currency == "") {
		return fmt.Errorf("%w: %s event: amount_minor and currency go together", ErrInvalid, e.Kind)
	}
	return nil
}

func (s *sqlStore) RecordEvent(ctx context.Context, actor string, e Event) (Event, error) {
	if err := needActor(actor); err != nil {
		return Event{}, err
	}
	if err := validEvent(e); err != nil {
		return Event{}, err
	}
	if e.OccurredAt.IsZero() {
		e.OccurredAt = s.now()
	}
	e.OccurredAt = fromMicros(micros(e.OccurredAt))
	err := s.write(ctx, true, func(ctx context.Context, q querier) error {
		return q.QueryRowContext(ctx, s.q.insertEvent,
			string(e.Kind), e.RequestID, e.Tool, e.Provider, e.OptionID, e.RequestScope, e.Status,
			e.AmountMinor, e.Currency, micros(e.OccurredAt),
			e.IntentID, e.JourneyID, actor).Scan(&e.ID)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Event{}, s.whyNoEvent(ctx, actor, e)
	}
	if err != nil {
		return Event{}, s.wrap("insert event", err)
	}
	return e, nil
}

// whyNoEvent tells the caller which reference of an event did not hold.
func (s *sqlStore) whyNoEvent(ctx context.Context, actor string, e Event) error {
	if _, err := s.Journey(ctx, actor, e.JourneyID); err != nil {
		return err
	}
	in, err := s.Intent(ctx, actor, e.IntentID)
	if err != nil {
		return err
	}
	if in.JourneyID != e.JourneyID {
		return fmt.Errorf("store: intent %q is not in journey %q: %w", e.IntentID, e.JourneyID, ErrNotFound)
	}
	return fmt.Errorf("store: intent %q: %w", e.IntentID, ErrNotFound) // purged meanwhile
}

func (s *sqlStore) Events(ctx context.Context, actor, journeyID string) ([]Event, error) {
	if _, err := s.Journey(ctx, actor, journeyID); err != nil {
		return nil, err
	}
	rows, err := s.on(s.db).QueryContext(ctx, s.q.events, journeyID)
	if err != nil {
		return nil, s.wrap("list events", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var kind string
		var amount sql.NullInt64
		var at int64
		if err := rows.Scan(&e.ID, &kind, &e.JourneyID, &e.IntentID, &e.RequestID, &e.Tool, &e.Provider,
			&e.OptionID, &e.RequestScope, &e.Status, &amount, &e.Currency, &at); err != nil {
			return nil, s.wrap("scan event", err)
		}
		e.Kind, e.OccurredAt = EventKind(kind), fromMicros(at)
		if amount.Valid {
			e.AmountMinor = &amount.Int64
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("list events", err)
	}
	return out, nil
}

func (s *sqlStore) Purge(ctx context.Context, before time.Time) (Purged, error) {
	cut := micros(before)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Purged{}, s.wrap("begin purge", err)
	}
	defer tx.Rollback()
	var p Purged
	// Leaves first: a parent goes only once nothing newer is left under it.
	for _, step := range []struct {
		query string
		count *int64
	}{
		{s.q.purgeEvents, &p.Events},
		{s.q.purgeReports, &p.ConnectorReports},
		{s.q.purgeIntents, &p.Intents},
		{s.q.purgeJourneys, &p.Journeys},
		{s.q.purgeSessions, &p.Sessions},
	} {
		res, err := tx.ExecContext(ctx, step.query, cut)
		if err != nil {
			return Purged{}, s.wrap("purge", err)
		}
		if *step.count, err = res.RowsAffected(); err != nil {
			return Purged{}, s.wrap("purge", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Purged{}, s.wrap("commit purge", err)
	}
	return p, nil
}

func (s *sqlStore) Ping(ctx context.Context) error { return s.wrap("ping", s.db.PingContext(ctx)) }

// Close stops the writer, once every write queued has been answered, then
// closes the pool.
func (s *sqlStore) Close() error {
	s.w.close()
	for _, st := range s.stmts {
		st.Close()
	}
	return s.db.Close()
}

// exec runs one statement as a write and returns how many rows it changed.
func (s *sqlStore) exec(ctx context.Context, op, query string, args ...any) (int64, error) {
	var n int64
	err := s.write(ctx, true, func(ctx context.Context, q querier) error {
		res, err := q.ExecContext(ctx, query, args...)
		if err != nil {
			return s.wrap(op, err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return s.wrap(op+": rows affected", err)
		}
		return nil
	})
	return n, err
}

// owned turns a lookup's outcome into ErrNotFound, ErrForeignActor or a
// wrapped database error.
func (s *sqlStore) owned(what, id string, err error, owner, actor string) error {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: %s %q: %w", what, id, ErrNotFound)
	case err != nil:
		return s.wrap("read "+what, err)
	case owner != actor:
		return fmt.Errorf("store: %s %q: %w", what, id, ErrForeignActor)
	}
	return nil
}

// inserted checks that an INSERT … SELECT guarded by ownership wrote a row;
// when it did not, check says why (ErrNotFound or ErrForeignActor). With
// staleOK, a parent that checks out means the write lost to a newer one.
func (s *sqlStore) inserted(n int64, check func() error, staleOK bool) error {
	if n > 0 {
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	if staleOK {
		return nil
	}
	return fmt.Errorf("store: parent vanished during the write: %w", ErrNotFound)
}

func (s *sqlStore) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store (%s): %s: %w", s.d.name, op, err)
}

// open makes o's rows (nothing when o is nil): an intent in journeyID, or
// a session with its journey (context jc) and intent. It reports whether
// it opened the journey, which then holds jc already.
func (s *sqlStore) open(ctx context.Context, q querier, actor string, o *Opening, journeyID, jc string, now int64) (journey bool, err error) {
	switch {
	case o == nil:
		return false, nil
	case o.SessionID == "":
		res, err := q.ExecContext(ctx, s.q.insertIntent, o.IntentID, o.Tool, now, journeyID, actor)
		if err != nil {
			return false, s.wrap("insert intent", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return false, s.wrap("insert intent", err)
		} else if n != 1 {
			return false, errNoRow{event: -1}
		}
		return false, nil
	case s.d == postgresDialect:
		// One statement: one round trip instead of three.
		res, err := q.ExecContext(ctx, s.q.beginPostgres, o.SessionID, actor, now, o.JourneyID, jc, o.IntentID, o.Tool)
		if err != nil {
			return false, s.wrap("insert session, journey and intent", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return false, s.wrap("insert session, journey and intent", err)
		} else if n != 1 {
			return false, fmt.Errorf("store (%s): begin inserted %d intents, want 1", s.d.name, n)
		}
		return true, nil
	}
	if _, err := q.ExecContext(ctx, s.q.insertSession, o.SessionID, actor, now); err != nil {
		return false, s.wrap("insert session", err)
	}
	if _, err := q.ExecContext(ctx, s.q.openJourney, o.JourneyID, o.SessionID, actor, jc, now, now); err != nil {
		return false, s.wrap("insert journey", err)
	}
	if _, err := q.ExecContext(ctx, s.q.openIntent, o.IntentID, o.JourneyID, o.Tool, now); err != nil {
		return false, s.wrap("insert intent", err)
	}
	return true, nil
}

// openWithEvent is WriteCall of a call that opens its session and records
// one event under it, on PostgreSQL: one statement (openPostgres), in the
// writer's batch.
func (s *sqlStore) openWithEvent(ctx context.Context, actor string, o *Opening, jc string, events []Event, now int64) ([]Event, error) {
	e := &events[0]
	err := s.writeRow(ctx, &rowWrite{query: s.q.openPostgres, dest: []any{&e.ID}, args: []any{
		o.SessionID, actor, now, o.JourneyID, jc, o.IntentID, o.Tool,
		string(e.Kind), e.RequestID, e.Tool, e.Provider, e.OptionID, e.RequestScope, e.Status,
		e.AmountMinor, e.Currency, micros(e.OccurredAt)}})
	if err != nil {
		return nil, s.wrap("insert session, journey, intent and event", err)
	}
	return events, nil
}

// openEvent inserts e under the journey and intent its call has just
// opened (s.q.openEvent) and returns its id.
func (s *sqlStore) openEvent(ctx context.Context, q querier, e *Event) (int64, error) {
	args := []any{e.JourneyID, e.IntentID, string(e.Kind), e.RequestID, e.Tool, e.Provider, e.OptionID, e.RequestScope, e.Status,
		e.AmountMinor, e.Currency, micros(e.OccurredAt)}
	if s.d == postgresDialect {
		var id int64
		err := q.QueryRowContext(ctx, s.q.openEvent, args...).Scan(&id)
		return id, err
	}
	res, err := q.ExecContext(ctx, s.q.openEvent, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// errNoRow marks, inside WriteCall's transaction, a write whose guard
// matched no row; why is looked up after the rollback.
type errNoRow struct{ event int } // -1: the journey update

func (errNoRow) Error() string { return "store: a guarded write matched no row" }

func (s *sqlStore) WriteCall(ctx context.Context, actor string, w CallWrites) ([]Event, error) {
	if err := needActor(actor); err != nil {
		return nil, err
	}
	jc, err := contextJSON(w.Context) // "{}" for a journey opened without one
	if err != nil {
		return nil, err
	}
	events := slices.Clone(w.Events)
	now := s.now()
	for i, e := range events {
		if err := validEvent(e); err != nil {
			return nil, err
		}
		if e.OccurredAt.IsZero() {
			e.OccurredAt = now
		}
		events[i].OccurredAt = fromMicros(micros(e.OccurredAt))
	}
	if o := w.Open; o != nil && (o.IntentID == "" || (o.SessionID != "" && (o.JourneyID == "" || o.JourneyID != w.JourneyID))) {
		return nil, fmt.Errorf("%w: an opening needs an intent id, and a new session's journey is the call's", ErrInvalid)
	}
	if o := w.Open; s.d == postgresDialect && o != nil && o.SessionID != "" && len(events) == 1 &&
		events[0].JourneyID == o.JourneyID && events[0].IntentID == o.IntentID {
		return s.openWithEvent(ctx, actor, o, jc, events, micros(now))
	}
	err = s.write(ctx, false, func(ctx context.Context, q querier) error {
		opened, err := s.open(ctx, q, actor, w.Open, w.JourneyID, jc, micros(now))
		if err != nil {
			return err
		}
		if w.Context != nil && !opened {
			if _, err := scanJourney(q.QueryRowContext(ctx, s.q.setJourneyContext, jc, micros(now), w.JourneyID, actor)); errors.Is(err, sql.ErrNoRows) {
				return errNoRow{event: -1}
			} else if err != nil {
				return s.wrap("update journey", err)
			}
		}
		for i := range events {
			e := &events[i]
			var err error
			if opened && e.JourneyID == w.Open.JourneyID && e.IntentID == w.Open.IntentID {
				e.ID, err = s.openEvent(ctx, q, e)
			} else {
				err = q.QueryRowContext(ctx, s.q.insertEvent,
					string(e.Kind), e.RequestID, e.Tool, e.Provider, e.OptionID, e.RequestScope, e.Status,
					e.AmountMinor, e.Currency, micros(e.OccurredAt),
					e.IntentID, e.JourneyID, actor).Scan(&e.ID)
			}
			if errors.Is(err, sql.ErrNoRows) {
				return errNoRow{event: i}
			} else if err != nil {
				return s.wrap("insert event", err)
			}
		}
		return nil
	})
	var nr errNoRow
	if errors.As(err, &nr) {
		if nr.event < 0 {
			if _, err := s.Journey(ctx, actor, w.JourneyID); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("store: journey %q: %w", w.JourneyID, ErrNotFound) // purged meanwhile
		}
		return nil, s.whyNoEvent(ctx, actor, events[nr.event])
	}
	if err != nil {
		return nil, err
	}
	return events, nil
}

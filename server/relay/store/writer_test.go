package store

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
)

// One batch of the group-commit writer: a write that fails is undone alone
// (the batch is run again under savepoints), the others commit together,
// once each, and each caller hears its own outcome.
func TestWriterBatchFailsAlone(t *testing.T) {
	st := open(t, sqliteEngine().url(t), nil).(*sqlStore)
	refs, err := st.Begin(bg, "alice", "search_rides", nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{} // the writer runs one job at a time
	insert := func(req string) func(context.Context, querier) error {
		return func(ctx context.Context, q querier) error {
			runs[req]++
			var id int64
			return q.QueryRowContext(ctx, st.q.insertEvent, string(EventRequest), req, "search_rides", "", "", "", "ok", nil, "", int64(1),
				refs.IntentID, refs.JourneyID, "alice").Scan(&id)
		}
	}
	// The second job writes, then fails: its row must go with it.
	failing := func(ctx context.Context, q querier) error {
		if err := insert("undone")(ctx, q); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, "INSERT INTO no_such_table VALUES (1)")
		return err
	}
	gone, cancel := context.WithCancel(bg)
	cancel()
	jobs := []*writeJob{
		{ctx: bg, fn: insert("first"), done: make(chan error, 1)},
		{ctx: bg, fn: failing, done: make(chan error, 1)},
		{ctx: gone, fn: insert("cancelled"), done: make(chan error, 1)},
		{ctx: bg, fn: insert("last"), done: make(chan error, 1)},
	}
	st.w.commit(jobs)
	if runs["first"] != 2 || runs["last"] != 1 || runs["cancelled"] != 0 {
		// first ran before the failure, then again under a savepoint; last
		// only under its savepoint.
		t.Errorf("runs %v; want first twice, last once, cancelled never", runs)
	}
	if err := <-jobs[0].done; err != nil {
		t.Errorf("first: %v", err)
	}
	if err := <-jobs[1].done; err == nil {
		t.Error("the failing write was acknowledged")
	}
	if err := <-jobs[2].done; !errors.Is(err, context.Canceled) {
		t.Errorf("a write whose caller had gone: %v; want context.Canceled", err)
	}
	if err := <-jobs[3].done; err != nil {
		t.Errorf("last: %v", err)
	}
	// Alone in a batch (no savepoint), a failing write and a write whose
	// caller had gone leave nothing either.
	for _, j := range []*writeJob{{ctx: bg, fn: failing, done: make(chan error, 1)}, {ctx: gone, fn: insert("cancelled"), done: make(chan error, 1)}} {
		st.w.commit([]*writeJob{j})
		if err := <-j.done; err == nil {
			t.Error("a lone failed write was acknowledged")
		}
	}
	evs, err := st.Events(bg, "alice", refs.JourneyID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.RequestID)
	}
	if len(got) != 2 || got[0] != "first" || got[1] != "last" {
		t.Errorf("stored %v; want [first last]", got)
	}
}

// Many concurrent writers all get an answer and every acknowledged write
// is there; after Close a write is refused, not lost silently.
func TestWriterConcurrentAndClose(t *testing.T) {
	st := open(t, sqliteEngine().url(t), nil).(*sqlStore)
	refs, err := st.Begin(bg, "alice", "search_rides", nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "r" + string(rune('a'+i%26))})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if evs, err := st.Events(bg, "alice", refs.JourneyID); err != nil || len(evs) != 200 {
		t.Fatalf("%d events, %v; want 200", len(evs), err)
	}
	st.w.close()
	if _, err := st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "late"}); !errors.Is(err, errClosed) {
		t.Errorf("a write after close: %v; want errClosed", err)
	}
}

// WriteCall commits a call's context and events together on each engine,
// and on a refusal keeps none of them.
func TestWriteCall(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		st := open(t, e.url(t), nil)
		refs, err := st.Begin(bg, "alice", "search_rides", nil)
		if err != nil {
			t.Fatal(err)
		}
		ev := func(req string) Event {
			return Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: req, Tool: "search_rides", Status: "ok"}
		}
		got, err := st.WriteCall(bg, "alice", CallWrites{JourneyID: refs.JourneyID, Context: []byte(`{"party_size":2}`), Events: []Event{ev("a"), ev("b")}})
		if err != nil || len(got) != 2 || got[0].ID == 0 || got[1].ID <= got[0].ID || got[0].OccurredAt.IsZero() {
			t.Fatalf("WriteCall: %+v, %v", got, err)
		}
		// An event of an unknown intent: the whole call is refused and
		// the context it carried is not kept.
		bad := ev("c")
		bad.IntentID = "int_nope"
		if _, err := st.WriteCall(bg, "alice", CallWrites{JourneyID: refs.JourneyID, Context: []byte(`{"party_size":5}`), Events: []Event{ev("c"), bad}}); !errors.Is(err, ErrNotFound) {
			t.Errorf("an unknown intent: %v; want ErrNotFound", err)
		}
		if _, err := st.WriteCall(bg, "mallory", CallWrites{JourneyID: refs.JourneyID, Context: []byte(`{"party_size":5}`)}); !errors.Is(err, ErrForeignActor) {
			t.Errorf("another actor's journey: %v; want ErrForeignActor", err)
		}
		j, err := st.Journey(bg, "alice", refs.JourneyID)
		if err != nil || string(j.Context) != `{"party_size":2}` {
			t.Errorf("journey context %s, %v; want the first call's", j.Context, err)
		}
		if evs, err := st.Events(bg, "alice", refs.JourneyID); err != nil || len(evs) != 2 {
			t.Errorf("%d events, %v; want the first call's two", len(evs), err)
		}
	})
}

// WriteCall opens a session, journey and intent, or an intent, with the
// call's other writes on each engine: all in one commit, nothing of it on
// a refusal.
func TestWriteCallOpens(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		st := open(t, e.url(t), nil)
		refs := Refs{SessionID: "ses_1", JourneyID: "jny_1", IntentID: "int_1"}
		ev := func(intent, req string) Event {
			return Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: intent, RequestID: req, Tool: "search_rides", Status: "ok"}
		}
		got, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: refs, Tool: "search_rides"}, JourneyID: refs.JourneyID,
			Context: []byte(`{"party_size":2}`), Events: []Event{ev(refs.IntentID, "a")}})
		if err != nil || len(got) != 1 || got[0].ID == 0 {
			t.Fatalf("WriteCall opening a session: %+v, %v", got, err)
		}
		if s, err := st.Session(bg, "alice", refs.SessionID); err != nil || s.Actor != "alice" {
			t.Errorf("session %+v, %v; want alice's", s, err)
		}
		if j, err := st.Journey(bg, "alice", refs.JourneyID); err != nil || j.SessionID != refs.SessionID || string(j.Context) != `{"party_size":2}` {
			t.Errorf("journey %+v, %v; want in %s with the call's context", j, err, refs.SessionID)
		}
		if in, err := st.Intent(bg, "alice", refs.IntentID); err != nil || in.JourneyID != refs.JourneyID || in.Tool != "search_rides" {
			t.Errorf("intent %+v, %v; want search_rides's in %s", in, err, refs.JourneyID)
		}
		// A second search in the journey opens only its intent.
		if _, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: Refs{IntentID: "int_2"}, Tool: "search_rides"}, JourneyID: refs.JourneyID,
			Events: []Event{ev("int_2", "b")}}); err != nil {
			t.Fatalf("WriteCall opening an intent: %v", err)
		}
		if in, err := st.Intent(bg, "alice", "int_2"); err != nil || in.JourneyID != refs.JourneyID {
			t.Errorf("second intent %+v, %v; want in %s", in, err, refs.JourneyID)
		}
		// Another actor's journey, and an unknown one: refused, and the
		// intent is not left behind.
		if _, err := st.WriteCall(bg, "mallory", CallWrites{Open: &Opening{Refs: Refs{IntentID: "int_3"}, Tool: "search_rides"}, JourneyID: refs.JourneyID}); !errors.Is(err, ErrForeignActor) {
			t.Errorf("an intent in another actor's journey: %v; want ErrForeignActor", err)
		}
		if _, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: Refs{IntentID: "int_4"}, Tool: "search_rides"}, JourneyID: "jny_nope"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("an intent in an unknown journey: %v; want ErrNotFound", err)
		}
		for _, id := range []string{"int_3", "int_4"} {
			if _, err := st.Intent(bg, "alice", id); !errors.Is(err, ErrNotFound) {
				t.Errorf("refused intent %s: %v; want ErrNotFound", id, err)
			}
		}
		// A refused event undoes the opening with it.
		fresh := Refs{SessionID: "ses_2", JourneyID: "jny_2", IntentID: "int_5"}
		if _, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: fresh, Tool: "search_rides"}, JourneyID: fresh.JourneyID,
			Events: []Event{ev("int_nope", "c")}}); !errors.Is(err, ErrNotFound) {
			t.Errorf("an event of an unknown intent: %v; want ErrNotFound", err)
		}
		if _, err := st.Session(bg, "alice", fresh.SessionID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the refused call's session: %v; want ErrNotFound", err)
		}
		// A session id already taken: refused, and neither the journey
		// nor the event of the call is kept (on PostgreSQL the one
		// statement that writes all four rows).
		dup := Refs{SessionID: refs.SessionID, JourneyID: "jny_dup", IntentID: "int_dup"}
		if _, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: dup, Tool: "search_rides"}, JourneyID: dup.JourneyID,
			Events: []Event{{Kind: EventRequest, JourneyID: dup.JourneyID, IntentID: dup.IntentID, RequestID: "d", Tool: "search_rides"}}}); err == nil {
			t.Error("a second session with a taken id was written")
		}
		if _, err := st.Journey(bg, "alice", dup.JourneyID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the refused call's journey: %v; want ErrNotFound", err)
		}
		// An opening without an intent, or whose journey is not the call's.
		for _, o := range []*Opening{{Refs: Refs{SessionID: "ses_3", JourneyID: "jny_3"}}, {Refs: Refs{SessionID: "ses_3", JourneyID: "jny_3", IntentID: "int_6"}}} {
			if _, err := st.WriteCall(bg, "alice", CallWrites{Open: o, JourneyID: "jny_other"}); !errors.Is(err, ErrInvalid) {
				t.Errorf("opening %+v: %v; want ErrInvalid", o.Refs, err)
			}
		}
	})
}

// A batch in which no write fails is run once, without savepoints, and
// commits every write.
func TestWriterBatchRunsOnce(t *testing.T) {
	st := open(t, sqliteEngine().url(t), nil).(*sqlStore)
	refs, err := st.Begin(bg, "alice", "search_rides", nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	var jobs []*writeJob
	for _, req := range []string{"a", "b", "c"} {
		jobs = append(jobs, &writeJob{ctx: bg, done: make(chan error, 1), fn: func(ctx context.Context, q querier) error {
			runs++
			var id int64
			return q.QueryRowContext(ctx, st.q.insertEvent, string(EventRequest), req, "search_rides", "", "", "", "ok", nil, "", int64(1),
				refs.IntentID, refs.JourneyID, "alice").Scan(&id)
		}})
	}
	st.w.commit(jobs)
	for _, j := range jobs {
		if err := <-j.done; err != nil {
			t.Fatal(err)
		}
	}
	if runs != 3 {
		t.Errorf("%d runs of 3 writes; want each run once", runs)
	}
	evs, err := st.Events(bg, "alice", refs.JourneyID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Errorf("%d events stored; want 3", len(evs))
	}
}

// The ids WriteCall returns for the events of a call that opens its
// session are the stored rows' (SQLite's last insert id, PostgreSQL's
// RETURNING), in order.
func TestWriteCallOpeningEventIDs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		st := open(t, e.url(t), nil)
		for n := range 2 { // two calls, so that ids are not just 1 and 2 of an empty table
			id := strconv.Itoa(n)
			refs := Refs{SessionID: "ses_" + id, JourneyID: "jny_" + id, IntentID: "int_" + id}
			var evs []Event
			for _, req := range []string{"a", "b"} {
				evs = append(evs, Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: req + id, Tool: "search_rides", Status: "ok"})
			}
			got, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: refs, Tool: "search_rides"}, JourneyID: refs.JourneyID, Events: evs})
			if err != nil {
				t.Fatal(err)
			}
			stored, err := st.Events(bg, "alice", refs.JourneyID)
			if err != nil || len(stored) != 2 {
				t.Fatalf("stored %v, %v", stored, err)
			}
			for i := range got {
				if got[i].ID == 0 || got[i].ID != stored[i].ID || got[i].RequestID != stored[i].RequestID {
					t.Errorf("call %d, event %d: returned id %d (%s), stored %d (%s)", n, i, got[i].ID, got[i].RequestID, stored[i].ID, stored[i].RequestID)
				}
			}
		}
	})
}

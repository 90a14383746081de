package store

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// One batch of the group-commit writer, on each engine: a write that fails
// is undone alone (the batch is run again under savepoints), the others
// commit together, once each, and each caller hears its own outcome. On
// PostgreSQL the failed statement aborts the whole transaction, which is
// what ROLLBACK TO must recover from.
func TestWriterBatchFailsAlone(t *testing.T) {
	forEachEngine(t, testWriterBatchFailsAlone)
}

func testWriterBatchFailsAlone(t *testing.T, e engine) {
	st := open(t, e.url(t), nil).(*sqlStore)
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
// is there, on each engine (PostgreSQL's several writer loops included);
// after Close a write is refused, not lost silently.
func TestWriterConcurrentAndClose(t *testing.T) {
	forEachEngine(t, testWriterConcurrentAndClose)
}

func testWriterConcurrentAndClose(t *testing.T, e engine) {
	st := open(t, e.url(t), nil).(*sqlStore)
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
// commits every write, on each engine.
func TestWriterBatchRunsOnce(t *testing.T) {
	forEachEngine(t, testWriterBatchRunsOnce)
}

func testWriterBatchRunsOnce(t *testing.T, e engine) {
	st := open(t, e.url(t), nil).(*sqlStore)
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

// heldLoops is every loop of a writer busy with a write that waits for
// free, so that writes submitted meanwhile queue together.
type heldLoops struct {
	t       *testing.T
	w       *writer
	loops   int
	release chan struct{}
	blocked chan error
}

// holdLoops holds each of w's loops with such a write, one at a time, so
// that no loop gathers two of them.
func holdLoops(t *testing.T, w *writer, loops int) *heldLoops {
	h := &heldLoops{t: t, w: w, loops: loops, release: make(chan struct{}), blocked: make(chan error, loops)}
	for range loops {
		started := make(chan struct{})
		go func() {
			h.blocked <- w.submit(bg, false, func(ctx context.Context, q querier) error {
				close(started)
				<-h.release
				_, err := txid(ctx, q)
				return err
			})
		}()
		<-started
	}
	return h
}

// waitQueued waits until n writes are queued behind the held loops.
func (h *heldLoops) waitQueued(n int) {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(h.w.jobs) < n; runtime.Gosched() {
		if time.Now().After(deadline) {
			close(h.release)
			h.t.Fatalf("%d of %d writes queued behind the busy writer loops", len(h.w.jobs), n)
		}
	}
}

// free lets the held writes finish, and fails t on their errors.
func (h *heldLoops) free() {
	h.t.Helper()
	close(h.release)
	for range h.loops {
		if err := <-h.blocked; err != nil {
			h.t.Fatal(err)
		}
	}
}

// On PostgreSQL, writes that arrive while the writer loops are busy share
// one transaction (txid_current()) and one commit, and there are as many
// loops as writerLoops says: every loop held up by a write of its own, the
// writes queued behind them wait, then go in at most one batch per loop.
func TestWriterSharesTransactionPostgres(t *testing.T) {
	st := open(t, postgresEngine().url(t), nil).(*sqlStore)
	loops := writerLoops(16)
	if loops < 2 {
		t.Fatalf("writerLoops(16) = %d; PostgreSQL should get several writer loops", loops)
	}
	held := holdLoops(t, st.w, loops)
	commits := st.w.commits.Load()
	const n = 20
	ids := make(chan int64, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			errs <- st.w.submit(bg, false, func(ctx context.Context, q querier) error {
				id, err := txid(ctx, q)
				ids <- id // the writer runs a batch once when none fails
				return err
			})
		}()
	}
	held.waitQueued(n)
	held.free()
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(ids)
	distinct := map[int64]int{}
	for id := range ids {
		distinct[id]++
	}
	if len(distinct) > loops {
		t.Errorf("%d writes queued together took %d transactions %v; want at most one per writer loop (%d)", n, len(distinct), distinct, loops)
	}
	if c := st.w.commits.Load() - commits - int64(loops); c > int64(loops) || c < 1 {
		t.Errorf("%d commits for %d queued writes; want 1 to %d", c, n, loops)
	}
}

// A PostgreSQL batch's transaction refuses to report a COMMIT that
// PostgreSQL turned into a ROLLBACK (a statement in it failed), and no
// connection goes back to the pool inside a transaction, whether the batch
// committed, rolled back or failed to commit.
func TestPgxTxCommitAndRelease(t *testing.T) {
	url := postgresEngine().url(t)
	st := open(t, url, nil).(*sqlStore)
	ctx := context.Background()
	tx, err := st.w.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO no_such_table VALUES (1)"); err == nil {
		t.Fatal("an insert into no table succeeded")
	}
	if err := tx.Commit(); err == nil {
		t.Error("the COMMIT of an aborted transaction was reported as a commit")
	}
	for _, end := range []func(batchTx) error{batchTx.Commit, batchTx.Rollback} {
		tx, err := st.w.begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := txid(ctx, tx); err != nil {
			t.Fatal(err)
		}
		if err := end(tx); err != nil {
			t.Error(err)
		}
	}
	// No connection of the database is inside a transaction, asked on a
	// connection of the test's own: one taken from the pool would make
	// pgx discard a connection in a transaction, which the pool would
	// otherwise keep idle with its locks.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d connections idle in a transaction, %v; want none", n, err)
	}
}

// txid is the PostgreSQL transaction q's statements run in.
func txid(ctx context.Context, q querier) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT txid_current()").Scan(&id)
	return id, err
}

// Two PostgreSQL batches that lock two journeys in opposite orders
// deadlock; PostgreSQL ends one batch's statement, that batch is run again
// under savepoints, and a write ended again there is run alone after its
// batch ([writer.commitBatch]): every write of both commits, none is
// refused.
func TestWriterDeadlockFailsNoWritePostgres(t *testing.T) {
	st := open(t, postgresEngine().url(t), nil).(*sqlStore)
	var journeys [2]string
	for i := range journeys {
		refs, err := st.Begin(bg, "alice", "search_rides", nil)
		if err != nil {
			t.Fatal(err)
		}
		journeys[i] = refs.JourneyID
	}
	var runs atomic.Int64
	update := func(journey, jc string) func(context.Context, querier) error {
		return func(ctx context.Context, q querier) error {
			runs.Add(1)
			_, err := q.ExecContext(ctx, st.q.setJourneyContext, jc, int64(1), journey, "alice")
			return err
		}
	}
	// Each batch locks its first journey, waits until the other has
	// locked its own (the first time only: a batch may run again), then
	// updates the other's.
	locked := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	var once [2]sync.Once
	batch := func(me int) []*writeJob {
		first, second := journeys[me], journeys[1-me]
		jc := `{"party_size":` + strconv.Itoa(me+1) + `}`
		lockFirst := func(ctx context.Context, q querier) error {
			if err := update(first, jc)(ctx, q); err != nil {
				return err
			}
			once[me].Do(func() { close(locked[me]) })
			<-locked[1-me]
			return nil
		}
		return []*writeJob{
			{ctx: bg, fn: lockFirst, done: make(chan error, 1)},
			{ctx: bg, fn: update(second, jc), done: make(chan error, 1)},
		}
	}
	batches := [][]*writeJob{batch(0), batch(1)}
	var wg sync.WaitGroup
	for _, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.w.commit(b)
		}()
	}
	wg.Wait()
	for i, b := range batches {
		for k, j := range b {
			if err := <-j.done; err != nil {
				t.Errorf("batch %d, write %d: %v", i, k, err)
			}
		}
	}
	if n := runs.Load(); n <= 4 {
		t.Errorf("%d runs of the 4 writes; the batches did not deadlock", n)
	}
	for _, id := range journeys {
		j, err := st.Journey(bg, "alice", id)
		if err != nil {
			t.Fatal(err)
		}
		if c := string(j.Context); c != `{"party_size":1}` && c != `{"party_size":2}` {
			t.Errorf("journey %s holds %s; want one of the batches' contexts", id, c)
		}
	}
}

// TestWriterPipelinesRowsPostgres: one-statement writes queued together on
// PostgreSQL go to it as one batch, each row back in its own write's
// destination; one that fails fails alone, and the others are kept.
func TestWriterPipelinesRowsPostgres(t *testing.T) {
	st := open(t, postgresEngine().url(t), nil).(*sqlStore)
	held := holdLoops(t, st.w, writerLoops(16))
	const n, failing = 12, 5
	type result struct {
		i, echo int
		tx      int64
		err     error
	}
	results := make(chan result, n)
	for i := range n {
		go func() {
			var r result
			divisor := 1
			if i == failing {
				divisor = 0
			}
			r.i = i
			r.err = st.w.submitRow(bg, &rowWrite{query: `SELECT txid_current(), $1::int / $2::int`, args: []any{i, divisor}, dest: []any{&r.tx, &r.echo}})
			results <- r
		}()
	}
	held.waitQueued(n)
	pipelined := st.w.pipelined.Load()
	held.free()
	for range n {
		r := <-results
		switch {
		case r.i == failing && r.err == nil:
			t.Errorf("write %d divided by zero and succeeded", r.i)
		case r.i != failing && (r.err != nil || r.echo != r.i || r.tx == 0):
			t.Errorf("write %d: row (%d, %d), %v", r.i, r.tx, r.echo, r.err)
		}
	}
	if st.w.pipelined.Load() == pipelined {
		t.Error("no batch of one-statement writes was sent as one")
	}

	// The search's write (openWithEvent) through the store: concurrent
	// calls each open their session and record their event, one of them a
	// session that exists already, which fails alone.
	const calls = 10
	dup := Refs{SessionID: "ses_dup", JourneyID: "jny_dup", IntentID: "int_dup"}
	if _, err := st.Begin(bg, "alice", "search_rides", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: dup, Tool: "search_rides"}, JourneyID: dup.JourneyID,
		Events: []Event{{Kind: EventRequest, JourneyID: dup.JourneyID, IntentID: dup.IntentID, RequestID: "first", Tool: "search_rides", Status: "ok"}}}); err != nil {
		t.Fatal(err)
	}
	type opened struct {
		refs Refs
		ev   []Event
		err  error
	}
	out := make(chan opened, calls)
	for i := range calls {
		go func() {
			id := strconv.Itoa(i)
			refs := Refs{SessionID: "ses_p" + id, JourneyID: "jny_p" + id, IntentID: "int_p" + id}
			if i == 3 {
				refs.SessionID = dup.SessionID // exists: the insert fails
			}
			ev, err := st.WriteCall(bg, "alice", CallWrites{Open: &Opening{Refs: refs, Tool: "search_rides"}, JourneyID: refs.JourneyID,
				Events: []Event{{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "r" + id, Tool: "search_rides", Status: "ok"}}})
			out <- opened{refs, ev, err}
		}()
	}
	for range calls {
		o := <-out
		if o.refs.SessionID == dup.SessionID {
			if o.err == nil {
				t.Errorf("%s opened a session that exists", o.refs.JourneyID)
			}
			continue
		}
		if o.err != nil || len(o.ev) != 1 || o.ev[0].ID == 0 {
			t.Fatalf("%s: %v, %v", o.refs.JourneyID, o.ev, o.err)
		}
		stored, err := st.Events(bg, "alice", o.refs.JourneyID)
		if err != nil || len(stored) != 1 || stored[0].ID != o.ev[0].ID {
			t.Errorf("%s: returned event %d, stored %v, %v", o.refs.JourneyID, o.ev[0].ID, stored, err)
		}
	}
}

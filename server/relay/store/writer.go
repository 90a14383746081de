package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// SQLite takes one writer at a time, and with synchronous=FULL every commit
// waits for the disk. With a transaction per write, concurrent tool calls
// queue on the write lock one commit (one fsync) each, and a waiting
// writer sleeps in SQLite's busy handler rather than being woken when the
// lock frees: throughput stops growing past one connection and p99 climbs
// with the queue. The group-commit writer below is the store's only SQLite
// writer instead: it takes every write pending when the previous commit
// finished, runs them in one transaction (again under a savepoint each when
// one of them failed, so that one write's failure undoes that write only)
// and answers each caller once that transaction has committed. A write
// still returns only when it is on disk; concurrent writes share the fsync.
//
// PostgreSQL takes concurrent writers, and its WAL flush already groups
// concurrent commits, but each transaction still costs its backend a
// commit record, a WAL flush and a round trip, and a search's statement
// run as a transaction of its own was most of PostgreSQL's CPU per search:
// pgbench on Relay's schema ran the search's one statement (openPostgres)
// at 6,700–7,600 a second and ~250 µs of machine CPU each as a transaction
// per statement, ~10,000 a second at ~195 µs with eight to a transaction
// (16 clients, 2 cores). So PostgreSQL's writes go through the writer too,
// with a few loops rather than one ([postgresWriters]), each batch a
// [pgxTx]. Under loadbench (search_rides on PostgreSQL, 2 shared cores,
// binaries alternated) PostgreSQL's CPU per search fell from ~240 to ~175
// µs at 16 connections and from ~215 to ~125 µs at 64, where searches per
// second rose by 14–27% and p99 fell from ~60 to ~33 ms; at 16 the rate
// stayed level, p99 fell from ~15 to ~11 ms and p50 rose by ~0.4 ms (the
// wait for the batch). A write alone in its batch that is one statement
// runs without a transaction, as before, so a lone call pays nothing.

// maxBatch bounds one group commit, so that a burst cannot hold the write
// lock (and the waiting callers' answers) for long.
const maxBatch = 128

// postgresMaxBatch is maxBatch on PostgreSQL: a batch run again under
// savepoints ([writer.runEach]) opens a subtransaction per write, and a
// backend keeps the ids of only 64 of them in shared memory; past that
// its transaction's subtransactions overflow to pg_subtrans, and every
// other backend's snapshot check slows down while it is open.
const postgresMaxBatch = 64

// postgresWriters is how many batches may be committing at once on
// PostgreSQL (SQLite has one writer: it takes no other). One loop runs its
// batch's statements one round trip after another and waits out each
// commit alone, so with one the machine sat partly idle (16 connections:
// ~2,400 searches/s with 0.8 of the two cores unused, measured while
// batches were still a *sql.Tx). Four made batches smaller, and
// PostgreSQL's CPU per search rose back towards the unbatched (~205–215 µs
// at 16 connections, ~140–145 at 64) with no more searches than two gave;
// two kept the batches (~6 writes a commit in
// BenchmarkStore/postgres/SearchWriteParallel) and the machine busy.
const postgresWriters = 2

// writerLoops is how many writer loops a PostgreSQL pool of maxConns
// connections gets: postgresWriters, but never more than a quarter of the
// pool, so that reads, which stay on the pool, always find connections.
func writerLoops(maxConns int) int {
	return max(1, min(postgresWriters, maxConns/4))
}

// querier is what a write runs its statements on: the batch's transaction
// (a *sql.Tx on SQLite, a [pgxTx] on PostgreSQL), or the pool for a
// PostgreSQL statement alone in its batch.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// writeJob is one caller's write waiting for its batch.
type writeJob struct {
	ctx context.Context
	fn  func(ctx context.Context, q querier) error
	// single: fn runs one statement, atomic on its own, which alone in
	// its batch on PostgreSQL needs no transaction ([writer.commitBatch]).
	single bool
	// row, when set, is that one statement and where its one row goes:
	// fn is then row.run, and on PostgreSQL a batch of such writes is sent
	// in one round trip ([runPipelined]).
	row  *rowWrite
	done chan error
}

// rowWrite is a write of one statement that returns one row, scanned into
// dest.
type rowWrite struct {
	query string
	args  []any
	dest  []any
}

func (r *rowWrite) run(ctx context.Context, q querier) error {
	return q.QueryRowContext(ctx, r.query, r.args...).Scan(r.dest...)
}

// writer is the group-commit writer: one or more loops, each gathering
// its own batch from jobs and committing it in its own transaction.
type writer struct {
	db       *sql.DB
	stmts    map[string]*sql.Stmt // prepared statements, savepoints' included (nil on PostgreSQL)
	maxBatch int
	// pgx: a batch's transaction is BEGIN and COMMIT on a pooled pgx
	// connection ([pgxTx]) rather than a *sql.Tx.
	pgx  bool
	jobs chan *writeJob
	// commits counts the batches committed (or rolled back) and batched
	// the writes in them, so that tests and benchmarks can tell how many
	// transactions a number of writes took.
	commits, batched atomic.Int64
	// pipelined counts the batches sent in one round trip ([runPipelined]).
	pipelined atomic.Int64
	// closing is closed by close; the loops drain what is queued, then
	// exit, and the last closes stopped.
	closing chan struct{}
	stopped chan struct{}
	once    sync.Once
	// mu orders submit against close: no job is queued after closing.
	mu     sync.RWMutex
	closed bool
}

var errClosed = errors.New("store: closed")

// The batch's savepoint statements, prepared with the store's own on
// SQLite ([prepareAll]), which would otherwise compile each on every write.
// PostgreSQL runs them as text: pgx sends a statement without arguments
// with the simple protocol, one round trip and nothing to prepare.
const (
	savepointSQL  = "SAVEPOINT w"
	releaseSQL    = "RELEASE w"
	rollbackToSQL = "ROLLBACK TO w"
)

// newWriter starts loops writers on db, each committing batches of up to
// maxBatch writes, in [pgxTx] transactions when pgx.
func newWriter(db *sql.DB, stmts map[string]*sql.Stmt, loops, maxBatch int, pgx bool) *writer {
	w := &writer{db: db, stmts: stmts, maxBatch: maxBatch, pgx: pgx, jobs: make(chan *writeJob, maxBatch),
		closing: make(chan struct{}), stopped: make(chan struct{})}
	var wg sync.WaitGroup
	for range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop()
		}()
	}
	go func() {
		wg.Wait()
		close(w.stopped)
	}()
	return w
}

// submit queues fn and waits for its batch's commit. fn runs in the
// writer's goroutine inside the batch's transaction: it must only run its
// statements and keep what it read, and may be run a second time in a new
// transaction ([runTogether]); any further look-up (why a write found no
// parent) belongs to the caller, after submit returns.
func (w *writer) submit(ctx context.Context, single bool, fn func(ctx context.Context, q querier) error) error {
	return w.enqueue(ctx, &writeJob{ctx: ctx, fn: fn, single: single, done: make(chan error, 1)})
}

// submitRow is submit of a write that is one statement returning one row.
func (w *writer) submitRow(ctx context.Context, r *rowWrite) error {
	return w.enqueue(ctx, &writeJob{ctx: ctx, fn: r.run, single: true, row: r, done: make(chan error, 1)})
}

func (w *writer) enqueue(ctx context.Context, j *writeJob) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return errClosed
	}
	select {
	case w.jobs <- j:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return ctx.Err()
	}
	// Once queued, the job's outcome is waited for even if ctx ends: the
	// write may commit, and a caller told "cancelled" about a write that
	// is on disk would be misinformed.
	return <-j.done
}

func (w *writer) close() {
	w.once.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.closing)
		<-w.stopped
	})
}

func (w *writer) loop() {
	batch := make([]*writeJob, 0, w.maxBatch)
	for {
		select {
		case j := <-w.jobs:
			batch = append(batch[:0], j)
		case <-w.closing:
			// No submit queues after closing: answer what is queued.
			for {
				select {
				case j := <-w.jobs:
					w.commit([]*writeJob{j})
				default:
					return
				}
			}
		}
		batch = w.gather(batch)
		w.commit(batch)
	}
}

// gather adds to batch every job queued, yielding the processor between
// looks for as long as a yield brings more. On a busy machine the callers
// about to submit are runnable goroutines waiting for a processor, and the
// writer, woken by the first job, would otherwise commit before they get
// one: at 16 connections on two cores a batch averaged 3.5 searches, so
// the writer, the one serial part of a search, spent its turns on many
// small commits, each waiting out an fsync of its own while calls queued
// behind it. Yielding lets them run first, which on an idle machine costs
// nothing (a yield with nothing else runnable returns at once) and under
// load made batches of 5 at 16 connections and 15–20 at 64, for 13–45%
// more searches per second and a lower p99 (loadbench, search_rides on
// SQLite, binaries alternated on a noisy 2-core VM). The server's CPU per
// search stayed the same at 16 connections and fell by about a fifth at
// 64. The yields end as soon as one brings no job, and a batch never grows
// past w.maxBatch. With several loops (PostgreSQL), each gathers from the
// same queue: a loop whose batch is committing leaves what arrives
// meanwhile to the others.
func (w *writer) gather(batch []*writeJob) []*writeJob {
	for len(batch) < w.maxBatch {
		runtime.Gosched()
		n := len(batch)
	fill:
		for len(batch) < w.maxBatch {
			select {
			case j := <-w.jobs:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		if len(batch) == n {
			break
		}
	}
	return batch
}

// commit runs one batch in one transaction and answers every job: its own
// error when its write failed (its savepoint rolled back), the commit's
// error when the transaction did not commit, else nil.
func (w *writer) commit(batch []*writeJob) { w.commitBatch(batch, true) }

// commitBatch is commit; with retry, a write that PostgreSQL ended to
// break a deadlock is run once more, alone, after its batch.
//
// Batches on PostgreSQL hold their rows' locks until their commit, so two
// batches that update the same two journeys in opposite orders deadlock,
// which two transactions of one write each could not (a write updates one
// journey). PostgreSQL ends one statement of the cycle after
// deadlock_timeout (1s by default). In runTogether that only sends the
// batch to runEach, by when the other batch has its locks and the rerun
// waits for its commit; but the rerun can take a lock first and deadlock
// again (TestWriterDeadlockFailsNoWritePostgres saw it), and there a
// write's error would be its caller's. Run alone once its batch has
// committed, the write holds no other lock, and waits instead.
func (w *writer) commitBatch(batch []*writeJob, retry bool) {
	defer func() { w.commits.Add(1); w.batched.Add(int64(len(batch))) }()
	errs := make([]error, len(batch))
	answer := func(shared error) {
		var again []*writeJob
		for i, j := range batch {
			if errs[i] == nil {
				errs[i] = shared
			}
			if retry && shared == nil && isDeadlock(errs[i]) {
				again = append(again, j)
				continue
			}
			j.done <- errs[i]
		}
		for _, j := range again {
			w.commitBatch([]*writeJob{j}, false)
		}
	}
	// The batch outlives any one caller's context: a caller that has
	// gone must not roll back the others' writes.
	ctx := context.Background()
	if len(batch) == 1 && batch[0].single && w.pgx {
		j := batch[0]
		// Alone, one statement commits on its own on PostgreSQL: BEGIN
		// and COMMIT would be two more round trips, and made a lone
		// RecordEvent 320 to 490 µs (BenchmarkStore/postgres/RecordEvent).
		err := j.ctx.Err() // gone before its turn: not written
		if err == nil {
			err = j.fn(context.WithoutCancel(j.ctx), w.db)
		}
		errs[0] = err
		answer(nil)
		return
	}
	tx, err := w.begin(ctx)
	if err != nil {
		answer(fmt.Errorf("begin: %w", err))
		return
	}
	if len(batch) == 1 {
		// Alone in its batch, a write needs no savepoint: when it fails,
		// the transaction is rolled back whole.
		j := batch[0]
		err := j.ctx.Err() // gone before its turn: not written
		if err == nil {
			err = j.fn(context.WithoutCancel(j.ctx), tx)
		}
		if err != nil {
			tx.Rollback()
			errs[0] = err
			answer(nil)
			return
		}
	} else if !w.runTogether(tx, batch, errs) {
		// A write failed: its statements before the failure are in the
		// transaction too. The batch is run again from the start, each
		// write under a savepoint of its own this time.
		tx.Rollback()
		clear(errs)
		if tx, err = w.begin(ctx); err != nil {
			answer(fmt.Errorf("begin: %w", err))
			return
		}
		if err := w.runEach(ctx, tx, batch, errs); err != nil {
			tx.Rollback()
			answer(err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		// Whether a failed COMMIT left anything on disk is unknown; no
		// write of the batch is acknowledged.
		answer(fmt.Errorf("commit: %w", err))
		return
	}
	answer(nil)
}

// runTogether runs the jobs of batch one after the other in tx, without
// savepoints, and reports whether every one that ran succeeded. Writes
// seldom fail (a guard that finds its journey purged, a foreign actor), and
// a savepoint per write is not free: its statements, and the copy of every
// page the write first touches into SQLite's sub-journal (about 30 µs of a
// search's ~280 µs write in BenchmarkStore/sqlite/SearchWriteParallel). So
// a batch is first run as if none will fail, and only a batch in which one
// did is run again under savepoints ([writer.runEach]). A write's fn must
// therefore leave the same result when run twice, which every write's does:
// each sets what it read, never adds to it.
func (w *writer) runTogether(tx batchTx, batch []*writeJob, errs []error) bool {
	if ptx, ok := tx.(*pgxTx); ok && pipelinable(batch) {
		w.pipelined.Add(1)
		return runPipelined(ptx, batch, errs)
	}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			errs[i] = err // gone before its turn: not written
			continue
		}
		if err := j.fn(context.WithoutCancel(j.ctx), tx); err != nil {
			return false
		}
	}
	return true
}

// pipelinable reports whether every write of batch is one statement
// returning one row.
func pipelinable(batch []*writeJob) bool {
	for _, j := range batch {
		if j.row == nil {
			return false
		}
	}
	return true
}

// runPipelined is runTogether on PostgreSQL for a batch of one-statement
// writes: their statements go to PostgreSQL in one pgx batch, one round
// trip for the whole batch where one statement after another took a round
// trip each, each a write and a wake-up on both sides of the socket. A
// search's write is such a statement (openWithEvent); under loadbench
// (search_rides on PostgreSQL, binaries alternated on 2 cores) searches/s
// rose ~20% at 16 connections and ~35% at 64, our server's CPU per search
// fell ~18% (~308 to ~252 µs at 16) and PostgreSQL's from ~115 to ~77 µs
// at 64. The rows come back in order into each write's dest. PostgreSQL
// ends the transaction at the first statement that fails, and the batch is
// then run again under savepoints, as after runTogether, where each write's
// error is its own and database/sql's.
func runPipelined(tx *pgxTx, batch []*writeJob, errs []error) bool {
	var b pgx.Batch
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			errs[i] = err // gone before its turn: not written
			continue
		}
		r := j.row
		b.Queue(r.query, r.args...).QueryRow(func(row pgx.Row) error { return row.Scan(r.dest...) })
	}
	if b.Len() == 0 {
		return true
	}
	err := tx.pgx(func(c *pgx.Conn) error { return c.SendBatch(context.Background(), &b).Close() })
	return err == nil
}

// runEach runs every job of batch under a savepoint of its own, so that a
// failed write is undone alone, and sets errs[i] to job i's error. An error
// it returns ends the whole batch.
func (w *writer) runEach(ctx context.Context, tx batchTx, batch []*writeJob, errs []error) error {
	q := preparedQuerier{q: tx, stmts: w.stmts}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			errs[i] = err // gone before its turn: not written
			continue
		}
		if _, err := q.ExecContext(ctx, savepointSQL); err != nil {
			return fmt.Errorf("savepoint: %w", err)
		}
		if err := j.fn(context.WithoutCancel(j.ctx), tx); err != nil {
			errs[i] = err
			// A failed statement can end the whole transaction in SQLite
			// (a full disk, an I/O error), and in PostgreSQL a lost
			// connection does; then nothing of the batch is kept, and
			// every job is told. PostgreSQL's ordinary failure (a
			// statement's error aborts the transaction) is what ROLLBACK
			// TO undoes.
			if _, rerr := q.ExecContext(ctx, rollbackToSQL); rerr != nil {
				return fmt.Errorf("the batch was rolled back after a failed write (%v): %w", err, rerr)
			}
		}
		if _, err := q.ExecContext(ctx, releaseSQL); err != nil {
			return fmt.Errorf("release savepoint: %w", err)
		}
	}
	return nil
}

// batchTx is the transaction a batch runs in.
type batchTx interface {
	querier
	Commit() error
	Rollback() error
}

func (w *writer) begin(ctx context.Context) (batchTx, error) {
	if !w.pgx {
		return w.db.BeginTx(ctx, nil)
	}
	c, err := w.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, errors.Join(err, (&pgxTx{c: c}).release())
	}
	return &pgxTx{c: c}, nil
}

// pgxTx is a PostgreSQL transaction as BEGIN and COMMIT on a connection
// held from the pool, rather than a *sql.Tx: database/sql starts a
// goroutine per *sql.Tx, and another for every query run in one (to close
// its rows should the transaction's context end), and with them the
// writer's CPU per search write was ~40 µs more than with the writes on
// the pool, as much as the batches saved PostgreSQL
// (BenchmarkStore/postgres/SearchWriteParallel).
type pgxTx struct {
	c *sql.Conn
}

func (t *pgxTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.c.ExecContext(ctx, query, args...)
}

func (t *pgxTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.c.QueryRowContext(ctx, query, args...)
}

// pgx runs fn on the transaction's pgx connection, for what database/sql
// cannot say (a command tag) or send (a batch in one round trip).
func (t *pgxTx) pgx(fn func(*pgx.Conn) error) error {
	return t.c.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: a PostgreSQL connection of type %T, not pgx's", dc)
		}
		return fn(c.Conn())
	})
}

// Commit commits, and fails if PostgreSQL rolled back instead: a COMMIT
// of a transaction in which a statement failed succeeds as a ROLLBACK.
func (t *pgxTx) Commit() error {
	err := t.pgx(func(c *pgx.Conn) error {
		tag, err := c.Exec(context.Background(), "COMMIT")
		if err == nil && tag.String() != "COMMIT" {
			err = fmt.Errorf("the transaction was rolled back (%s)", tag)
		}
		return err
	})
	return errors.Join(err, t.release())
}

func (t *pgxTx) Rollback() error {
	_, err := t.c.ExecContext(context.Background(), "ROLLBACK")
	return errors.Join(err, t.release())
}

// release returns the connection to the pool when it is out of any
// transaction, and closes it otherwise (after a failed COMMIT or ROLLBACK,
// a lost connection). pgx itself discards a connection found inside a
// transaction, but only when the pool next hands it out: until then it
// would sit idle in the pool, holding the batch's locks.
func (t *pgxTx) release() error {
	err := t.c.Raw(func(dc any) error {
		if c, ok := dc.(*stdlib.Conn); ok && !c.Conn().IsClosed() && c.Conn().PgConn().TxStatus() == 'I' {
			return nil
		}
		return driver.ErrBadConn // database/sql closes the connection
	})
	if errors.Is(err, driver.ErrBadConn) {
		err = nil // closed on purpose
	}
	return errors.Join(err, t.c.Close())
}

// isDeadlock tells whether err is PostgreSQL's deadlock_detected: the
// statement was ended to break a cycle of lock waits, and would succeed
// run again once the other transaction has finished.
func isDeadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01" // deadlock_detected
}

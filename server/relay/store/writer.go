package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
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
// PostgreSQL needs none of this: it takes concurrent writers, and its own
// WAL flush already groups concurrent commits.

// maxBatch bounds one group commit, so that a burst cannot hold the write
// lock (and the waiting callers' answers) for long.
const maxBatch = 128

// querier is what a write runs its statements on: the batch's transaction
// (SQLite) or the pool (PostgreSQL); *sql.Tx and *sql.DB both are one.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// writeJob is one caller's write waiting for its batch.
type writeJob struct {
	ctx  context.Context
	fn   func(ctx context.Context, q querier) error
	done chan error
}

// writer is the SQLite group-commit writer.
type writer struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt // prepared statements, savepoints' included
	jobs  chan *writeJob
	// closing is closed by close; the loop drains what is queued, then
	// exits and closes stopped.
	closing chan struct{}
	stopped chan struct{}
	once    sync.Once
	// mu orders submit against close: no job is queued after closing.
	mu     sync.RWMutex
	closed bool
}

var errClosed = errors.New("store: closed")

// The batch's savepoint statements, prepared with the store's own
// ([prepareAll]): SQLite would otherwise compile each on every write.
const (
	savepointSQL  = "SAVEPOINT w"
	releaseSQL    = "RELEASE w"
	rollbackToSQL = "ROLLBACK TO w"
)

func newWriter(db *sql.DB, stmts map[string]*sql.Stmt) *writer {
	w := &writer{db: db, stmts: stmts, jobs: make(chan *writeJob, maxBatch), closing: make(chan struct{}), stopped: make(chan struct{})}
	go w.loop()
	return w
}

// submit queues fn and waits for its batch's commit. fn runs in the
// writer's goroutine inside the batch's transaction: it must only run its
// statements and keep what it read, and may be run a second time in a new
// transaction ([runTogether]); any further look-up (why a write found no
// parent) belongs to the caller, after submit returns.
func (w *writer) submit(ctx context.Context, fn func(ctx context.Context, q querier) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &writeJob{ctx: ctx, fn: fn, done: make(chan error, 1)}
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
	defer close(w.stopped)
	batch := make([]*writeJob, 0, maxBatch)
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
// past maxBatch.
func (w *writer) gather(batch []*writeJob) []*writeJob {
	for len(batch) < maxBatch {
		runtime.Gosched()
		n := len(batch)
	fill:
		for len(batch) < maxBatch {
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
func (w *writer) commit(batch []*writeJob) {
	errs := make([]error, len(batch))
	answer := func(shared error) {
		for i, j := range batch {
			if errs[i] == nil {
				errs[i] = shared
			}
			j.done <- errs[i]
		}
	}
	// The batch outlives any one caller's context: a caller that has
	// gone must not roll back the others' writes.
	ctx := context.Background()
	tx, err := w.db.BeginTx(ctx, nil)
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
	} else if !runTogether(tx, batch, errs) {
		// A write failed: its statements before the failure are in the
		// transaction too. The batch is run again from the start, each
		// write under a savepoint of its own this time.
		tx.Rollback()
		clear(errs)
		if tx, err = w.db.BeginTx(ctx, nil); err != nil {
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
func runTogether(tx *sql.Tx, batch []*writeJob, errs []error) bool {
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

// runEach runs every job of batch under a savepoint of its own, so that a
// failed write is undone alone, and sets errs[i] to job i's error. An error
// it returns ends the whole batch.
func (w *writer) runEach(ctx context.Context, tx *sql.Tx, batch []*writeJob, errs []error) error {
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
			// (a full disk, an I/O error); then nothing of the batch is
			// kept, and every job is told.
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

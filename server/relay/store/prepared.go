package store

import (
	"context"
	"database/sql"
	"fmt"
)

// modernc.org/sqlite compiles a statement's SQL on every call that is not
// prepared, and database/sql caches nothing for ad hoc queries: before this,
// parsing the same dozen statements was a third of a search's store CPU
// (BenchmarkSearchRidesTrident's profile). On SQLite every statement is
// prepared once at Open; database/sql then keeps each prepared on every
// pooled connection it has run on, and a transaction reuses its
// connection's (Tx.StmtContext). PostgreSQL's pgx caches its prepared
// statements per connection already, so it runs the text as before.

// prepareAll prepares every statement of q on db.
func prepareAll(ctx context.Context, db *sql.DB, q queries) (map[string]*sql.Stmt, error) {
	out := map[string]*sql.Stmt{}
	for _, query := range []string{
		q.insertSession, q.insertJourney, q.insertIntent, q.openJourney, q.openIntent, q.openEvent, q.session, q.journey, q.intent,
		q.setJourneyContext, q.upsertReport, q.report, q.insertEvent, q.events,
		savepointSQL, releaseSQL, rollbackToSQL,
	} {
		st, err := db.PrepareContext(ctx, query)
		if err != nil {
			for _, st := range out {
				st.Close()
			}
			return nil, fmt.Errorf("store: prepare %.60q: %w", query, err)
		}
		out[query] = st
	}
	return out, nil
}

// preparedQuerier runs a statement through its prepared form when there is
// one, on the pool or in a transaction.
type preparedQuerier struct {
	q     querier
	stmts map[string]*sql.Stmt
}

func (p preparedQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	st := p.stmts[query]
	if st == nil {
		return nil
	}
	if tx, ok := p.q.(*sql.Tx); ok {
		return tx.StmtContext(ctx, st) // closed with the transaction
	}
	return st
}

func (p preparedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.q.ExecContext(ctx, query, args...)
}

func (p preparedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.q.QueryRowContext(ctx, query, args...)
}

func (p preparedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	if q, ok := p.q.(interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}); ok {
		return q.QueryContext(ctx, query, args...)
	}
	return nil, fmt.Errorf("store: %T runs no queries of several rows", p.q)
}

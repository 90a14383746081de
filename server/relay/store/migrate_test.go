package store

import (
	"context"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantColumns is the schema both dialects' migrations must arrive at: the
// two folders are written separately, so this keeps them from drifting.
var wantColumns = map[string][]string{
	"sessions":          {"id", "actor", "created_at"},
	"journeys":          {"id", "session_id", "actor", "context", "created_at", "updated_at"},
	"intents":           {"id", "journey_id", "tool", "created_at"},
	"connector_reports": {"session_id", "connectors", "reported_at"},
	"events": {"id", "journey_id", "intent_id", "kind", "request_id", "tool", "provider", "option_id",
		"request_scope", "status", "amount_minor", "currency", "occurred_at"},
}

func columns(t *testing.T, s *sqlStore, table string) []string {
	t.Helper()
	q := `SELECT name FROM pragma_table_info(?) ORDER BY cid`
	if s.d == postgresDialect {
		q = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`
	}
	rows, err := s.db.Query(q, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		out = append(out, c)
	}
	return out
}

func TestMigrationsAgree(t *testing.T) {
	var versions []int
	for _, d := range []dialect{sqliteDialect, postgresDialect} {
		files, err := fs.Glob(migrations, d.migrations+"/*.sql")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no migrations (%v)", d.name, err)
		}
		versions = append(versions, len(files))
	}
	if versions[0] != versions[1] {
		t.Errorf("sqlite has %d migrations, postgres %d: each version must exist for both", versions[0], versions[1])
	}
	forEachEngine(t, func(t *testing.T, e engine) {
		s := open(t, e.url(t), nil).(*sqlStore)
		for table, want := range wantColumns {
			if diff := cmp.Diff(want, columns(t, s, table)); diff != "" {
				t.Errorf("%s columns (-want +got):\n%s", table, diff)
			}
		}
		var version int
		if err := s.db.QueryRow(`SELECT max(version_id) FROM ` + versionTable).Scan(&version); err != nil || version != versions[0] {
			t.Errorf("schema version %d, %v; want %d", version, err, versions[0])
		}
		for _, col := range columns(t, s, "events") {
			if strings.Contains(col, "lat") || strings.Contains(col, "lon") || strings.Contains(col, "coord") || strings.Contains(col, "token") {
				t.Errorf("events has a column %q: no coordinates or credentials are kept", col)
			}
		}
	})
}

// TestReplicasMigrateTogether: replicas starting at once on one PostgreSQL
// database all open it; the advisory lock lets one migrate, the others wait.
func TestReplicasMigrateTogether(t *testing.T) {
	url := postgresEngine().url(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(context.Background(), url, nil)
			if err == nil {
				_, err = st.Begin(context.Background(), "alice", "search_rides", nil)
				st.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("replica start: %v", err)
		}
	}
}

package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashChildEnv names the database the crash child writes to; set only in
// the child process.
const crashChildEnv = "RELAY_STORE_CRASH_CHILD_URL"

// crashWriters is how many goroutines of the crash child write at once, so
// that the group-commit writer batches them and the kill lands in the
// middle of a batch: every write of a batch is acknowledged only after its
// commit, so none of them may be missing after the kill.
const crashWriters = 4

// TestCrashChild is the writer half of TestCrashLosesNothing: run in a child
// process, it writes events (and now and then an intent and a connector
// report) as fast as it can and prints each acknowledged write, until it is
// killed.
func TestCrashChild(t *testing.T) {
	url := os.Getenv(crashChildEnv)
	if url == "" {
		t.Skip("the child half of TestCrashLosesNothing")
	}
	ctx := context.Background()
	st, err := Open(ctx, url, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	refs, err := st.Begin(ctx, "alice", "search_rides", nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("journey", refs.JourneyID)
	for w := 1; w < crashWriters; w++ {
		go func() {
			for i := 0; ; i++ {
				ev, err := st.RecordEvent(ctx, "alice", Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID,
					RequestID: fmt.Sprintf("w%d-%d", w, i), Tool: "search_rides", Status: "ok"})
				if err != nil {
					fmt.Println("error", err)
					os.Exit(2)
				}
				fmt.Println("event", ev.ID, refs.IntentID)
			}
		}()
	}
	intent := refs.IntentID
	for i := 0; ; i++ {
		if i%10 == 9 {
			in, err := st.NewIntent(ctx, "alice", refs.JourneyID, "search_rides")
			if err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			intent = in.ID
			fmt.Println("intent", in.ID)
			if err := st.ReportConnectors(ctx, "alice", ConnectorReport{SessionID: refs.SessionID,
				Connectors: []ConnectorState{{ID: "flights", Installed: true, Enabled: i%20 == 9}}}); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		ev, err := st.RecordEvent(ctx, "alice", Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: intent,
			RequestID: "r" + strconv.Itoa(i), Tool: "search_rides", Status: "ok"})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		// os.Stdout is unbuffered: the line is out once RecordEvent returned.
		fmt.Println("event", ev.ID, intent)
	}
}

// TestCrashLosesNothing kills a writing process with SIGKILL in the middle of
// its writes, reopens the database and checks that every write the child saw
// acknowledged is there and that the database is consistent.
func TestCrashLosesNothing(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("in the crash child")
	}
	forEachEngine(t, func(t *testing.T, e engine) {
		url := e.url(t)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+url)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var journey string
		acked := map[int64]string{} // event id → intent id
		intents := map[string]bool{}
		lines := bufio.NewScanner(out)
		deadline := time.Now().Add(60 * time.Second)
		for len(acked) < 300 && time.Now().Before(deadline) && lines.Scan() {
			f := strings.Fields(lines.Text())
			switch {
			case len(f) == 2 && f[0] == "journey":
				journey = f[1]
			case len(f) == 2 && f[0] == "intent":
				intents[f[1]] = true
			case len(f) == 3 && f[0] == "event":
				id, _ := strconv.ParseInt(f[1], 10, 64)
				acked[id] = f[2]
			case len(f) > 0 && f[0] == "error":
				t.Fatalf("child: %s", lines.Text())
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Lines already written before the kill are acknowledged writes too.
		for lines.Scan() {
			f := strings.Fields(lines.Text())
			if len(f) == 3 && f[0] == "event" {
				id, _ := strconv.ParseInt(f[1], 10, 64)
				acked[id] = f[2]
			} else if len(f) == 2 && f[0] == "intent" {
				intents[f[1]] = true
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("child did not die of SIGKILL: %v", err)
		}
		if journey == "" || len(acked) < 10 {
			t.Fatalf("child acknowledged %d events in journey %q before the kill; want a real run", len(acked), journey)
		}

		st := open(t, url, nil)
		evs, err := st.Events(bg, "alice", journey)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[int64]Event{}
		for _, ev := range evs {
			stored[ev.ID] = ev
		}
		for id, intent := range acked {
			if ev, ok := stored[id]; !ok || ev.IntentID != intent {
				t.Errorf("acknowledged event %d (intent %s) lost after kill -9: stored %+v", id, intent, ev)
			}
		}
		for id := range intents {
			if _, err := st.Intent(bg, "alice", id); err != nil {
				t.Errorf("acknowledged intent %s lost after kill -9: %v", id, err)
			}
		}
		if len(evs) > len(acked)+crashWriters {
			t.Errorf("%d events stored, %d acknowledged: at most one write per writer may have committed unacknowledged", len(evs), len(acked))
		}
		checkConsistent(t, st)
		if _, err := st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: journey, IntentID: evs[0].IntentID, RequestID: "after"}); err != nil {
			t.Errorf("write after the crash: %v", err)
		}
		t.Logf("%s: %d events acknowledged before SIGKILL, all there", e.name, len(acked))
	})
}

// checkConsistent asks the engine itself whether the database is sound and
// checks every reference by hand (foreign keys are on, so this is belt and
// braces against a half-applied write).
func checkConsistent(t *testing.T, st Store) {
	t.Helper()
	s := st.(*sqlStore)
	if s.d == sqliteDialect {
		var res string
		if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
			t.Errorf("integrity_check = %q, %v", res, err)
		}
		rows, err := s.db.Query(`PRAGMA foreign_key_check`)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Next() {
			t.Errorf("foreign_key_check reports violations")
		}
		rows.Close()
	}
	for _, q := range []string{
		`SELECT count(*) FROM events e LEFT JOIN intents i ON i.id = e.intent_id WHERE i.id IS NULL`,
		`SELECT count(*) FROM events e LEFT JOIN journeys j ON j.id = e.journey_id WHERE j.id IS NULL`,
		`SELECT count(*) FROM intents i LEFT JOIN journeys j ON j.id = i.journey_id WHERE j.id IS NULL`,
		`SELECT count(*) FROM journeys j LEFT JOIN sessions s ON s.id = j.session_id WHERE s.id IS NULL OR s.actor <> j.actor`,
		`SELECT count(*) FROM events e JOIN intents i ON i.id = e.intent_id WHERE i.journey_id <> e.journey_id`,
	} {
		var n int
		if err := s.db.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s = %d, %v; want 0", q, n, err)
		}
	}
}

// TestSQLitePragmas: the settings the crash and concurrency guarantees rest
// on are in force on every pooled connection, and the write path's journals
// are in memory (temp_store 2).
func TestSQLitePragmas(t *testing.T) {
	st := open(t, sqliteEngine().url(t), nil).(*sqlStore)
	for pragma, want := range map[string]string{
		"journal_mode": "wal", "synchronous": "2", "foreign_keys": "1", "busy_timeout": "5000", "temp_store": "2",
	} {
		var got string
		if err := st.db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil || got != want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", pragma, got, err, want)
		}
	}
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var bg = context.Background()

func ptr[T any](v T) *T { return &v }

func TestBeginAndRead(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		c := newClock()
		st := open(t, e.url(t), c)
		jc := json.RawMessage(`{"destination_city":"Glasgow","party_size":2}`)
		refs, err := st.Begin(bg, "alice", "search_rides", jc)
		if err != nil {
			t.Fatal(err)
		}
		if refs.SessionID == "" || refs.JourneyID == "" || refs.IntentID == "" {
			t.Fatalf("Begin gave empty references: %+v", refs)
		}
		ses, err := st.Session(bg, "alice", refs.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Session{ID: refs.SessionID, Actor: "alice", CreatedAt: c.Now()}, ses); diff != "" {
			t.Errorf("Session (-want +got):\n%s", diff)
		}
		j, err := st.Journey(bg, "alice", refs.JourneyID)
		if err != nil {
			t.Fatal(err)
		}
		want := Journey{ID: refs.JourneyID, SessionID: refs.SessionID, Actor: "alice", Context: jc, CreatedAt: c.Now(), UpdatedAt: c.Now()}
		if diff := cmp.Diff(want, j); diff != "" {
			t.Errorf("Journey (-want +got):\n%s", diff)
		}
		in, err := st.Intent(bg, "alice", refs.IntentID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Intent{ID: refs.IntentID, JourneyID: refs.JourneyID, Tool: "search_rides", CreatedAt: c.Now()}, in); diff != "" {
			t.Errorf("Intent (-want +got):\n%s", diff)
		}

		c.Advance(time.Minute)
		j2, err := st.NewJourney(bg, "alice", refs.SessionID, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Journey(bg, "alice", j2.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(j2, got); diff != "" || string(got.Context) != "{}" || !got.CreatedAt.Equal(c.Now()) {
			t.Errorf("NewJourney returned %+v, read back %+v", j2, got)
		}
		in2, err := st.NewIntent(bg, "alice", j2.ID, "continue_journey")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := st.Intent(bg, "alice", in2.ID); err != nil || got != in2 {
			t.Errorf("Intent(%s) = %+v, %v; want %+v", in2.ID, got, err, in2)
		}
	})
}

func TestSetJourneyContext(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		c := newClock()
		st := open(t, e.url(t), c)
		refs, err := st.Begin(bg, "alice", "search_rides", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Hour)
		next := json.RawMessage(`{"origin_airport":"GLA"}`)
		j, err := st.SetJourneyContext(bg, "alice", refs.JourneyID, next)
		if err != nil {
			t.Fatal(err)
		}
		if string(j.Context) != string(next) || !j.UpdatedAt.Equal(c.Now()) || j.CreatedAt.Equal(c.Now()) {
			t.Errorf("SetJourneyContext = %+v; want context %s updated now, created an hour ago", j, next)
		}
		if got, _ := st.Journey(bg, "alice", refs.JourneyID); string(got.Context) != string(next) {
			t.Errorf("read back context %s, want %s", got.Context, next)
		}
		if _, err := st.SetJourneyContext(bg, "alice", refs.JourneyID, json.RawMessage(`{"oops"`)); !errors.Is(err, ErrInvalid) {
			t.Errorf("invalid JSON: err = %v, want ErrInvalid", err)
		}
	})
}

// TestOwnership: every call that names a record refuses another actor's
// with ErrForeignActor and an unknown id with ErrNotFound.
func TestOwnership(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		st := open(t, e.url(t), nil)
		a, err := st.Begin(bg, "alice", "search_rides", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Begin(bg, "bob", "search_rides", nil)
		if err != nil {
			t.Fatal(err)
		}
		event := func(journey, intent string) Event {
			return Event{Kind: EventRequest, JourneyID: journey, IntentID: intent, RequestID: "r1"}
		}
		calls := map[string]func(actor string, r Refs) error{
			"Session":    func(actor string, r Refs) error { _, err := st.Session(bg, actor, r.SessionID); return err },
			"NewJourney": func(actor string, r Refs) error { _, err := st.NewJourney(bg, actor, r.SessionID, nil); return err },
			"Journey":    func(actor string, r Refs) error { _, err := st.Journey(bg, actor, r.JourneyID); return err },
			"SetJourneyContext": func(actor string, r Refs) error {
				_, err := st.SetJourneyContext(bg, actor, r.JourneyID, nil)
				return err
			},
			"NewIntent": func(actor string, r Refs) error { _, err := st.NewIntent(bg, actor, r.JourneyID, "x"); return err },
			"Intent":    func(actor string, r Refs) error { _, err := st.Intent(bg, actor, r.IntentID); return err },
			"ReportConnectors": func(actor string, r Refs) error {
				return st.ReportConnectors(bg, actor, ConnectorReport{SessionID: r.SessionID})
			},
			"ConnectorReport": func(actor string, r Refs) error { _, err := st.ConnectorReport(bg, actor, r.SessionID); return err },
			"RecordEvent": func(actor string, r Refs) error {
				_, err := st.RecordEvent(bg, actor, event(r.JourneyID, r.IntentID))
				return err
			},
			"Events": func(actor string, r Refs) error { _, err := st.Events(bg, actor, r.JourneyID); return err },
		}
		unknown := Refs{SessionID: "no-such-session", JourneyID: "no-such-journey", IntentID: "no-such-intent"}
		for name, call := range calls {
			if err := call("alice", a); err != nil {
				t.Errorf("%s by the owner: %v", name, err)
			}
			if err := call("bob", a); !errors.Is(err, ErrForeignActor) {
				t.Errorf("%s of alice's by bob: err = %v, want ErrForeignActor", name, err)
			}
			if err := call("alice", unknown); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s of an unknown id: err = %v, want ErrNotFound", name, err)
			}
		}
		// Bob's foreign attempts changed nothing of alice's.
		if evs, _ := st.Events(bg, "alice", a.JourneyID); len(evs) != 1 {
			t.Errorf("alice's journey has %d events, want only her own 1", len(evs))
		}
		// An intent of another journey (even one's own) is not this journey's.
		b2, _ := st.Begin(bg, "alice", "search_rides", nil)
		if _, err := st.RecordEvent(bg, "alice", event(a.JourneyID, b2.IntentID)); !errors.Is(err, ErrNotFound) {
			t.Errorf("event with an intent of another journey: err = %v, want ErrNotFound", err)
		}
		if _, err := st.RecordEvent(bg, "alice", event(a.JourneyID, b.IntentID)); !errors.Is(err, ErrForeignActor) {
			t.Errorf("event with bob's intent in alice's journey: err = %v, want ErrForeignActor", err)
		}
		if _, err := st.Begin(bg, "", "search_rides", nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("Begin with no actor: err = %v, want ErrInvalid", err)
		}
	})
}

func TestConnectorReportLatestWins(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		c := newClock()
		st := open(t, e.url(t), c)
		refs, _ := st.Begin(bg, "alice", "search_rides", nil)
		r, err := st.ConnectorReport(bg, "alice", refs.SessionID)
		if err != nil || len(r.Connectors) != 0 || !r.ReportedAt.IsZero() {
			t.Fatalf("before any report: %+v, %v; want an empty report", r, err)
		}
		first := []ConnectorState{
			{ID: "flights", Installed: true, Enabled: true, Authorized: true, Available: true},
			{ID: "stays", Installed: true, Enabled: false, Authorized: true, Available: true},
		}
		if err := st.ReportConnectors(bg, "alice", ConnectorReport{SessionID: refs.SessionID, Connectors: first}); err != nil {
			t.Fatal(err)
		}
		r, _ = st.ConnectorReport(bg, "alice", refs.SessionID)
		if diff := cmp.Diff(ConnectorReport{SessionID: refs.SessionID, Connectors: first, ReportedAt: c.Now()}, r); diff != "" {
			t.Errorf("first report (-want +got):\n%s", diff)
		}
		c.Advance(time.Second)
		second := []ConnectorState{{ID: "stays", Installed: true, Enabled: true, Authorized: false, Available: true}}
		if err := st.ReportConnectors(bg, "alice", ConnectorReport{SessionID: refs.SessionID, Connectors: second}); err != nil {
			t.Fatal(err)
		}
		// A report stamped before the stored one lost the race: ignored.
		late := ConnectorReport{SessionID: refs.SessionID, Connectors: first, ReportedAt: c.Now().Add(-time.Millisecond)}
		if err := st.ReportConnectors(bg, "alice", late); err != nil {
			t.Fatalf("older report: %v, want it dropped without error", err)
		}
		r, _ = st.ConnectorReport(bg, "alice", refs.SessionID)
		if diff := cmp.Diff(ConnectorReport{SessionID: refs.SessionID, Connectors: second, ReportedAt: c.Now()}, r); diff != "" {
			t.Errorf("latest report (-want +got):\n%s", diff)
		}
	})
}

func TestEvents(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		c := newClock()
		st := open(t, e.url(t), c)
		refs, _ := st.Begin(bg, "alice", "search_rides", nil)
		base := Event{JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "req-1"}
		with := func(f func(*Event)) Event { ev := base; f(&ev); return ev }
		valid := []Event{
			with(func(e *Event) { e.Kind, e.Tool, e.Status, e.RequestScope = EventRequest, "search_rides", "ok", "rs_1" }),
			with(func(e *Event) {
				e.Kind, e.Provider, e.OptionID, e.AmountMinor, e.Currency = EventSelection, "trident", "opt_1", ptr(int64(6240)), "GBP"
			}),
			with(func(e *Event) { e.Kind, e.Provider, e.Status = EventHandoff, "trident", "web" }),
			with(func(e *Event) { e.Kind, e.Provider, e.Status = EventOutcome, "trident", "unknown" }),
		}
		var want []Event
		for i, ev := range valid {
			c.Advance(time.Second)
			got, err := st.RecordEvent(bg, "alice", ev)
			if err != nil {
				t.Fatalf("event %d (%s): %v", i, ev.Kind, err)
			}
			if got.ID <= 0 || (len(want) > 0 && got.ID <= want[len(want)-1].ID) || !got.OccurredAt.Equal(c.Now()) {
				t.Errorf("event %d: id %d at %v; want increasing ids stamped now", i, got.ID, got.OccurredAt)
			}
			want = append(want, got)
		}
		got, err := st.Events(bg, "alice", refs.JourneyID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Events (-recorded +listed):\n%s", diff)
		}

		invalid := map[string]Event{
			"unknown kind":        with(func(e *Event) { e.Kind = "conversion" }),
			"no journey":          with(func(e *Event) { e.Kind, e.JourneyID = EventRequest, "" }),
			"no intent":           with(func(e *Event) { e.Kind, e.IntentID = EventRequest, "" }),
			"no request id":       with(func(e *Event) { e.Kind, e.RequestID = EventRequest, "" }),
			"selection no option": with(func(e *Event) { e.Kind, e.Provider = EventSelection, "trident" }),
			"handoff no provider": with(func(e *Event) { e.Kind = EventHandoff }),
			"outcome no status":   with(func(e *Event) { e.Kind, e.Provider = EventOutcome, "trident" }),
			"amount, no currency": with(func(e *Event) { e.Kind, e.AmountMinor = EventRequest, ptr(int64(1)) }),
			"currency, no amount": with(func(e *Event) { e.Kind, e.Currency = EventRequest, "GBP" }),
		}
		for name, ev := range invalid {
			if _, err := st.RecordEvent(bg, "alice", ev); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: err = %v, want ErrInvalid", name, err)
			}
		}
		if got, _ := st.Events(bg, "alice", refs.JourneyID); len(got) != len(want) {
			t.Errorf("after refused events: %d events, want %d", len(got), len(want))
		}
	})
}

func TestPurge(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		c := newClock()
		st := open(t, e.url(t), c)
		record := func(r Refs) {
			t.Helper()
			if _, err := st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: r.JourneyID, IntentID: r.IntentID, RequestID: "r"}); err != nil {
				t.Fatal(err)
			}
		}
		// old: everything 40 days ago. active: begun 40 days ago, with an
		// event yesterday. fresh: begun yesterday.
		old, _ := st.Begin(bg, "alice", "search_rides", nil)
		record(old)
		st.ReportConnectors(bg, "alice", ConnectorReport{SessionID: old.SessionID, Connectors: []ConnectorState{{ID: "flights"}}})
		active, _ := st.Begin(bg, "alice", "search_rides", nil)
		record(active)
		c.Advance(39 * 24 * time.Hour)
		record(active)
		fresh, _ := st.Begin(bg, "alice", "search_rides", nil)
		record(fresh)
		c.Advance(24 * time.Hour)

		p := &Purger{Store: st, Retention: 30 * 24 * time.Hour, Now: c.Now, Log: slog.New(slog.DiscardHandler)}
		n, err := p.PurgeOnce(bg)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Purged{Events: 2, ConnectorReports: 1, Intents: 1, Journeys: 1, Sessions: 1}, n); diff != "" {
			t.Errorf("purged (-want +got):\n%s", diff)
		}
		if _, err := st.Journey(bg, "alice", old.JourneyID); !errors.Is(err, ErrNotFound) {
			t.Errorf("old journey after purge: err = %v, want ErrNotFound", err)
		}
		if _, err := st.Session(bg, "alice", old.SessionID); !errors.Is(err, ErrNotFound) {
			t.Errorf("old session after purge: err = %v, want ErrNotFound", err)
		}
		if evs, err := st.Events(bg, "alice", active.JourneyID); err != nil || len(evs) != 1 {
			t.Errorf("active journey after purge: %d events, %v; want its 1 recent event", len(evs), err)
		}
		if evs, err := st.Events(bg, "alice", fresh.JourneyID); err != nil || len(evs) != 1 {
			t.Errorf("fresh journey after purge: %d events, %v; want 1", len(evs), err)
		}
		if n, _ := st.Purge(bg, c.Now().Add(-30*24*time.Hour)); n != (Purged{}) {
			t.Errorf("second purge deleted %+v, want nothing", n)
		}
		// Everything is older than a cut-off in the future.
		n, _ = st.Purge(bg, c.Now().Add(time.Second))
		if diff := cmp.Diff(Purged{Events: 2, Intents: 2, Journeys: 2, Sessions: 2}, n); diff != "" {
			t.Errorf("purge of everything (-want +got):\n%s", diff)
		}
	})
}

// TestConcurrentWriters: writers on one journey and on their own journeys
// at once lose nothing and never collide on an id.
func TestConcurrentWriters(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		st := open(t, e.url(t), nil)
		shared, err := st.Begin(bg, "alice", "search_rides", nil)
		if err != nil {
			t.Fatal(err)
		}
		const writers, each = 8, 25
		var wg sync.WaitGroup
		errs := make(chan error, writers*each*2)
		ids := make(chan int64, writers*each*2)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own, err := st.Begin(bg, "alice", "search_rides", nil)
				if err != nil {
					errs <- err
					return
				}
				for i := range each {
					for _, r := range []Refs{shared, own} {
						ev, err := st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: r.JourneyID,
							IntentID: r.IntentID, RequestID: fmt.Sprintf("w%d-%d", w, i)})
						if err != nil {
							errs <- err
							continue
						}
						ids <- ev.ID
					}
					if err := st.ReportConnectors(bg, "alice", ConnectorReport{SessionID: shared.SessionID}); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		close(ids)
		for err := range errs {
			t.Errorf("concurrent write: %v", err)
		}
		seen := map[int64]bool{}
		for id := range ids {
			if seen[id] {
				t.Errorf("event id %d given twice", id)
			}
			seen[id] = true
		}
		evs, err := st.Events(bg, "alice", shared.JourneyID)
		if err != nil || len(evs) != writers*each {
			t.Errorf("shared journey: %d events, %v; want %d", len(evs), err, writers*each)
		}
	})
}

// TestRestart: close and reopen the same database; everything is there and
// the migrations, already applied, run again harmlessly.
func TestRestart(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		url := e.url(t)
		st, err := Open(bg, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		refs, _ := st.Begin(bg, "alice", "search_rides", json.RawMessage(`{"currency":"GBP"}`))
		st.ReportConnectors(bg, "alice", ConnectorReport{SessionID: refs.SessionID, Connectors: []ConnectorState{{ID: "flights", Installed: true}}})
		ev, err := st.RecordEvent(bg, "alice", Event{Kind: EventHandoff, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "r", Provider: "uber", Status: "app_link"})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}

		st = open(t, url, nil)
		if j, err := st.Journey(bg, "alice", refs.JourneyID); err != nil || string(j.Context) != `{"currency":"GBP"}` {
			t.Errorf("journey after restart: %+v, %v", j, err)
		}
		if r, err := st.ConnectorReport(bg, "alice", refs.SessionID); err != nil || len(r.Connectors) != 1 || !r.Connectors[0].Installed {
			t.Errorf("connector report after restart: %+v, %v", r, err)
		}
		evs, err := st.Events(bg, "alice", refs.JourneyID)
		if err != nil || len(evs) != 1 || evs[0] != ev {
			t.Errorf("events after restart: %+v, %v; want [%+v]", evs, err, ev)
		}
		// New ids keep increasing after a restart.
		ev2, err := st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "r2"})
		if err != nil || ev2.ID <= ev.ID {
			t.Errorf("event after restart: id %d, %v; want above %d", ev2.ID, err, ev.ID)
		}
	})
}

func TestOpenRefusesBadURLs(t *testing.T) {
	for _, url := range []string{"", "mysql://x", "sqlite:", "sqlite::memory:", "sqlite:relay.db?mode=ro", "relay.db"} {
		if st, err := Open(bg, url, nil); err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded, want an error", url)
		}
	}
	_, err := Open(bg, "postgres://u:s3cret@127.0.0.1:1/x?connect_timeout=1", nil)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Open with a password and no server: err = %v; want an error that does not repeat the password", err)
	}
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": DefaultRetention, "30d": 30 * 24 * time.Hour, "1d": 24 * time.Hour, "90m": 90 * time.Minute, " 720h ": 720 * time.Hour,
	} {
		if got, err := ParseRetention(in); err != nil || got != want {
			t.Errorf("ParseRetention(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "0d", "-1h", "-3d", "thirty", "1.5d", "d"} {
		if got, err := ParseRetention(in); err == nil {
			t.Errorf("ParseRetention(%q) = %v, want an error", in, got)
		}
	}
}

// fakePurgeable records the cut-offs it was asked to purge before.
type fakePurgeable struct {
	mu      sync.Mutex
	befores []time.Time
	calls   chan struct{}
}

func (f *fakePurgeable) Purge(_ context.Context, before time.Time) (Purged, error) {
	f.mu.Lock()
	f.befores = append(f.befores, before)
	f.mu.Unlock()
	f.calls <- struct{}{}
	return Purged{}, errors.New("database is down")
}

// TestPurgerRuns: the purger purges at start and then at each tick, with the
// cut-off retention before its clock, keeps going after a failed purge, and
// stops with its context. No sleeping: the test owns the ticks.
func TestPurgerRuns(t *testing.T) {
	c := newClock()
	f := &fakePurgeable{calls: make(chan struct{})}
	ticks := make(chan time.Time)
	var asked []time.Duration
	p := &Purger{Store: f, Retention: 48 * time.Hour, Interval: 10 * time.Minute, Now: c.Now,
		Log:   slog.New(slog.DiscardHandler),
		After: func(d time.Duration) <-chan time.Time { asked = append(asked, d); return ticks }}
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error)
	go func() { done <- p.Run(ctx) }()
	<-f.calls
	c.Advance(10 * time.Minute)
	ticks <- c.Now()
	<-f.calls
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	start := newClock().Now()
	want := []time.Time{start.Add(-48 * time.Hour), start.Add(10*time.Minute - 48*time.Hour)}
	if diff := cmp.Diff(want, f.befores); diff != "" {
		t.Errorf("purge cut-offs (-want +got):\n%s", diff)
	}
	if len(asked) == 0 || asked[0] != 10*time.Minute {
		t.Errorf("waited %v, want the 10m interval", asked)
	}
}

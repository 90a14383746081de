package store

import (
	"strconv"
	"sync/atomic"
	"testing"
)

// BenchmarkStore measures the operations Relay makes per tool call, on each
// engine: go test -bench . -run '^$' ./server/relay/store
func BenchmarkStore(b *testing.B) {
	for _, e := range allEngines() {
		b.Run(e.name, func(b *testing.B) {
			st := open(b, e.url(b), nil)
			refs, err := st.Begin(bg, "alice", "search_rides", nil)
			if err != nil {
				b.Fatal(err)
			}
			event := Event{Kind: EventRequest, JourneyID: refs.JourneyID, IntentID: refs.IntentID, RequestID: "r", Tool: "search_rides", Status: "ok"}
			b.Run("Begin", func(b *testing.B) {
				for b.Loop() {
					if _, err := st.Begin(bg, "alice", "search_rides", nil); err != nil {
						b.Fatal(err)
					}
				}
			})
			// A new search's one write: its session, journey and intent
			// opened with its context and request event.
			search := func(i int64) CallWrites {
				id := strconv.FormatInt(i, 10)
				o := Opening{Refs: Refs{SessionID: "ses_" + id, JourneyID: "jny_" + id, IntentID: "int_" + id}, Tool: "search_rides"}
				return CallWrites{Open: &o, JourneyID: o.JourneyID, Context: []byte(`{"party_size":2}`), Events: []Event{
					{Kind: EventRequest, JourneyID: o.JourneyID, IntentID: o.IntentID, RequestID: "req_" + id, Tool: "search_rides", Status: "ok"}}}
			}
			var n atomic.Int64
			b.Run("SearchWrite", func(b *testing.B) {
				for b.Loop() {
					if _, err := st.WriteCall(bg, "alice", search(n.Add(1))); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("SearchWriteParallel", func(b *testing.B) {
				w := st.(*sqlStore).w
				commits, batched := w.commits.Load(), w.batched.Load()
				defer func() {
					if c := w.commits.Load() - commits; c > 0 {
						b.ReportMetric(float64(w.batched.Load()-batched)/float64(c), "writes/commit")
					}
				}()
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := st.WriteCall(bg, "alice", search(n.Add(1))); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
			b.Run("Journey", func(b *testing.B) {
				for b.Loop() {
					if _, err := st.Journey(bg, "alice", refs.JourneyID); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("RecordEvent", func(b *testing.B) {
				for b.Loop() {
					if _, err := st.RecordEvent(bg, "alice", event); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("RecordEventParallel", func(b *testing.B) {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := st.RecordEvent(bg, "alice", event); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
			b.Run("ReportConnectors", func(b *testing.B) {
				r := ConnectorReport{SessionID: refs.SessionID, Connectors: []ConnectorState{
					{ID: "flights", Installed: true, Enabled: true, Authorized: true, Available: true},
					{ID: "stays", Installed: true, Enabled: true, Authorized: false, Available: true}}}
				for b.Loop() {
					if err := st.ReportConnectors(bg, "alice", r); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ConnectorReport", func(b *testing.B) {
				for b.Loop() {
					if _, err := st.ConnectorReport(bg, "alice", refs.SessionID); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Events20", func(b *testing.B) {
				r, _ := st.Begin(bg, "alice", "search_rides", nil)
				for i := range 20 {
					st.RecordEvent(bg, "alice", Event{Kind: EventRequest, JourneyID: r.JourneyID, IntentID: r.IntentID, RequestID: strconv.Itoa(i)})
				}
				for b.Loop() {
					if evs, err := st.Events(bg, "alice", r.JourneyID); err != nil || len(evs) != 20 {
						b.Fatal(len(evs), err)
					}
				}
			})
		})
	}
}

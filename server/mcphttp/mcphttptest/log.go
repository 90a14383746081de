package mcphttptest

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// PanicLog is a slog.Handler that counts the records of recovered panics
// (messages that begin "panic"): a recovered panic still answers, but is a
// bug a fuzz target should report. Every other record is dropped.
type PanicLog struct{ n atomic.Int64 }

// Panics is the number of panic records so far.
func (l *PanicLog) Panics() int64 { return l.n.Load() }

func (l *PanicLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *PanicLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *PanicLog) WithGroup(string) slog.Handler            { return l }
func (l *PanicLog) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "panic") {
		l.n.Add(1)
	}
	return nil
}

// Records is a slog.Handler that keeps every record as one line, its
// message and then its attributes as key=value, for tests of what reaches
// the log (and what must not).
type Records struct {
	mu    sync.Mutex
	lines []string
}

func (l *Records) Enabled(context.Context, slog.Level) bool { return true }
func (l *Records) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *Records) WithGroup(string) slog.Handler            { return l }
func (l *Records) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	return nil
}

// Lines are the records so far, one line each.
func (l *Records) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// String is every record so far, one per line.
func (l *Records) String() string { return strings.Join(l.Lines(), "\n") }

package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler wraps h so that every record logged with the context of a
// traced call (slog's ...Context methods) carries that call's trace_id and
// span_id, to find the trace of a log line and the lines of a trace.
// Records without a recording span pass through unchanged.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r = r.Clone()
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
	}
	return l.Handler.Handle(ctx, r)
}

func (l logHandler) WithAttrs(a []slog.Attr) slog.Handler { return logHandler{l.Handler.WithAttrs(a)} }
func (l logHandler) WithGroup(name string) slog.Handler   { return logHandler{l.Handler.WithGroup(name)} }

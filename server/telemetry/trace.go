package telemetry

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of every span the project makes.
const ScopeName = "github.com/tridenttaxis/trident-mcp"

// tracer is the project's tracer while tracing is on, nil while it is off:
// one atomic load decides, on every instrumented path.
var tracer atomic.Pointer[trace.Tracer]

// propagator reads and writes W3C Trace Context and Baggage, the formats
// SEP-414 names for _meta and that HTTP carries in the headers of the same
// names.
var propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// offSpan is what Start returns while tracing is off: a value kept in an
// interface once, so returning it allocates nothing.
var offSpan trace.Span = noop.Span{}

// Enable turns tracing on with tp: spans go to tp's exporters, and the
// global OpenTelemetry provider and propagator are set to tp and the W3C
// formats, for any library that reads them. The returned
// function turns tracing off again (tests); the command never calls it,
// shutting tp down instead.
func Enable(tp trace.TracerProvider) (disable func()) {
	t := tp.Tracer(ScopeName)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagator)
	tracer.Store(&t)
	return func() { tracer.Store(nil) }
}

// Enabled reports whether tracing is on.
func Enabled() bool { return tracer.Load() != nil }

// Start starts an internal span named name as a child of ctx's span. With
// tracing off it returns ctx and a no-op span, allocating nothing.
func Start(ctx context.Context, name string) (context.Context, trace.Span) {
	t := tracer.Load()
	if t == nil {
		return ctx, offSpan
	}
	return (*t).Start(ctx, name)
}

// StartClient starts a client span (a call to another service: Trident
// from Relay, Nominatim, OSRM, a provider's API, PostgreSQL, Redis).
func StartClient(ctx context.Context, name string) (context.Context, trace.Span) {
	t := tracer.Load()
	if t == nil {
		return ctx, offSpan
	}
	return (*t).Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient))
}

// StartServer starts the server span of a request that arrived with the
// parent ctx carries (see [FromHeaders], [FromMeta]), with its start time
// given when the request was read before the span could begin.
func StartServer(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	t := tracer.Load()
	if t == nil {
		return ctx, offSpan
	}
	return (*t).Start(ctx, name, append(opts, trace.WithSpanKind(trace.SpanKindServer))...)
}

// Fail marks span as failed with a short, secret-free description (a
// code, never an error text that could quote a caller's input).
func Fail(span trace.Span, description string) {
	if span.IsRecording() {
		span.SetStatus(codes.Error, description)
	}
}

// Propagator is the W3C Trace Context and Baggage propagator the project
// reads and writes with.
func Propagator() propagation.TextMapPropagator { return propagator }

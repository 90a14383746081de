package telemetry

import (
	"context"
	"encoding/json"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// SEP-414's _meta keys: W3C Trace Context and Baggage values, unprefixed
// (an exception to _meta's DNS-prefix rule, for compatibility with the
// OpenTelemetry semantic conventions for MCP).
const (
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
	MetaBaggage     = "baggage"
)

// FromHeaders returns ctx with the trace context and baggage of the
// request's traceparent, tracestate and baggage headers, as a parent for
// the request's span. With tracing off it returns ctx untouched.
func FromHeaders(ctx context.Context, h http.Header) context.Context {
	if !Enabled() {
		return ctx
	}
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// Meta is the trace context a request carries in params._meta (SEP-414).
// It decodes from the _meta object; unknown members are ignored.
type Meta struct {
	Traceparent string `json:"traceparent"`
	Tracestate  string `json:"tracestate"`
	Baggage     string `json:"baggage"`
}

// FromMeta returns ctx with the trace context of m when m has a valid
// traceparent: the request's own context, closer to the call than the
// HTTP hop's headers, so it wins over them. A malformed traceparent is
// ignored and never fails the request (W3C Trace Context, section 4.3).
func FromMeta(ctx context.Context, m Meta) context.Context {
	if !Enabled() || m.Traceparent == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{MetaTraceparent: m.Traceparent}
	if m.Tracestate != "" {
		carrier[MetaTracestate] = m.Tracestate
	}
	if m.Baggage != "" {
		carrier[MetaBaggage] = m.Baggage
	}
	out := propagator.Extract(ctx, carrier)
	if !trace.SpanContextFromContext(out).IsValid() {
		return ctx
	}
	return out
}

// MetaFromParams reads the SEP-414 members of a JSON-RPC params object's
// _meta; an absent or malformed _meta gives the zero Meta.
func MetaFromParams(params json.RawMessage) Meta {
	var p struct {
		Meta Meta `json:"_meta"`
	}
	if len(params) > 0 {
		json.Unmarshal(params, &p) // best effort: the front door checks params itself
	}
	return p.Meta
}

// InjectHeaders writes ctx's trace context and baggage into h, for a call
// to another service. With tracing off, or no span in ctx, it writes
// nothing.
func InjectHeaders(ctx context.Context, h http.Header) {
	if !Enabled() {
		return
	}
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// InjectMeta writes ctx's trace context into a request's _meta map under
// SEP-414's keys. With tracing off it writes nothing.
func InjectMeta(ctx context.Context, meta map[string]any) {
	if !Enabled() {
		return
	}
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	for k, v := range c {
		meta[k] = v
	}
}

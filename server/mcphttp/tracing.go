package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// The front door's span: one server span per MCP request it dispatches
// (to the fast path or the go-sdk), named as the OpenTelemetry semantic
// conventions for MCP name it ("tools/call estimate_fare", "tools/list"),
// a child of the trace context the request carries: params._meta's
// (SEP-414) when it has one, else the traceparent header's. Requests the
// front door refuses before dispatch (406, 415, -32700, -32600, ...) are in
// the access log and mcp_http_requests_total, not in traces.
//
// Attributes: the endpoint's path, the method, the tool, the revision, the
// outcome (ok or the catalogue code in lower case, the label the metrics
// count under) and whether the fast path answered. Never the arguments,
// the token or the id.
const (
	attrEndpoint = attribute.Key("mcp.endpoint")
	attrMethod   = attribute.Key("mcp.method.name")
	attrTool     = attribute.Key("gen_ai.tool.name")
	attrRevision = attribute.Key("mcp.protocol.version")
	attrOutcome  = attribute.Key("mcp.outcome")
	attrFastPath = attribute.Key("mcp.fast_path")
	attrError    = attribute.Key("error.type")
)

// arrival is when the request reached the front door, read only while
// tracing is on (the span starts once the request is read, dated back).
func arrival() time.Time {
	if telemetry.Enabled() {
		return time.Now()
	}
	return time.Time{}
}

// traceRequest starts the request's span and returns the request with it
// in its context; the caller ends the span once the reply is written. Off,
// it returns r and a no-op span.
func (d *door) traceRequest(r *http.Request, arrived time.Time, method, tool string, meta telemetry.Meta, fast bool) (*http.Request, trace.Span) {
	if !telemetry.Enabled() {
		_, span := telemetry.Start(r.Context(), "")
		return r, span
	}
	ctx := telemetry.FromMeta(telemetry.FromHeaders(r.Context(), r.Header), meta)
	name := method
	if tool != "" {
		name += " " + tool
	}
	ctx, span := telemetry.StartServer(ctx, name, trace.WithTimestamp(arrived))
	span.SetAttributes(attrEndpoint.String(d.ep.Path), attrMethod.String(method), attrFastPath.Bool(fast))
	if tool != "" {
		span.SetAttributes(attrTool.String(tool))
	}
	if v := r.Header.Get(headerProtocolVersion); v != "" {
		span.SetAttributes(attrRevision.String(v))
	}
	sc := span.SpanContext()
	callInfoFrom(r.Context()).Trace = &sc
	return r.WithContext(ctx), span
}

// traceOutcome records a call's outcome on the request's span (a no-op
// when ctx holds none or tracing is off).
func traceOutcome(ctx context.Context, outcome, revision string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrOutcome.String(outcome))
	if revision != "" {
		span.SetAttributes(attrRevision.String(revision))
	}
	if outcome != metrics.OutcomeOK {
		span.SetAttributes(attrError.String(outcome))
		span.SetStatus(codes.Error, outcome)
	}
}

// traceRPCOutcome records the outcome of a method other than tools/call:
// ok, or the catalogue code of its JSON-RPC error.
func traceRPCOutcome(ctx context.Context, err error) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return
	}
	outcome := metrics.OutcomeOK
	if err != nil {
		outcome = metrics.Outcome(string(errcodes.InternalError))
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			outcome = outcomeOfRPC(je)
		}
	}
	traceOutcome(ctx, outcome, "")
}

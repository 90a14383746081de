// Package telemetry is the project's OpenTelemetry tracing, shared by the
// front door and every endpoint: one tracer, the W3C trace context read
// from HTTP headers and from a request's _meta (MCP's SEP-414 keys
// traceparent, tracestate and baggage), spans for the steps of a call, and
// the trace_id and span_id a traced call's log lines carry.
//
// Tracing is off until the command ([Enable], called by
// server/cmd/trident-mcp when OTEL_* asks for an exporter) turns it on.
// Off, [Start] returns its context unchanged and a no-op span without
// allocating, so an untraced call costs what it cost before (make bench
// shows it); instrumented code reads the same either way:
//
//	ctx, span := telemetry.Start(ctx, "trident.price")
//	defer span.End()
//	if span.IsRecording() {
//		span.SetAttributes(attribute.String("trident.tariff_band", band))
//	}
//
// Attributes follow the rule of the logs: never a token, a coordinate, an
// address or a tool's arguments; names, codes, counts and outcomes only.
// Guard them with IsRecording, as above: building the attribute list
// allocates even when the span drops it.
package telemetry

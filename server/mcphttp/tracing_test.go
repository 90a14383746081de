package mcphttp_test

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// traceOn turns tracing on for the test, into a recorder it returns.
func traceOn(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	disable := telemetry.Enable(tp)
	t.Cleanup(func() { disable(); tp.Shutdown(t.Context()) })
	return rec
}

// attrs are a span's attributes as strings.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

const (
	headerParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	metaParent   = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
)

// TestRequestSpan: each MCP request the front door dispatches is one
// server span named for the method and tool, a child of the caller's
// trace context (the traceparent header, or params._meta's, which wins:
// SEP-414), holding the endpoint, method, tool, revision, outcome and
// path, and never the arguments.
func TestRequestSpan(t *testing.T) {
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	ts := kit.Serve(t, ep.Endpoint, cfg)
	rec := traceOn(t)

	cases := []struct {
		name, body, wantParent, wantOutcome, wantFast string
	}{
		{"fast path, header", kit.CallBody("1", kit.ToolEcho, `{"text":"10 Downing Street"}`), headerParent, metrics.OutcomeOK, "true"},
		{"go-sdk, _meta wins", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"10 Downing Street"},"_meta":{"traceparent":"` + metaParent + `"}}}`,
			metaParent, metrics.OutcomeOK, "false"},
		{"refusal", kit.CallBody("3", kit.ToolRefuse, `{}`), headerParent, metrics.Outcome(kit.RefusedCode), "true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(rec.Ended())
			h := kit.Headers()
			h.Set("traceparent", headerParent)
			if r := kit.Post(t, ts.URL, h, c.body); r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			ended := rec.Ended()[before:]
			if len(ended) != 1 {
				t.Fatalf("%d spans ended, want the request's one", len(ended))
			}
			s := ended[0]
			wantTrace, wantSpan := c.wantParent[3:35], c.wantParent[36:52]
			if s.SpanContext().TraceID().String() != wantTrace || s.Parent().SpanID().String() != wantSpan {
				t.Errorf("span %s in trace %s under %s, want under %s of %s", s.Name(), s.SpanContext().TraceID(), s.Parent().SpanID(), wantSpan, wantTrace)
			}
			if s.SpanKind() != trace.SpanKindServer {
				t.Errorf("kind %v, want server", s.SpanKind())
			}
			a := attrs(s)
			tool := map[bool]string{true: kit.ToolRefuse, false: kit.ToolEcho}[c.name == "refusal"]
			want := map[string]string{"mcp.endpoint": "/mcp/kit", "mcp.method.name": "tools/call", "gen_ai.tool.name": tool,
				"mcp.protocol.version": "2025-06-18", "mcp.outcome": c.wantOutcome, "mcp.fast_path": c.wantFast}
			for k, v := range want {
				if a[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, a[k], v, a)
				}
			}
			if s.Name() != "tools/call "+tool {
				t.Errorf("name %q", s.Name())
			}
			for k, v := range a {
				if v == "10 Downing Street" {
					t.Errorf("attribute %s holds the argument", k)
				}
			}
		})
	}
}

// TestCallInfoTrace: the access log learns the request's span (for its
// trace_id and span_id) while tracing is on, and nothing while it is off.
func TestCallInfoTrace(t *testing.T) {
	ep := kit.New("/mcp/kit")
	cfg, _ := kit.Config(t)
	h, err := mcphttp.New(ep.Endpoint, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	hd := kit.Headers()
	hd.Set("traceparent", headerParent)
	body := kit.CallBody("1", kit.ToolEcho, `{"text":"x"}`)
	if _, info := kit.Send(h, hd, body); info.Trace != nil {
		t.Fatalf("tracing off, but the request has span %v", info.Trace)
	}
	rec := traceOn(t)
	_, info := kit.Send(h, hd, body)
	if info.Trace == nil || info.Trace.TraceID().String() != headerParent[3:35] {
		t.Fatalf("tracing on: CallInfo.Trace = %v, want a span of trace %s", info.Trace, headerParent[3:35])
	}
	if n := len(rec.Ended()); n != 1 {
		t.Fatalf("%d spans, want 1", n)
	}
}

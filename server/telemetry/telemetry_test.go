package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func on(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	t.Cleanup(telemetry.Enable(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))))
	return rec
}

// TestOffAllocatesNothing: with tracing off, starting and ending a span
// and reading a request's context cost no allocation.
func TestOffAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	h := http.Header{"Traceparent": {parent}}
	n := testing.AllocsPerRun(100, func() {
		c := telemetry.FromMeta(telemetry.FromHeaders(ctx, h), telemetry.Meta{Traceparent: parent})
		_, span := telemetry.Start(c, "x")
		if span.IsRecording() {
			t.Fatal("recording while off")
		}
		span.End()
	})
	if n != 0 {
		t.Errorf("%v allocations per untraced span, want 0", n)
	}
}

// TestMetaWinsAndMalformedIsIgnored: a valid _meta traceparent is the
// parent over the header's; a malformed one leaves the header's.
func TestMetaWinsAndMalformedIsIgnored(t *testing.T) {
	on(t)
	h := http.Header{"Traceparent": {parent}}
	ctx := telemetry.FromHeaders(context.Background(), h)
	meta := telemetry.MetaFromParams([]byte(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"v=1"}}`))
	if got := trace.SpanContextFromContext(telemetry.FromMeta(ctx, meta)); got.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || got.TraceState().Get("v") != "1" {
		t.Errorf("_meta's context not taken: %v", got)
	}
	if got := trace.SpanContextFromContext(telemetry.FromMeta(ctx, telemetry.Meta{Traceparent: "garbage"})); got.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("a malformed _meta traceparent replaced the header's: %v", got)
	}
	m := map[string]any{}
	telemetry.InjectMeta(ctx, m)
	if m["traceparent"] != parent {
		t.Errorf("InjectMeta wrote %v", m)
	}
}

// TestTransportKeepsNoURL: the client span names the method and host,
// carries the context to the server, and never records the path or the
// query (where places and coordinates go).
func TestTransportKeepsNoURL(t *testing.T) {
	rec := on(t)
	var got string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Get("Traceparent") }))
	defer ts.Close()
	ctx, span := telemetry.Start(context.Background(), "caller")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/search?q=10+Downing+Street&lat=51.5", nil)
	resp, err := (&http.Client{Transport: telemetry.Transport(nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	span.End()
	if req.Header.Get("Traceparent") != "" {
		t.Error("the caller's request was changed")
	}
	var client sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "HTTP GET" {
			client = s
		}
	}
	if client == nil || !strings.Contains(got, client.SpanContext().SpanID().String()) {
		t.Fatalf("the server got traceparent %q, want the client span's", got)
	}
	for _, kv := range client.Attributes() {
		if v := kv.Value.Emit(); strings.Contains(v, "Downing") || strings.Contains(v, "51.5") || strings.Contains(v, "/search") {
			t.Errorf("attribute %s = %q holds the URL", kv.Key, v)
		}
	}
}

// TestLogHandler: a record logged with a traced call's context carries
// its trace_id and span_id; one without a span carries neither.
func TestLogHandler(t *testing.T) {
	on(t)
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil)))
	ctx, span := telemetry.Start(context.Background(), "call")
	log.InfoContext(ctx, "traced")
	span.End()
	log.Info("untraced")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.Contains(lines[0], `"trace_id":"`+span.SpanContext().TraceID().String()+`"`) || !strings.Contains(lines[0], `"span_id":"`+span.SpanContext().SpanID().String()+`"`) {
		t.Errorf("traced line: %s", lines[0])
	}
	if strings.Contains(lines[1], "trace_id") {
		t.Errorf("untraced line: %s", lines[1])
	}
}

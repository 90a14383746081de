package observability_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
)

// receiver is an in-process OTLP trace receiver speaking both OTLP/HTTP
// (protobuf, POST /v1/traces) and OTLP/gRPC, decoding with the
// OpenTelemetry Collector's pdata: what a collector would receive.
type receiver struct {
	ptraceotlp.UnimplementedGRPCServer
	mu    sync.Mutex
	spans []span
}

// span is what the tests read of a received span.
type span struct {
	service, name, kind string
	traceID, id, parent string
	attrs               map[string]string
	status              string
	start               uint64 // Unix nanoseconds
}

func (r *receiver) add(td ptrace.Traces) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		svc, _ := rs.Resource().Attributes().Get("service.name")
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				s := ss.At(k)
				attrs := map[string]string{}
				s.Attributes().Range(func(k string, v pcommon.Value) bool { attrs[k] = v.AsString(); return true })
				r.spans = append(r.spans, span{service: svc.AsString(), name: s.Name(), kind: s.Kind().String(),
					traceID: s.TraceID().String(), id: s.SpanID().String(), parent: s.ParentSpanID().String(), attrs: attrs,
					status: s.Status().Code().String(), start: uint64(s.StartTimestamp())})
			}
		}
	}
}

// Export implements OTLP/gRPC's trace service.
func (r *receiver) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	r.add(req.Traces())
	return ptraceotlp.NewExportResponse(), nil
}

// ServeHTTP implements OTLP/HTTP's POST /v1/traces (binary protobuf).
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces of application/x-protobuf", http.StatusUnsupportedMediaType)
		return
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	er := ptraceotlp.NewExportRequest()
	if err := er.UnmarshalProto(b); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(er.Traces())
	out, _ := ptraceotlp.NewExportResponse().MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (r *receiver) trace(id string) []span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []span
	for _, s := range r.spans {
		if s.traceID == id {
			out = append(out, s)
		}
	}
	return out
}

// listen starts the receiver for protocol and returns the endpoint the
// server's OTEL_EXPORTER_OTLP_ENDPOINT names.
func (r *receiver) listen(t *testing.T, protocol string) string {
	t.Helper()
	if protocol == "http/protobuf" {
		ts := httptest.NewServer(r)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(gs, r)
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	return "http://" + ln.Addr().String()
}

// The caller's own trace context: the search must be a child of it.
const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan   = "00f067aa0ba902b7"
	callerParent = "00-" + callerTrace + "-" + callerSpan + "-01"
)

// TestSearchIsOneTrace: one search_rides over real HTTP on loopback, with
// the caller's traceparent, is one trace in an OTLP receiver, over both
// OTLP protocols: the front door's span of the search under the caller's,
// Relay's source and store spans beneath it, Relay's HTTP call to Trident
// and beneath it Trident's front-door span of estimate_fare and its
// geocode, route (with the OSRM request) and price steps. Every span
// of the trace hangs from another of it, and no attribute holds the
// search's coordinates.
func TestSearchIsOneTrace(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			rec := &receiver{}
			endpoint := rec.listen(t, protocol)
			srv := startServer(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL="+protocol,
				"OTEL_TRACES_SAMPLER=always_on", "OTEL_SERVICE_NAME=trident-mcp-test")
			search(t, srv.Base, map[string]string{"traceparent": callerParent})
			// SIGTERM: the server drains, then flushes the spans it batched.
			if err := srv.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := srv.Wait(20 * time.Second); err != nil {
				t.Fatalf("server exit: %v\n%s", err, srv.Logs())
			}
			spans := rec.trace(callerTrace)
			tree := render(spans)
			t.Logf("the search's trace (%d spans):\n%s", len(spans), tree)
			if out := os.Getenv("TRACE_TREE_OUT"); out != "" && protocol == "http/protobuf" {
				os.WriteFile(out, []byte(tree), 0o644)
			}
			checkTrace(t, spans, srv.Logs())
		})
	}
}

func checkTrace(t *testing.T, spans []span, logs string) {
	t.Helper()
	byID := map[string]span{}
	for _, s := range spans {
		byID[s.id] = s
	}
	var roots []span
	for _, s := range spans {
		if _, ok := byID[s.parent]; !ok {
			roots = append(roots, s)
		}
	}
	if len(roots) != 1 || roots[0].parent != callerSpan || roots[0].name != "tools/call search_rides" || roots[0].attrs["mcp.endpoint"] != "/mcp/rides" {
		t.Fatalf("want one root, the front door's tools/call search_rides under the caller's span %s; roots: %+v", callerSpan, roots)
	}
	if roots[0].attrs["mcp.outcome"] != "ok" || roots[0].kind != "Server" {
		t.Errorf("search span: outcome %q kind %s", roots[0].attrs["mcp.outcome"], roots[0].kind)
	}
	// ancestors reports whether s descends from a span named name.
	under := func(s span, name string) bool {
		for p, ok := byID[s.parent]; ok; p, ok = byID[p.parent] {
			if p.name == name {
				return true
			}
		}
		return false
	}
	count := map[string]int{}
	for _, s := range spans {
		count[s.name]++
		switch s.name {
		case "trident.geocode", "trident.route", "trident.price":
			if !under(s, "tools/call estimate_fare") || !under(s, "relay.source trident") {
				t.Errorf("%s is not under Trident's estimate_fare under Relay's trident source", s.name)
			}
		case "tools/call estimate_fare":
			if s.attrs["mcp.endpoint"] != "/mcp" || s.kind != "Server" || byID[s.parent].kind != "Client" {
				t.Errorf("estimate_fare span: endpoint %q kind %s parent %s", s.attrs["mcp.endpoint"], s.kind, byID[s.parent].name)
			}
		}
		for k, v := range s.attrs {
			if strings.Contains(v, "56.00416") || strings.Contains(v, "-4.73253") || strings.Contains(v, "55.8719") {
				t.Errorf("span %s attribute %s holds a coordinate: %q", s.name, k, v)
			}
		}
	}
	for _, name := range []string{"relay.source trident", "tools/call estimate_fare", "trident.geocode", "trident.route", "trident.price", "relay.store write_call"} {
		if count[name] == 0 {
			t.Errorf("no %s span in the trace", name)
		}
	}
	// Relay asks Trident once for every vehicle class (the others as
	// alternatives): one estimate_fare, routed once through OSRM, with a
	// price step per class under it.
	if count["tools/call estimate_fare"] != 1 || count["trident.route"] != 1 || count["trident.price"] != 6 {
		t.Errorf("%d estimate_fare calls, %d route and %d price spans: want 1, 1 and one per class (6)", count["tools/call estimate_fare"], count["trident.route"], count["trident.price"])
	}
	osrm := 0
	for _, s := range spans {
		if s.name == "HTTP GET" && under(s, "trident.route") {
			osrm++
		}
	}
	if osrm == 0 {
		t.Error("no OSRM request under trident.route")
	}
	// The access log of the traced search names its trace.
	if !strings.Contains(logs, `"trace_id":"`+callerTrace+`"`) {
		t.Errorf("no log line carries trace_id %s:\n%s", callerTrace, logs)
	}
}

// render draws the trace as an indented tree, children in the order they started.
func render(spans []span) string {
	kids := map[string][]span{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.id] = true
	}
	var roots []span
	for _, s := range spans {
		if ids[s.parent] {
			kids[s.parent] = append(kids[s.parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(s span, depth int)
	walk = func(s span, depth int) {
		var notes []string
		for _, k := range []string{"mcp.endpoint", "gen_ai.tool.name", "mcp.outcome", "mcp.fast_path", "relay.provider", "server.address", "http.response.status_code", "trident.tariff_band", "db.operation.name"} {
			if v, ok := s.attrs[k]; ok {
				notes = append(notes, k+"="+v)
			}
		}
		fmt.Fprintf(&b, "%s%s [%s %s] %s\n", strings.Repeat("  ", depth), s.name, s.service, s.kind, strings.Join(notes, " "))
		c := kids[s.id]
		sort.SliceStable(c, func(i, j int) bool { return c[i].start < c[j].start })
		for _, k := range c {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		fmt.Fprintf(&b, "(parent %s)\n", r.parent)
		walk(r, 0)
	}
	return b.String()
}

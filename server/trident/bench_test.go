package trident_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// BenchmarkEstimateFareOAuth is BenchmarkEstimateFare in OAuth mode, with
// the one token a client reuses: the difference between the two is what
// OAuth mode costs per call once the token's verdict is cached.
func BenchmarkEstimateFareOAuth(b *testing.B) {
	iss := devissuertest.New(b, devissuer.Options{})
	const resource = "http://localhost:8080/mcp"
	token, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: resource, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	srv := newServer(b, &opts{host: server.Options{Auth: &auth.Config{Issuer: iss.IssuerURL(), HTTPClient: iss.HTTP.Client()}},
		ep: trident.Options{ResourceURL: resource}})
	h := srv.Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}}}`
	headers := kit.Headers()
	headers.Set("Authorization", "Bearer "+token)
	call := benchCall(h, body, headers)
	for deadline := time.Now().Add(10 * time.Second); call().code == http.StatusUnauthorized; { // keys load in the background
		if time.Now().After(deadline) {
			b.Fatal("signing keys never loaded")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if rec := call(); rec.code != 200 || !bytes.Contains(rec.body.Bytes(), []byte(`"fareGBP":62.4`)) {
			b.Fatalf("unexpected reply %d %s", rec.code, rec.body.Bytes())
		}
	}
}

// benchCall returns a function that sends body to h as a POST /mcp with
// headers, reusing one request and one response writer, so that a
// benchmark's allocations are the server's own and not the test
// scaffolding's (httptest.NewRequest parses a whole request each time).
func benchCall(h http.Handler, body string, headers http.Header) func() *benchWriter {
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header = headers
	rb := new(rewindBody)
	w := &benchWriter{header: http.Header{}}
	return func() *benchWriter {
		rb.Reset([]byte(body))
		req.Body, req.ContentLength = rb, int64(len(body))
		clear(w.header)
		w.code = 0
		w.body.Reset()
		h.ServeHTTP(w, req)
		if w.code == 0 {
			w.code = http.StatusOK
		}
		return w
	}
}

// rewindBody is a request body a benchmark refills for every request.
type rewindBody struct{ bytes.Reader }

func (*rewindBody) Close() error { return nil }

// benchWriter is an http.ResponseWriter whose header map and body buffer a
// benchmark reuses from one request to the next.
type benchWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *benchWriter) Header() http.Header { return w.header }

// SetReadDeadline and SetWriteDeadline succeed, as on a real connection,
// where the front door's http.ResponseController calls cost nothing (on a
// writer without them it builds an error each time).
func (*benchWriter) SetReadDeadline(time.Time) error  { return nil }
func (*benchWriter) SetWriteDeadline(time.Time) error { return nil }

func (w *benchWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *benchWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// BenchmarkTracedEstimateFare is BenchmarkEstimateFare with tracing on at
// full sampling (always_on), spans batched as the command batches them,
// to an exporter that drops them: what tracing costs per call in the
// server, without the export's network. Beside BenchmarkEstimateFare it
// gives the closing note's cost of tracing.
func BenchmarkTracedEstimateFare(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(telemetry.Enable(tp))
	h := newServer(b, nil).Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}}}`
	headers := kit.Headers()
	headers.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	call := benchCall(h, body, headers)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if rec := call(); rec.code != 200 || !bytes.Contains(rec.body.Bytes(), []byte(`"fareGBP":62.4`)) {
			b.Fatalf("unexpected reply %d %s", rec.code, rec.body.Bytes())
		}
	}
	b.StopTimer()
	tp.Shutdown(b.Context())
}

package telemetry

import (
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// Transport returns rt (http.DefaultTransport when nil) wrapped so that
// each request is a client span carrying the caller's trace context in its
// headers. With tracing off it returns rt itself: an untraced call costs
// nothing more. Call it after [Enable], when the client is built.
//
// Written here rather than taken from otelhttp: otelhttp records the full
// URL (url.full, query included), and the queries of this project's
// upstream calls hold coordinates and addresses, which no attribute may
// hold. This span keeps the method, the host and the status only.
func Transport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	if !Enabled() {
		return rt
	}
	return transport{rt}
}

type transport struct{ next http.RoundTripper }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, span := StartClient(r.Context(), "HTTP "+r.Method)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(attribute.String("http.request.method", r.Method), attribute.String("server.address", r.URL.Hostname()))
		if p := r.URL.Port(); p != "" {
			if n, err := strconv.Atoi(p); err == nil {
				span.SetAttributes(attribute.Int("server.port", n))
			}
		}
	}
	r2 := r.Clone(ctx) // RoundTrip must not change the caller's request
	InjectHeaders(ctx, r2.Header)
	res, err := t.next.RoundTrip(r2)
	if err != nil {
		span.SetStatus(codes.Error, "transport error")
		return nil, err
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("http.response.status_code", res.StatusCode))
		if res.StatusCode >= 400 {
			span.SetStatus(codes.Error, strconv.Itoa(res.StatusCode))
		}
	}
	return res, nil
}

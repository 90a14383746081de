package main

import (
	"strings"
	"testing"
)

// TestTracingSettings: tracing is off unless OTEL_* asks for it; an
// endpoint turns it on (OTLP/HTTP adds /v1/traces to the base, the
// signal's own endpoint is used as given), none and OTEL_SDK_DISABLED turn
// it off, and values the SDK would not take fail at start naming the
// variable.
func TestTracingSettings(t *testing.T) {
	cases := []struct {
		name     string
		vars     map[string]string
		on       bool
		protocol string
		endpoint string
		err      string
	}{
		{name: "nothing set", vars: nil, on: false, protocol: protocolHTTP, endpoint: "http://localhost:4318/v1/traces"},
		{name: "base endpoint", vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"}, on: true, protocol: protocolHTTP, endpoint: "http://collector:4318/v1/traces"},
		{name: "traces endpoint wins", vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://b/otlp/traces"}, on: true, protocol: protocolHTTP, endpoint: "https://b/otlp/traces"},
		{name: "grpc", vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true, protocol: protocolGRPC, endpoint: "http://collector:4317"},
		{name: "exporter otlp alone", vars: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true, protocol: protocolHTTP, endpoint: "http://localhost:4318/v1/traces"},
		{name: "exporter none", vars: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, on: false, protocol: protocolHTTP, endpoint: "http://c:4318/v1/traces"},
		{name: "sdk disabled", vars: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, on: false, protocol: protocolHTTP, endpoint: "http://c:4318/v1/traces"},
		{name: "zipkin", vars: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: "OTEL_TRACES_EXPORTER"},
		{name: "bad protocol", vars: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{name: "bad sampler", vars: map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, err: "OTEL_TRACES_SAMPLER"},
		{name: "bad ratio", vars: map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, err: "OTEL_TRACES_SAMPLER_ARG"},
		{name: "bad headers", vars: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, err: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "endpoint without scheme", vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"}, err: "endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseConfig(nil, env(c.vars))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one naming %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tr := cfg.tracing
			if tr.on != c.on || tr.protocol != c.protocol || tr.endpoint != c.endpoint {
				t.Errorf("on %v protocol %q endpoint %q, want %v %q %q", tr.on, tr.protocol, tr.endpoint, c.on, c.protocol, c.endpoint)
			}
		})
	}
}

// TestTracingHeadersAndResource: the exporter's headers and the resource's
// attributes are read as the SDK reads them (percent-decoded), and the
// service name wins over OTEL_RESOURCE_ATTRIBUTES' service.name.
func TestTracingHeadersAndResource(t *testing.T) {
	cfg, err := parseConfig(nil, env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318",
		"OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%3Dcret,x-team=rides", "OTEL_RESOURCE_ATTRIBUTES": "service.name=other,deployment.environment.name=prod",
		"OTEL_SERVICE_NAME": "relay-eu"}))
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.tracing.headers; h["api-key"] != "s=cret" || h["x-team"] != "rides" {
		t.Errorf("headers %v", h)
	}
	got := map[string]string{}
	for _, kv := range cfg.tracing.resource {
		got[string(kv.Key)] = kv.Value.AsString() // the last wins, as in the SDK's resource
	}
	if got["service.name"] != "relay-eu" || got["deployment.environment.name"] != "prod" || got["service.version"] == "" {
		t.Errorf("resource %v", got)
	}
}

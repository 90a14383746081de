package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// Tracing is configured by the OpenTelemetry SDK's standard variables
// (OTEL_*, the settings of groupTelemetry), read here from the table like
// every other setting and handed to the SDK as options, so that -h, the
// README and a test's environment see the same values. It is off unless
// they ask for it: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
// without OTEL_TRACES_EXPORTER=none; OTEL_SDK_DISABLED=true turns it off
// whatever else is set. The SDK's own default (otlp to localhost) would
// export from every process started without a collector beside it.

// tracingSettings are the OTEL_* settings as tracing reads them.
type tracingSettings struct {
	on       bool
	protocol string // "http/protobuf" or "grpc"
	endpoint string // the traces endpoint URL, as the exporter is given it
	headers  map[string]string
	sampler  sdktrace.Sampler
	resource []attribute.KeyValue
}

const (
	protocolHTTP = "http/protobuf"
	protocolGRPC = "grpc"
)

// tracingConfig reads the OTEL_* settings; a value the SDK would not take
// fails here, naming the variable.
func tracingConfig(v values) (tracingSettings, error) {
	var t tracingSettings
	exporter := strings.ToLower(strings.TrimSpace(v.get("OTEL_TRACES_EXPORTER")))
	base, traces := v.get("OTEL_EXPORTER_OTLP_ENDPOINT"), v.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	switch exporter {
	case "":
		t.on = base != "" || traces != ""
	case "otlp":
		t.on = true
	case "none":
	default:
		return t, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp or none (this server exports traces over OTLP only)", exporter)
	}
	if v.boolean("OTEL_SDK_DISABLED") {
		t.on = false
	}
	t.protocol = v.get("OTEL_EXPORTER_OTLP_PROTOCOL")
	if p := v.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"); p != "" {
		t.protocol = p
	}
	if t.protocol != protocolHTTP && t.protocol != protocolGRPC {
		return t, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: want http/protobuf or grpc", t.protocol)
	}
	// The signal-specific endpoint is used as given; the general one is a
	// base to which OTLP/HTTP adds /v1/traces (the OTLP exporter
	// specification). Unset: the specification's defaults.
	switch {
	case traces != "":
		t.endpoint = traces
	case base != "" && t.protocol == protocolHTTP:
		t.endpoint = strings.TrimSuffix(base, "/") + "/v1/traces"
	case base != "":
		t.endpoint = base
	case t.protocol == protocolHTTP:
		t.endpoint = "http://localhost:4318/v1/traces"
	default:
		t.endpoint = "http://localhost:4317"
	}
	if u, err := url.Parse(t.endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return t, fmt.Errorf("OTLP traces endpoint %q: want an http:// or https:// URL", t.endpoint)
	}
	var err error
	if t.headers, err = keyValues(v.get("OTEL_EXPORTER_OTLP_HEADERS")); err != nil {
		return t, fmt.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %w", err)
	}
	if t.sampler, err = sampler(v.get("OTEL_TRACES_SAMPLER"), v.get("OTEL_TRACES_SAMPLER_ARG")); err != nil {
		return t, err
	}
	attrs, err := keyValues(v.get("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return t, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	t.resource = append(t.resource, attribute.String("service.version", mcptypes.ServerVersion))
	for k, val := range attrs {
		t.resource = append(t.resource, attribute.String(k, val))
	}
	t.resource = append(t.resource, attribute.String("service.name", v.get("OTEL_SERVICE_NAME"))) // wins over the attributes', as the SDK has it
	return t, nil
}

// keyValues parses the W3C Baggage-like list the OTEL_* variables use:
// key=value pairs separated by commas, values percent-encoded.
func keyValues(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", pair)
		}
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("the value of %q: %w", k, err)
		}
		out[k] = dec
	}
	return out, nil
}

// sampler is OTEL_TRACES_SAMPLER with its argument, as the SDK
// configuration specification names them.
func sampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := 1.0
	if arg != "" {
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
		}
		ratio = r
	}
	switch name {
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio), nil
	case "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%q: want always_on, always_off, traceidratio or parentbased_ one of those", name)
}

// startTracing turns tracing on when t asks for it, before the endpoints
// are built (their HTTP clients take the tracing transport as they are
// made). The returned function flushes the spans still batched and stops
// the exporter; without tracing it does nothing.
func startTracing(ctx context.Context, t tracingSettings, logger *slog.Logger) (shutdown func(context.Context) error, err error) {
	if !t.on {
		return func(context.Context) error { return nil }, nil
	}
	var client otlptrace.Client
	if t.protocol == protocolGRPC {
		client = otlptracegrpc.NewClient(otlptracegrpc.WithEndpointURL(t.endpoint), otlptracegrpc.WithHeaders(t.headers))
	} else {
		client = otlptracehttp.NewClient(otlptracehttp.WithEndpointURL(t.endpoint), otlptracehttp.WithHeaders(t.headers))
	}
	exp, err := otlptrace.New(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(t.resource...))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithSampler(t.sampler), sdktrace.WithResource(res))
	telemetry.Enable(tp)
	// The endpoint only: OTEL_EXPORTER_OTLP_HEADERS may hold a token.
	logger.Info("tracing on", slog.String("protocol", t.protocol), slog.String("endpoint", t.endpoint))
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return tp.Shutdown(ctx)
	}, nil
}

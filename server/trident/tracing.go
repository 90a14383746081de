package trident

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/tridenttaxis/trident-mcp/server/telemetry"
	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// Trident's steps are spans under the front door's (package telemetry):
// trident.geocode (both places), trident.route and trident.price, with
// the HTTP back ends' requests (Nominatim, OSRM) under the first two. Their
// attributes say what a step decided, never what it was asked: no place
// text, no coordinate.

// endStep ends a geocode or route span, failed when the step failed (no
// match, or the back end unavailable: the error's text is never recorded,
// as it may quote the place).
func endStep(span trace.Span, err error) {
	if err != nil {
		reason := "unavailable"
		if errors.Is(err, geo.ErrNoMatch) {
			reason = "no_match"
		}
		telemetry.Fail(span, reason)
	}
	span.End()
}

// endPrice ends the price span with the tariff band and the tariff version
// that priced the trip: what the step decided. The vehicle type is the
// caller's argument, so, like the places, it is not recorded.
func endPrice(span trace.Span, q fare.Quote, err error) {
	if span.IsRecording() {
		if err != nil {
			telemetry.Fail(span, "refused")
		} else {
			span.SetAttributes(attribute.String("trident.tariff_band", string(q.Band)), attribute.String("trident.tariff_version", q.TariffVersion))
		}
	}
	span.End()
}

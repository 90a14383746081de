package sources

import (
	"context"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

// EstimatorSource adapts a provider API client ([upstream.Estimator]:
// Uber's and Lyft's) to a [Source]. Operation names the call in
// provider_calls, e.g. "GET /v1.2/estimates/price".
type EstimatorSource struct {
	Estimator upstream.Estimator
	Operation string
}

var _ Source = EstimatorSource{}

// Quote makes one estimate call. Estimates without an amount (a metered
// product that names no price) are left out: options are priced inventory.
func (e EstimatorSource) Quote(ctx context.Context, trip Trip, rec Recorder) ([]Quote, error) {
	start := time.Now()
	ests, err := e.Estimator.Estimate(ctx, upstream.Request{
		Pickup:    upstream.Coordinate{Latitude: trip.Pickup.Latitude, Longitude: trip.Pickup.Longitude},
		Dropoff:   upstream.Coordinate{Latitude: trip.Dropoff.Latitude, Longitude: trip.Dropoff.Longitude},
		PartySize: trip.PartySize,
		ProductID: trip.ProductID,
	})
	a := Attempt{Operation: e.Operation, Outcome: mcptypes.ProviderCallOutcomeOk, HTTPStatus: 200, Duration: time.Since(start)}
	if err != nil {
		se := fromUpstream(err)
		a.Outcome, a.HTTPStatus = outcomeOf(se.Code), upstream.StatusOf(err)
		rec(a)
		return nil, se
	}
	mode := mcptypes.RideOptionDataMode(e.Estimator.DataMode())
	var out []Quote
	for _, est := range ests {
		if est.AmountMinor == nil || est.Currency == "" {
			continue
		}
		q := Quote{
			Product:         mcptypes.Product{ID: est.ProductID, Name: est.ProductName},
			Price:           mcptypes.Price{AmountMinor: *est.AmountMinor, AmountMinorMax: est.AmountMinorMax, Currency: est.Currency, Basis: mcptypes.PriceBasis(est.Basis)},
			DataMode:        mode,
			DurationSeconds: est.DurationSeconds,
			DistanceMeters:  est.DistanceMeters,
			Title:           est.ProviderText.DisplayName,
			Description:     est.ProviderText.Estimate,
		}
		if q.Product.Name == "" {
			q.Product.Name = q.Product.ID
		}
		out = append(out, q)
	}
	a.Options = len(out)
	rec(a)
	return out, nil
}

// fromUpstream says an upstream failure in Relay's words; the provider's
// own error body never reaches the caller.
func fromUpstream(err error) *Error {
	se := &Error{HTTPStatus: upstream.StatusOf(err), RetryAfter: upstream.RetryAfterOf(err), Cause: err}
	switch upstream.KindOf(err) {
	case upstream.Unauthorized:
		se.Code, se.Message = mcptypes.ProviderErrorCodeUnauthorized, "the provider refused Relay's credentials"
	case upstream.RateLimited:
		se.Code, se.Message = mcptypes.ProviderErrorCodeRateLimited, "the provider is rate limiting Relay"
	case upstream.Timeout, upstream.Canceled:
		se.Code, se.Message = mcptypes.ProviderErrorCodeTimeout, "the provider did not answer in time"
	case upstream.Malformed:
		se.Code, se.Message = mcptypes.ProviderErrorCodeMalformed, "the provider's answer could not be read"
	case upstream.Rejected:
		se.Code, se.Message = mcptypes.ProviderErrorCodeRefused, "the provider declined this trip"
	default:
		se.Code, se.Message = mcptypes.ProviderErrorCodeUpstreamError, "the provider is unavailable"
	}
	return se
}

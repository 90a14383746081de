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
	// ETA, when set, is asked for pickup ETAs beside each estimate call,
	// concurrently and under the same context (so the same per-call
	// timeout), after spending one more unit of the trip's budget
	// ([Trip.Spend]); ETAOperation names that call in provider_calls, e.g.
	// "GET /v1.2/estimates/time". An ETA that fails, times out or finds
	// the budget spent only leaves eta_seconds null: the price stands.
	// Zero: no ETA call, eta_seconds null.
	ETA          upstream.ETAEstimator
	ETAOperation string
}

var _ Source = EstimatorSource{}

// Quote makes one estimate call. Estimates without an amount (a metered
// product that names no price) are left out: options are priced inventory.
func (e EstimatorSource) Quote(ctx context.Context, trip Trip, rec Recorder) ([]Quote, error) {
	req := upstream.Request{
		Pickup:    upstream.Coordinate{Latitude: trip.Pickup.Latitude, Longitude: trip.Pickup.Longitude},
		Dropoff:   upstream.Coordinate{Latitude: trip.Dropoff.Latitude, Longitude: trip.Dropoff.Longitude},
		PartySize: trip.PartySize,
		ProductID: trip.ProductID,
	}
	pending := e.etas(ctx, trip, req)
	start := time.Now()
	ests, err := e.Estimator.Estimate(ctx, req)
	a := Attempt{Operation: e.Operation, Outcome: mcptypes.ProviderCallOutcomeOk, HTTPStatus: 200, Duration: time.Since(start)}
	if err != nil {
		se := fromUpstream(err)
		a.Outcome, a.HTTPStatus = outcomeOf(se.Code), upstream.StatusOf(err)
		rec(a)
		if eta := <-pending; eta.attempt != nil {
			rec(*eta.attempt)
		}
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
	eta := <-pending
	if eta.attempt != nil {
		rec(*eta.attempt)
	}
	for i := range out {
		if n, ok := eta.etas[out[i].Product.ID]; ok {
			out[i].ETASeconds = &n
		}
	}
	return out, nil
}

// etaAnswer is what the ETA call brought back: the ETAs by product (nil
// when it failed or was not made) and its attempt (nil when not made).
type etaAnswer struct {
	etas    map[string]int64
	attempt *Attempt
}

// etas starts the ETA call, when the source has one and the budget allows
// it, and returns where its answer arrives. The channel is buffered, and
// Quote always reads it before returning, so the attempt is recorded after
// the price call's, and never after Quote has returned.
func (e EstimatorSource) etas(ctx context.Context, trip Trip, req upstream.Request) <-chan etaAnswer {
	ch := make(chan etaAnswer, 1)
	if e.ETA == nil || (trip.Spend != nil && trip.Spend(ctx) != nil) {
		ch <- etaAnswer{}
		return ch
	}
	go func() {
		start := time.Now()
		m, err := e.ETA.ETAs(ctx, req)
		a := Attempt{Operation: e.ETAOperation, Outcome: mcptypes.ProviderCallOutcomeOk, HTTPStatus: 200, Duration: time.Since(start)}
		if err != nil {
			a.Outcome, a.HTTPStatus = outcomeOf(fromUpstream(err).Code), upstream.StatusOf(err)
			m = nil
		}
		ch <- etaAnswer{etas: m, attempt: &a}
	}()
	return ch
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

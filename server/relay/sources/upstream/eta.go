package upstream

import "context"

// ETAEstimator is an adapter that also tells pickup ETAs (Uber's GET
// /v1.2/estimates/time, Lyft's GET /v1/eta): how many seconds until a car
// of each product can reach req.Pickup. The answer is keyed by the same
// product id its [Estimate]s carry (Uber's product_id, Lyft's ride_type);
// a product the provider gives no ETA for is absent. Errors are *[Error]s,
// classified as [Fetch] does.
type ETAEstimator interface {
	ETAs(ctx context.Context, req Request) (map[string]int64, error)
}

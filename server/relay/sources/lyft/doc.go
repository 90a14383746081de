// Package lyft asks Lyft's public API for cost estimates (GET /v1/cost)
// and normalises them into [upstream.Estimate]s that Relay can sign.
//
// The request is Lyft's: start_lat, start_lng, end_lat, end_lng and, to
// re-quote one product, ride_type; Authorization: Bearer with an
// application token. The answer's cost_estimates[] are in integer cents
// (estimated_cost_cents_min/max) of currency; estimates Lyft marks
// is_valid_estimate: false carry no usable price and are left out. min <
// max is an estimate_range, min = max fixed. estimated_distance_miles
// becomes whole meters, estimated_duration_seconds stays seconds, and
// primetime_percentage "25%" becomes the multiplier "1.25". display_name is
// passed through untouched as provider text.
//
// Why the token handling lives here: Lyft issues application tokens by the
// OAuth 2.0 client-credentials grant (POST /oauth/token, HTTP Basic with
// the client id and secret, grant_type=client_credentials, scope=public),
// fetched with golang.org/x/oauth2/clientcredentials under each call's own
// context. The client caches the token until a minute before expires_in
// runs out (by its clock, so tests never sleep), fetches it once for many
// concurrent callers, and on a 401 from /v1/cost drops it and tries once
// more with a fresh one: Lyft may revoke a token early, and one retry is
// bounded. The secret goes only to the token endpoint, the token only to
// /v1/cost, and neither into an error. With no client id or secret the
// client reports [upstream.NotConfigured] and sends nothing.
//
// Typical use:
//
//	c, err := lyft.New(lyft.Config{ClientID: id, ClientSecret: secret}, nil)
//	if err != nil { ... } // a bad LYFT_API_URL
//	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
//	defer cancel()
//	estimates, err := c.Estimate(ctx, upstream.Request{Pickup: p, Dropoff: d})
package lyft

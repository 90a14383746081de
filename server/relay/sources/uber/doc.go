// Package uber asks Uber's Riders API for price estimates
// (GET /v1.2/estimates/price) and normalises them into
// [upstream.Estimate]s that Relay can sign.
//
// The request is Uber's: start_latitude, start_longitude, end_latitude,
// end_longitude, and seat_count for a party of one or two (Uber reads it
// for shared rides only, and refuses more than two); Authorization: Bearer
// with the server or access token; Accept-Language for the product names.
// The answer's prices[] are in major units of currency_code, as JSON
// numbers (low_estimate 21 is $21.00); they become integer minor units
// through package money, never a float. low < high is an estimate_range,
// low = high is fixed, and no numbers (the "Metered" taxi) is metered with
// no amount. distance (miles) becomes whole meters, duration stays seconds.
// display_name and the formatted estimate text are passed through untouched
// as provider text, for Relay to treat as untrusted.
//
// Why a token and no OAuth flow here: Relay only reads prices, which Uber
// serves to a server token; a user's access token works the same way. With
// no token the client reports [upstream.NotConfigured] and sends nothing,
// so an operator who has not been granted access never has Relay knock on
// Uber's door.
//
// Typical use:
//
//	c, err := uber.New(uber.Config{AccessToken: token}, nil) // UBER_ACCESS_TOKEN in the binary
//	if err != nil { ... } // a bad UBER_API_URL
//	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
//	defer cancel()
//	estimates, err := c.Estimate(ctx, upstream.Request{Pickup: p, Dropoff: d, PartySize: 2})
//	// err is an *upstream.Error: upstream.KindOf(err) == upstream.RateLimited, ...
package uber

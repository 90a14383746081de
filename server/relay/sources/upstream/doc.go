// Package upstream is what Relay's priced API adapters (Uber, Lyft) share:
// the [Request] they answer, the normalised [Estimate] they return, the one
// [Error] type for every way a provider call fails, and the HTTP plumbing
// that turns a provider's answer into one of those.
//
// Why one error type: Relay reports each provider attempt in
// provider_calls and each failure in errors, puts a provider in cool-down
// after a 429, and answers rate_limited with retry_after_seconds. It needs
// the same few facts from every adapter, the [Kind], the HTTP status and
// the Retry-After, and nothing else. So an *Error carries those and a
// message built only from this package's own words: never the upstream
// body, never a header value, never a URL (whose query holds the
// passenger's coordinates), never a credential. A provider's error code
// ("unauthorized", "invalid_token") is kept only when it is a short
// lower-case token. Relay can log or return err.Error() as it is.
//
// Typical use in an adapter:
//
//	body, err := upstream.Fetch(httpClient, req, "uber", now)
//	if err != nil {
//		return nil, err // an *upstream.Error
//	}
//	var answer priceAnswer
//	if err := upstream.DecodeJSON("uber", http.StatusOK, body, &answer); err != nil { ... }
//
// and in Relay:
//
//	switch upstream.KindOf(err) {
//	case upstream.RateLimited:
//		coolDown(provider, upstream.RetryAfterOf(err))
//	case upstream.NotConfigured:
//		status = "credentials_required"
//	}
package upstream

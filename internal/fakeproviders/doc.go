// Package fakeproviders serves fakes of the two priced ride APIs Relay
// calls, Uber's Riders API (GET /v1.2/estimates/price, and the pickup ETAs
// of GET /v1.2/estimates/time) and Lyft's public API (POST /oauth/token, GET
// /v1/cost, and the pickup ETAs of GET /v1/eta), on loopback httptest
// servers, in those APIs' own request and response formats: Uber's prices
// in major units as JSON numbers (null for a metered taxi), Lyft's in
// integer cents, both ETAs in whole seconds. The ETA endpoints have a knob
// of their own (SetTimeKnob, SetETAKnob), so a test can fail one call of a
// search and not the other.
//
// Why fakes and not recorded answers: the adapters' hard parts are the
// failures, and a test must say which one comes next. Each fake has a
// [Knob] per test (401, 429 with or without Retry-After, 500, 503, an
// answer slower than any caller's timeout, malformed JSON, a truncated body,
// the wrong content type, valid JSON without the API's fields), set for all
// requests with Set or for the next few with Queue. It counts its calls and
// records what each carried (query, Authorization, the token request's
// form), so tests prove that credentials go only to the provider and never
// come back in an error.
//
// Typical use:
//
//	uber := fakeproviders.NewUber(t, "uber-token")
//	uber.Set(fakeproviders.RateLimited)
//	uber.SetRetryAfter("30")
//	// point the adapter at uber.URL, call it, then:
//	calls := uber.Calls() // one Recorded per request, in order
package fakeproviders

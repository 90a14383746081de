// Package sources are Relay's priced API sources behind one small
// interface ([Source]): Relay decides whether to ask one (credentials,
// inputs, coverage, cool-down, the two-source limit); a source only
// prices a [Trip] into [Quote]s (money in minor units, times in seconds,
// the provider's text as untrusted data), records each real upstream
// attempt, and fails with a sanitised [*Error] that never carries a
// credential or an upstream body.
//
// [Trident] prices through Trident's own MCP endpoint over HTTP with the
// project's generated client (client/trident): estimate_fare per vehicle
// class, start_booking for the prefilled handoff link ([Booker]). In OAuth
// mode it authenticates with Relay's own client-credentials token
// ([NewTridentTokenSource]), never its caller's. [EstimatorSource] adapts
// the provider API clients of uber/ and lyft/ (their shared HTTP and error
// handling in upstream/).
//
//	src, err := sources.NewTrident("http://127.0.0.1:8080/mcp")
//	if err != nil { ... } // not an http(s) URL
//	quotes, err := src.Quote(ctx, sources.Trip{Pickup: p, Dropoff: d, PartySize: 2, Products: products}, record)
//	if err != nil {
//		e := sources.AsError(err) // e.Code: rate_limited, timeout, refused, ...
//	}
package sources

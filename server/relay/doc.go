// Package relay is the Relay rides endpoint (/mcp/rides): a ride aggregator
// behind MCP. An assistant asks for rides between two coordinates; Relay
// asks at most two eligible priced sources ([Source]: Trident over its own
// MCP endpoint, Uber and Lyft over their APIs), returns their answers as
// signed, expiring options, and beside them the providers' browser
// handoffs: coordinate links where the provider publishes a format, entry
// pages where it does not. Nothing is booked or dispatched.
//
// The tools are search_rides, compare_rides, resolve_ride,
// get_ride_booking_handoff and continue_journey, with their schemas from
// contracts/relay, served byte for byte. Arguments that fail a schema are an
// invalid_arguments refusal listing every field (not Trident's -32602): the
// Relay specification's error table has them as a tool status.
//
// Options and relay_context objects are HMAC-SHA256-signed ([Keys]) over a
// canonical encoding and bound to the caller, the session and the journey;
// an option expires at the option TTL (at most five minutes) or the
// provider's deadline. Money is in minor units of the currency's ISO 4217
// exponent, never computed through floats. Provider text is carried as
// untrusted data in its own field, cleaned of control characters.
//
// Sessions, journeys and intents live in a store (package store:
// RELAY_DATABASE_URL, SQLite by default, PostgreSQL for several replicas),
// and relay_context carries only their signed references: a call with a
// context continues the journey the store holds for that caller, so a
// journey survives a restart and moves between replicas. journey_context
// merges under explicit input (package journey validates it), and
// continue_journey answers from the connector registry and the host's latest
// report (POST /v1/session/connectors, [ConnectorsPath]). Request,
// selection, handoff and outcome events are retained under journey and
// intent until RELAY_RETENTION purges them.
//
// Which providers exist, what they need and how their links look is data:
// the provider registry (contracts/relay/providers.json, or the operator's
// RELAY_PROVIDERS_FILE; see [LoadRegistry]).
//
// Use:
//
//	opts, err := relay.OptionsFromEnv(os.LookupEnv, relay.SelfMCPURL(":8080"))
//	if err != nil { ... }
//	s, err := relay.New(opts)
//	if err != nil { ... }
//	for name, h := range s.Handlers() { ... } // mount s.Tools() on an MCP server
package relay

// Package relay is the Relay rides endpoint (/mcp/rides): a ride aggregator
// behind MCP. An assistant asks for rides between two coordinates; Relay
// asks at most two eligible priced sources (package sources: Trident over
// its own MCP endpoint, Uber and Lyft over their APIs), returns their
// answers as signed, expiring options, and beside them the providers'
// browser handoffs: coordinate links where the provider publishes a
// format, entry pages where it does not. Nothing is booked or dispatched.
//
// The tools are search_rides, compare_rides, resolve_ride,
// get_ride_booking_handoff and continue_journey (a file each), with their
// schemas from contracts/relay, served byte for byte. Arguments that fail
// a schema are an invalid_arguments refusal listing every field (not
// Trident's -32602): the Relay specification's error table has them as a
// tool status.
//
// Relay's domain lives in packages of its own, each with one job:
//   - signing: the keys (RELAY_SIGNING_KEYS) and the HMAC-SHA256 signatures
//     over a canonical encoding that bind options and relay_context objects
//     to the caller, the session and the journey;
//   - sources: the [sources.Source] interface and the Trident source; its
//     uber/ and lyft/ adapters and their shared HTTP and error handling,
//     upstream/;
//   - registry: the provider registry (contracts/relay/providers.json, or
//     the operator's RELAY_PROVIDERS_FILE): who exists, what each needs,
//     where it serves, how its links look;
//   - money: amounts in minor units of the currency's ISO 4217 exponent,
//     never through floats;
//   - store: sessions, journeys, intents, connector reports and retained
//     events (SQLite, or PostgreSQL for several replicas);
//   - journey: the shared journey fields and the connector registry behind
//     continue_journey.
//
// An option expires at the option TTL (at most five minutes) or the
// provider's deadline. relay_context carries only signed references: a
// call with a context continues the journey the store holds for that
// caller, so a journey survives a restart and moves between replicas.
// journey_context merges under explicit input, and continue_journey
// answers from the connector registry and the host's latest report (POST
// /v1/session/connectors, [ConnectorsPath]). Request, selection, handoff
// and outcome events are retained under journey and intent until
// [Options.Retention] purges them. Each caller's calls and each provider's
// upstream requests are limited ([Options.ActorLimit],
// [Options.ProviderBudget]), and a provider that answered 429 cools down
// on every replica sharing Redis (server/limits counts and remembers both).
//
// New takes typed [Options] and reads no environment: the binary
// (server/cmd/trident-mcp) turns its settings into them.
//
//	keys, err := signing.ParseKeys("k2026:" + base64Key) // RELAY_SIGNING_KEYS's kid:base64key,...
//	if err != nil { ... }
//	rides, err := relay.New(&relay.Options{
//		Keys:        keys,
//		TridentURL:  "http://127.0.0.1:8080/mcp", // the host's own Trident
//		DatabaseURL: "postgres://relay@db/relay", // several replicas
//		Retention:   30 * 24 * time.Hour,
//	})
//	if err != nil { ... }
//	srv, err := server.New(&server.Options{PublicBaseURL: "https://rides.example"}, tridentEP, rides)
package relay

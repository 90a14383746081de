// Package journey is the pure logic of Relay's journeys: the shared journey
// fields and their validation, explicit input merged over journey_context,
// the continuation_context a response carries forward, and continue_journey's
// decision from the connector registry and what the host reported.
//
// It touches no database and no network, so every status and every refusal
// is a table test here; the endpoint loads the journey and the session's
// connector report from package store and answers with what [Registry.Decide]
// returns.
//
//	reg, _ := journey.DefaultRegistry() // contracts/relay/connectors.json
//	fields, err := journey.Combine(explicit, "journey_context", stored, "")
//	if err != nil { /* invalid_arguments with err.(journey.FieldErrors) */ }
//	d, err := reg.Decide("flights", reported, fields)
//	// d.Status is ready (d.NextAction set), proposal (d.MissingFields set),
//	// or the connector's own status.
package journey

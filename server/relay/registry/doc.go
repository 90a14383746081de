// Package registry is Relay's provider registry: which providers exist
// (in the order a search tries them), what each needs (credentials,
// inputs, authorization), where it serves, how its browser links look, and
// what it says of automated agents. It is data, not code: the shipped
// contracts/relay/providers.json, or the operator's RELAY_PROVIDERS_FILE in
// the same shape (providers.schema.json).
//
//	reg, err := registry.Load("") // or the operator's file
//	if err != nil { ... }         // a bad file stops the server at start
//	p, ok := reg.Lookup("uber")
//	h, ok := p.Handoff(&pickup, &dropoff) // the coordinate link, else the entry page
package registry

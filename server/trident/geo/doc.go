// Package geo turns the free-text pickup and dropoff of a taxi quote into
// coordinates ([Geocoder]) and a driving distance and duration ([Router]).
//
// Two kinds of back end sit behind the same interfaces:
//
//   - Embedded (the default, GEOCODER=embedded, ROUTER=embedded): a gazetteer
//     and a road graph of the service area compiled into the binary, and a
//     calibrated distance model for trips beyond the graph. No network,
//     deterministic, microseconds per call. This is what makes the spec's
//     sample payloads replay exactly, and what tests and CI use.
//   - HTTP: [Nominatim] (GEOCODER=nominatim, NOMINATIM_URL) and [OSRM]
//     (ROUTER=osrm, OSRM_URL), speaking those engines' public APIs, for an
//     operator who runs or rents them and wants street-level answers.
//
// [Config] picks between them, as the binary's GEOCODER and ROUTER settings
// do.
//
// # Errors
//
// Callers branch on two sentinels with errors.Is: [ErrNoMatch] (the input
// cannot be resolved; deterministic; the server answers GEOCODE_FAILED) and
// [ErrUnavailable] (the back end failed or timed out; retryable; the server
// answers ROUTING_UNAVAILABLE, from a geocoder as from a router: that is the
// catalogue's one retryable refusal, and GEOCODE_FAILED would tell the
// client to change an address that may be fine).
// HTTP failures are [*BackendError]s that also carry the status, the
// engine's code, the start of the body and the cause.
//
// # HTTP back ends under load and faults
//
// The engines are other people's servers, so each HTTP back end runs behind
// a guard (guard.go) that bounds what a slow or failing one can cost: every
// call ends within the timeout ([WithTimeout], GEO_TIMEOUT); identical
// lookups in flight share one request and answers are cached ([WithCache]);
// consecutive failures open a circuit breaker that fails calls at once
// until a probe succeeds ([WithBreaker]); a 429's Retry-After starts a
// cool-down instead of a retry; Nominatim is asked at most once a second
// ([WithMinInterval]). [Nominatim.Stats] and [OSRM.Stats] count lookups,
// requests, refusals, trips and recoveries. internal/fakegeo is the
// fault-injecting stand-in the tests run them against.
//
// # The embedded gazetteer
//
// About 5,000 places: every GeoNames town in Great Britain and Northern
// Ireland, OpenFlights' UK and Irish airports, a hand-curated list of the
// service area's stations, airports, ferry terminals, hospitals and
// landmarks, and the centroids of every G and PA postcode district (see
// data/ATTRIBUTION.md). Names are indexed once, normalised (case, accents,
// punctuation, "&"/"and", "Saint"/"St"), in a map from every word run a
// place is known by to the places so known. A query is normalised the same
// way, split into its comma-separated parts, its postcode taken out, and
// every run of words in each part looked up; the most specific match wins:
// a named place, then a known full postcode, then a postcode district, then
// a town, then a postcode area's post town. Ambiguous names prefer the
// service area (within 100 km of Helensburgh), then a council area named in
// the query ("Balloch, Highland"), then the most populous. Placeholders,
// junk and foreign places are refused with [ErrNoMatch] rather than guessed.
//
// Coordinate pairs ("56.0036,-4.7346": latitude, longitude, decimal
// degrees) are places too, for every geocoder, resolved before any text
// matching and without a request to an HTTP back end: exactly that point,
// [KindAirport] within 2 km of an airport's reference point (for the airport
// surcharge), otherwise [KindPoint]. Pairs out of range or outside the
// British Isles are [ErrNoMatch]. This is how a caller that knows the
// passenger's position (Relay) asks for a quote without inventing an address.
//
// # The embedded router
//
// In the service area the router follows the roads: data/roads.json is a
// graph of about 120 towns, junctions, ferry terminals and airports of Argyll
// & Bute, Loch Lomond and the Glasgow approaches, joined by the trunk, A and
// a few B roads (each section's length and typical speed) and by the vehicle
// ferries (crossing and boarding times). A point joins the graph by a short
// approach leg to its nearest node (and to any other node nearly as near);
// the route is the fastest way between the two ends' legs, its distance
// that route's miles, ferry crossings included. A point within 2 km of an
// airport is at the airport's node. Two points that share their nearest node
// are a local trip, priced by the model below; so is any trip with neither
// end within 10 km of a node. A trip with one end outside goes by the
// fastest gateway node (where the M8, M74, M80, A77, A82, A85... leave the
// area) and by the model beyond it, or, for an end within 30 km of a node
// (inland Mull), by a long approach leg if that is faster. The fastest
// route between every pair of nodes is computed once, at the first route
// (about 2 ms); a route then costs tens of microseconds.
// tools/cmd/check-roads checks the file; roads_test.go holds the accuracy
// table against real road distances, which contracts/tariff/README.md
// ("Road routing and coordinate pairs") reproduces with the sources and the
// ferry policy.
//
// # The model, outside the graph
//
// The model starts from the straight line and corrects for what lies in the
// way and how fast the roads are:
//
//  1. Path. The great-circle distance, except that a straight line across
//     the River or Firth of Clyde (west of the Clyde Tunnel) is replaced by
//     the shorter of the two legs via the Erskine Bridge or via the Clyde
//     Tunnel.
//  2. Detour. The path times a road/straight factor that falls from 1.35 for
//     the shortest hops through 1.25 at 3 km to 1.17 from 10 km on (linear
//     in between): short trips wind through streets, long ones use trunk
//     roads. A route that crosses the Clyde adds 6 km for the approach roads
//     and junctions at each end of the crossing.
//  3. Duration. The road distance driven at 30 km/h for the first 2 km,
//     55 km/h to 10 km, 78 km/h to 50 km and 95 km/h beyond, plus 60 s to
//     pull away and set down, plus 6 minutes for each end within 4 km of the
//     centre of Glasgow, Edinburgh, London, Manchester or Birmingham (these
//     two allowances apply to graph routes too).
//
// The specification's sample, Helensburgh Central -> Glasgow Airport, is
// 35,245 m and 1,983 s on the graph (A814, A82, Erskine Bridge, M8): 22
// miles and 33 minutes as quoted, as the sample payloads require
// (embedded_router_test.go guards the margins to the rounding boundaries).
//
// Every route is deterministic and symmetric (A->B equals B->A).
package geo

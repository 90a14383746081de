// Package geo turns the free-text pickup and dropoff of a taxi quote into
// coordinates ([Geocoder]) and a driving distance and duration ([Router]).
//
// Two kinds of back end sit behind the same interfaces:
//
//   - Embedded (the default, GEOCODER=embedded, ROUTER=embedded): a gazetteer
//     compiled into the binary and a calibrated distance model. No network,
//     deterministic, microseconds per call. This is what makes the spec's
//     sample payloads replay exactly, and what tests and CI use.
//   - HTTP: [Nominatim] (GEOCODER=nominatim, NOMINATIM_URL) and [OSRM]
//     (ROUTER=osrm, OSRM_URL), speaking those engines' public APIs, for an
//     operator who runs or rents them and wants street-level answers.
//
// [Config] and [ConfigFromEnv] pick between them the way the server's
// environment does.
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
// # The embedded route model
//
// The model starts from the straight line and corrects for what lies in the
// way and how fast the roads are:
//
//  1. Path. The great-circle distance, except that a straight line across
//     the River or Firth of Clyde (west of the Clyde Tunnel) is replaced by
//     the shorter of the two legs via the Erskine Bridge or via the Clyde
//     Tunnel. This one barrier dominates the service area: Helensburgh to
//     Glasgow Airport is 14.8 miles as the crow flies but 22 by road.
//  2. Detour. The path times a road/straight factor that falls from 1.35 for
//     the shortest hops through 1.25 at 3 km to 1.17 from 10 km on (linear
//     in between): short trips wind through streets, long ones use trunk
//     roads. A route that crosses the Clyde adds 6 km for the approach roads
//     and junctions at each end of the crossing.
//  3. Duration. The road distance driven at 30 km/h for the first 2 km,
//     55 km/h to 10 km, 78 km/h to 50 km and 95 km/h beyond, plus 60 s to
//     pull away and set down, plus 6 minutes for each end within 4 km of the
//     centre of Glasgow, Edinburgh, London, Manchester or Birmingham.
//
// Calibration (embedded_router_test.go holds these as a table test; miles are
// round(m/1609.344), minutes round(s/60)):
//
//	trip                                      model            real roads
//	Helensburgh Central -> Glasgow Airport    35,103 m 1,982 s 22 mi 33 min (the spec's sample, exact)
//	Helensburgh Central -> Glasgow Central    24 mi 42 min     ~25 mi ~45 min
//	Helensburgh -> Dumbarton                  9 mi 17 min      ~8 mi ~17 min
//	Helensburgh Central -> Edinburgh Airport  62 mi 76 min     ~60 mi ~1h15
//	Helensburgh -> Rhu                        2 mi 7 min       ~2 mi
//	Helensburgh -> Greenock                   31 mi 45 min     ~28 mi via Erskine
//	Glasgow Central -> Glasgow Airport        8 mi 22 min      ~8.5 mi
//
// The model is deterministic and symmetric (A->B equals B->A). It knows no
// sea lochs or ferries: Helensburgh to Dunoon or Oban comes out shorter than
// the roads round Loch Long and Loch Lomond. Use ROUTER=osrm where that
// matters.
package geo

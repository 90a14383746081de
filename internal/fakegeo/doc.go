// Package fakegeo is a fault-injecting stand-in for a Nominatim server
// (GET /search, format=jsonv2) and an OSRM server (GET
// /route/v1/driving/{lon},{lat};{lon},{lat}), for tests of the HTTP back
// ends in server/trident/geo and of the server binary pointed at them
// (GEOCODER=nominatim NOMINATIM_URL=..., ROUTER=osrm OSRM_URL=...).
//
// Healthy, it answers in those engines' real reply formats (the same shapes
// as the recorded replies in server/trident/geo/testdata): a few known places by
// name, a made-up street address near Helensburgh for any other query, and
// a route whose distance is the straight line times 1.3. A test switches a
// [Fault] on and off at any time with [Server.SetFault] and reads how many
// requests reached the engine with [Server.Requests], which is how it shows
// that a cache, a single flight or an open breaker kept calls away.
//
//	nom := fakegeo.NewNominatim()
//	defer nom.Close()
//	nom.SetFault(fakegeo.Slow) // hold every reply until the client gives up
//	... GEOCODER=nominatim NOMINATIM_URL=nom.URL ...
//	nom.SetFault(fakegeo.Healthy)
//
// It is deliberately small: no ranking, no street network, nothing a test
// would have to calibrate against.
package fakegeo

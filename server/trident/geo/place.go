package geo

import (
	"context"
	"errors"
	"math"

	"github.com/tridenttaxis/trident-mcp/server/geodesy"
)

// Kind says what sort of thing a [Place] is. The server's fare rules look at
// it (airport surcharge, 8-seater local hire), and it tells a reader of a
// resolved address how specific the match was.
type Kind string

// The kinds of place, from most to least specific for pricing purposes.
const (
	KindAirport  Kind = "airport"
	KindStation  Kind = "station"
	KindFerry    Kind = "ferry"
	KindHospital Kind = "hospital"
	KindLandmark Kind = "landmark"
	KindAddress  Kind = "address"  // a street address (HTTP back ends only)
	KindPostcode Kind = "postcode" // a postcode, resolved to its own or its district's position
	KindTown     Kind = "town"
	KindPoint    Kind = "point" // a coordinate pair the caller gave, not at an airport
)

// Place is a resolved pickup or dropoff.
type Place struct {
	Name     string  // canonical display name, e.g. "Glasgow Airport"
	Lat, Lon float64 // WGS84 degrees
	Kind     Kind
	IATA     string // three-letter code, airports only
	Postcode string // full postcode or district ("G84 7HL", "G84") when known
	// Region is the wider area, when known: council area and nation for
	// towns ("Argyll and Bute, Scotland"), the locality for a postcode
	// district ("Helensburgh") or the place that has a full postcode.
	Region string
}

// IsAirport reports whether the place is an airport, which is what the
// airport pickup/drop surcharge and meet-and-greet rules key on.
func (p Place) IsAirport() bool { return p.Kind == KindAirport }

// Valid reports whether the coordinates are finite and on the globe.
func (p Place) Valid() bool {
	return !math.IsNaN(p.Lat) && !math.IsNaN(p.Lon) &&
		p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180
}

// Geocoder turns a free-text pickup or dropoff into a [Place].
//
// Errors wrap [ErrNoMatch] when the text cannot be resolved (junk,
// placeholders, places outside the UK) and [ErrUnavailable] when the back end
// could not answer; test them with errors.Is.
type Geocoder interface {
	Geocode(ctx context.Context, query string) (Place, error)
}

// Route is a driving distance and duration between two places.
type Route struct {
	DistanceMeters  float64
	DurationSeconds float64
}

// Router finds the driving [Route] between two places.
//
// Errors wrap [ErrNoMatch] when no road route exists between the points
// (retrying cannot help) and [ErrUnavailable] when the back end could not
// answer.
type Router interface {
	Route(ctx context.Context, from, to Place) (Route, error)
}

var (
	// ErrNoMatch means the input cannot be resolved: a geocoder found no UK
	// place for the text, or a router found no road between the points. It is
	// deterministic: the same input fails the same way. The server maps it to
	// GEOCODE_FAILED.
	ErrNoMatch = errors.New("geo: no match")

	// ErrUnavailable means the back end could not answer: unreachable,
	// timed out, non-2xx, or a reply that is not what its API promises.
	// Retrying later may succeed, so the server maps it to
	// ROUTING_UNAVAILABLE (retry with backoff) whichever back end failed.
	// Errors that wrap it also wrap their cause (a *BackendError,
	// context.DeadlineExceeded, ...).
	ErrUnavailable = errors.New("geo: back end unavailable")
)

// DistanceMeters is the great-circle (haversine) distance between two places,
// in meters. The server uses it for "local hire" rules; the embedded router
// builds road distances on it.
func DistanceMeters(a, b Place) float64 {
	return haversine(a.Lat, a.Lon, b.Lat, b.Lon)
}

// haversine is [geodesy.Meters], the distance every endpoint shares.
func haversine(lat1, lon1, lat2, lon2 float64) float64 { return geodesy.Meters(lat1, lon1, lat2, lon2) }

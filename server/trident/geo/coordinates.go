package geo

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"sync"
)

// A pickup or dropoff may be a coordinate pair instead of an address, so that
// a caller that knows where the passenger is (Relay, a map, a phone's GPS)
// never has to invent an address for it: "56.0036,-4.7346" is the point at
// latitude 56.0036 N, longitude 4.7346 W. Every geocoder resolves a pair the
// same way, here, before it looks at the text: the embedded one and Nominatim
// alike, and without a request to Nominatim.

// coordinatePair is "lat,lng" in decimal degrees: an optional sign, one to
// three digits, optionally a point and up to 15 decimals, each side; spaces
// around either number are allowed. Anything else is text for the geocoder.
var coordinatePair = regexp.MustCompile(`^\s*([+-]?\d{1,3}(?:\.\d{1,15})?)\s*,\s*([+-]?\d{1,3}(?:\.\d{1,15})?)\s*$`)

// The British Isles, as the geocoders serve them (the gazetteer's towns and
// airports all lie inside): a pair outside is refused like "Paris, France".
const (
	ukMinLat, ukMaxLat = 49.8, 60.9
	ukMinLon, ukMaxLon = -8.7, 1.8
)

// airportRadiusMeters is how near an airport's reference point a coordinate
// pair must be to count as that airport, for the airport surcharge and
// meet & greet. Terminals and their drop-off roads lie within it at every UK
// airport: Glasgow's terminal is 0.8 km from the reference point, Edinburgh's
// 0.6 km, Heathrow's Terminal 5, the farthest, 1.9 km. Paisley and Renfrew,
// the nearest towns to Glasgow Airport, are 3 km away. The embedded router
// treats the same circle as the airport's node of its road graph.
const airportRadiusMeters = 2000

// airports lists the gazetteer's airports (curated and OpenFlights), for
// [coordinatePlace]. It is empty if the gazetteer fails to load (a build
// defect the tests catch): pairs then resolve as plain points.
var airports = sync.OnceValue(func() []Place {
	g, err := loadEmbedded()
	if err != nil {
		return nil
	}
	var out []Place
	for _, p := range g.places {
		if p.Kind == KindAirport {
			out = append(out, p)
		}
	}
	return out
})

// coordinatePlace resolves query when it is a coordinate pair, and reports
// ok=false when it is not (the caller then geocodes it as text). The place is
// exactly the point given. Within [airportRadiusMeters] of an airport it is
// that airport (Kind airport, its name and IATA code); anywhere else it is a
// [KindPoint] named by the pair. A pair out of range (latitude beyond ±90,
// longitude beyond ±180) or outside the British Isles is [ErrNoMatch].
func coordinatePlace(query string) (Place, bool, error) {
	m := coordinatePair.FindStringSubmatch(query)
	if m == nil {
		return Place{}, false, nil
	}
	lat, err1 := strconv.ParseFloat(m[1], 64)
	lon, err2 := strconv.ParseFloat(m[2], 64)
	switch {
	case err1 != nil || err2 != nil || math.IsNaN(lat) || math.IsNaN(lon):
		return Place{}, true, noMatch(query, "not a coordinate pair")
	case lat < -90 || lat > 90:
		return Place{}, true, noMatch(query, fmt.Sprintf("latitude %v is outside -90..90", lat))
	case lon < -180 || lon > 180:
		return Place{}, true, noMatch(query, fmt.Sprintf("longitude %v is outside -180..180", lon))
	case lat < ukMinLat || lat > ukMaxLat || lon < ukMinLon || lon > ukMaxLon:
		return Place{}, true, noMatch(query, "coordinates outside the UK")
	}
	p := Place{Name: strconv.FormatFloat(lat, 'f', -1, 64) + "," + strconv.FormatFloat(lon, 'f', -1, 64), Lat: lat, Lon: lon, Kind: KindPoint}
	best := math.Inf(1)
	for _, a := range airports() {
		if d := DistanceMeters(p, a); d <= airportRadiusMeters && d < best {
			best = d
			p.Name, p.Kind, p.IATA, p.Postcode, p.Region = a.Name, KindAirport, a.IATA, a.Postcode, a.Region
		}
	}
	return p, true, nil
}

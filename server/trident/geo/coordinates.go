package geo

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/tridenttaxis/trident-mcp/server/geodesy"
)

// A pickup or dropoff may be a coordinate pair instead of an address, so that
// a caller that knows where the passenger is (Relay, a map, a phone's GPS)
// never has to invent an address for it: "56.0036,-4.7346" is the point at
// latitude 56.0036 N, longitude 4.7346 W. Every geocoder resolves a pair the
// same way, here, before it looks at the text: the embedded one and Nominatim
// alike, and without a request to Nominatim.

// A coordinate pair is "lat,lng" in decimal degrees: an optional sign, one
// to three digits, optionally a point and up to 15 decimals, each side;
// spaces (\t \n \f \r and space) around either number are allowed.
// Anything else is text for the geocoder. [splitCoordinatePair] reads it by
// hand: the regular expression it replaced,
//
//	^\s*([+-]?\d{1,3}(?:\.\d{1,15})?)\s*,\s*([+-]?\d{1,3}(?:\.\d{1,15})?)\s*$
//
// took 430 ns and two allocations a pair against the parser's 25 ns and
// none, and every Relay search resolves twelve pairs; the tests hold the
// two to the same answers.

// splitCoordinatePair returns the two numbers of a coordinate pair as
// written, or ok=false when query is not one.
func splitCoordinatePair(query string) (lat, lon string, ok bool) {
	i := skipSpace(query, 0)
	lat, i, ok = coordinateNumber(query, i)
	if !ok {
		return "", "", false
	}
	if i = skipSpace(query, i); i == len(query) || query[i] != ',' {
		return "", "", false
	}
	lon, i, ok = coordinateNumber(query, skipSpace(query, i+1))
	if !ok || skipSpace(query, i) != len(query) {
		return "", "", false
	}
	return lat, lon, true
}

// skipSpace returns the index of the first byte at or after i that is not
// one of RE2's \s (ASCII: \t \n \f \r and space; not \v).
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\t', '\n', '\f', '\r', ' ':
			i++
		default:
			return i
		}
	}
	return i
}

// coordinateNumber reads [+-]?\d{1,3}(\.\d{1,15})? at i, and returns it
// and the index after it.
func coordinateNumber(s string, i int) (string, int, bool) {
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	n := digits(s, i)
	if n < 1 || n > 3 {
		return "", 0, false
	}
	i += n
	if i < len(s) && s[i] == '.' {
		// A point must have decimals: "56." is not a number here, and
		// nothing else the pair allows may follow it.
		n = digits(s, i+1)
		if n < 1 || n > 15 {
			return "", 0, false
		}
		i += 1 + n
	}
	return s[start:i], i, true
}

// digits counts the ASCII digits at s[i:].
func digits(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' {
		n++
	}
	return n
}

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

// latArcMeters is the length of one degree of latitude on the sphere
// [DistanceMeters] measures on.
const latArcMeters = geodesy.EarthRadiusMeters * math.Pi / 180

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
	latText, lonText, ok := splitCoordinatePair(query)
	if !ok {
		return Place{}, false, nil
	}
	lat, err1 := strconv.ParseFloat(latText, 64)
	lon, err2 := strconv.ParseFloat(lonText, 64)
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
	p := Place{Lat: lat, Lon: lon, Kind: KindPoint}
	best := math.Inf(1)
	for _, a := range airports() {
		// The great-circle distance is at least the latitude difference's
		// arc, so an airport farther north or south than the radius (and a
		// metre for rounding) cannot be within it. Skipping those spares a
		// haversine for nearly all of the 125 airports, which was 11 of the
		// 12 µs of resolving a pair (BenchmarkGeocodeCoordinates).
		if math.Abs(lat-a.Lat)*latArcMeters > airportRadiusMeters+1 {
			continue
		}
		if d := DistanceMeters(p, a); d <= airportRadiusMeters && d < best {
			best = d
			p.Name, p.Kind, p.IATA, p.Postcode, p.Region = a.Name, KindAirport, a.IATA, a.Postcode, a.Region
		}
	}
	if p.Kind == KindPoint {
		// Named once known not to be an airport, in one allocation: an
		// airport pair allocates nothing here.
		var buf [64]byte
		b := append(strconv.AppendFloat(buf[:0], lat, 'f', -1, 64), ',')
		p.Name = string(strconv.AppendFloat(b, lon, 'f', -1, 64))
	}
	return p, true, nil
}

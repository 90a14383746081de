// Package geodesy is the one great-circle distance every endpoint uses:
// Trident's geocoder and router build on it, Relay's provider registry
// decides coverage with it. It is shared so that neither endpoint imports
// the other's code for a formula.
package geodesy

import "math"

// EarthRadiusMeters is the IUGG mean Earth radius.
const EarthRadiusMeters = 6371008.8

// Meters is the great-circle (haversine) distance in meters between two
// points given in degrees.
func Meters(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	p1, p2 := lat1*rad, lat2*rad
	dp, dl := p2-p1, (lon2-lon1)*rad
	s1, s2 := math.Sin(dp/2), math.Sin(dl/2)
	h := s1*s1 + math.Cos(p1)*math.Cos(p2)*s2*s2
	return 2 * EarthRadiusMeters * math.Asin(math.Sqrt(math.Min(1, h)))
}

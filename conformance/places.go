package conformance

import (
	"math"
	"slices"
	"strings"
)

// Place is a place the suite names in its calls and whose kind it knows:
// an airport or not, and where it is, to tell a local hire from another.
// The coordinates are public ones (station, terminal or town centre) to
// about a hundred metres; the oracle gives a place within LocalMargin of the
// edge of the local area no kind, so a server's geocoder may place it a
// little differently without being judged wrong.
type Place struct {
	Name     string
	Lat, Lon float64
	Airport  bool
}

// LocalMargin is how far (miles) from the local-hire radius a place must lie
// for the oracle to say whether it is local.
const LocalMargin = 1.0

// PlaceTable is the oracle's table of named places.
type PlaceTable struct{ byName map[string]Place }

// KnownPlaces are the places the fare specs send. Every one is in or near
// the service area, so that any server for this tariff should geocode them.
var KnownPlaces = NewPlaceTable([]Place{
	{Name: "Helensburgh Central Station", Lat: 56.00416, Lon: -4.73253},
	{Name: "Helensburgh", Lat: 56.0035, Lon: -4.7335},
	{Name: "G84 7HL", Lat: 56.0040, Lon: -4.7330},
	{Name: "Rhu", Lat: 56.0150, Lon: -4.7830},
	{Name: "Cardross", Lat: 55.9620, Lon: -4.6520},
	{Name: "Garelochhead", Lat: 56.0830, Lon: -4.8290},
	{Name: "Balloch", Lat: 56.0030, Lon: -4.5830},
	{Name: "Alexandria", Lat: 55.9860, Lon: -4.5800},
	{Name: "Dumbarton", Lat: 55.9440, Lon: -4.5700},
	{Name: "Luss", Lat: 56.1010, Lon: -4.6380},
	{Name: "Arrochar", Lat: 56.1960, Lon: -4.7300},
	{Name: "Paisley", Lat: 55.8456, Lon: -4.4239},
	{Name: "Glasgow Central Station", Lat: 55.8590, Lon: -4.2580},
	{Name: "Glasgow Queen Street Station", Lat: 55.8622, Lon: -4.2510},
	{Name: "Oban", Lat: 56.4150, Lon: -5.4710},
	{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.4331, Airport: true},
	{Name: "Edinburgh Airport", Lat: 55.9500, Lon: -3.3725, Airport: true},
	{Name: "Prestwick Airport", Lat: 55.5094, Lon: -4.5867, Airport: true},
})

// NewPlaceTable indexes ps by name, case and spacing aside.
func NewPlaceTable(ps []Place) *PlaceTable {
	m := map[string]Place{}
	for _, p := range ps {
		m[placeKey(p.Name)] = p
	}
	return &PlaceTable{byName: m}
}

func placeKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Lookup returns the place called name.
func (ps *PlaceTable) Lookup(name string) (Place, bool) {
	p, ok := ps.byName[placeKey(name)]
	return p, ok
}

// Names lists the table's places in alphabetical order.
func (ps *PlaceTable) Names() []string {
	names := make([]string, 0, len(ps.byName))
	for _, p := range ps.byName {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// TripKinds says whether a trip between two named places has an airport
// end (either end) and is a local hire (both ends within the tariff's
// local-hire radius of its centre).
func (ps *PlaceTable) TripKinds(t *Tariff, pickup, dropoff string) (airport, local Kind) {
	a, aok := ps.Lookup(pickup)
	b, bok := ps.Lookup(dropoff)
	switch {
	case (aok && a.Airport) || (bok && b.Airport):
		airport = Yes
	case aok && bok:
		airport = No
	}
	la, lb := ps.local(t, a, aok), ps.local(t, b, bok)
	switch {
	case la == No || lb == No:
		local = No
	case la == Yes && lb == Yes:
		local = Yes
	}
	return airport, local
}

func (ps *PlaceTable) local(t *Tariff, p Place, known bool) Kind {
	if !known {
		return Unknown
	}
	d := GreatCircleMiles(p.Lat, p.Lon, t.Local.Lat, t.Local.Lon)
	switch {
	case d <= t.Local.RadiusMiles-LocalMargin:
		return Yes
	case d >= t.Local.RadiusMiles+LocalMargin:
		return No
	}
	return Unknown
}

// GreatCircleMiles is the haversine distance in statute miles.
func GreatCircleMiles(lat1, lon1, lat2, lon2 float64) float64 {
	const earthMiles = 3958.7613
	rad := math.Pi / 180
	dlat, dlon := (lat2-lat1)*rad, (lon2-lon1)*rad
	h := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dlon/2)*math.Sin(dlon/2)
	return 2 * earthMiles * math.Asin(math.Sqrt(h))
}

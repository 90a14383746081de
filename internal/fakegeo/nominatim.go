package fakegeo

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
)

// NewNominatim starts a fake Nominatim. Healthy, GET /search?q=... answers
// a format=jsonv2 list of one place: a known place by name (Glasgow
// Airport, Helensburgh Central Station, Dumbarton, Glasgow Central Station),
// otherwise a street address near Helensburgh made up from the query, the
// same for the same query.
func NewNominatim() *Server { return newServer(nominatim{}) }

type nominatim struct{}

// nominatimPlace is one element of a jsonv2 /search reply, in the field
// order Nominatim sends.
type nominatimPlace struct {
	PlaceID     int64             `json:"place_id"`
	Licence     string            `json:"licence"`
	OSMType     string            `json:"osm_type"`
	OSMID       int64             `json:"osm_id"`
	Lat         string            `json:"lat"`
	Lon         string            `json:"lon"`
	Category    string            `json:"category"`
	Type        string            `json:"type"`
	PlaceRank   int               `json:"place_rank"`
	Importance  float64           `json:"importance"`
	AddressType string            `json:"addresstype"`
	Name        string            `json:"name"`
	DisplayName string            `json:"display_name"`
	Address     map[string]string `json:"address"`
	ExtraTags   map[string]string `json:"extratags,omitempty"`
	BoundingBox []string          `json:"boundingbox"`
}

const licence = "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright"

// knownPlaces are answered by name, lower case.
var knownPlaces = map[string]nominatimPlace{
	"glasgow airport": {
		PlaceID: 139458830, OSMType: "way", OSMID: 23309262, Lat: "55.8687465", Lon: "-4.4331698",
		Category: "aeroway", Type: "aerodrome", PlaceRank: 30, Importance: 0.54, AddressType: "aeroway",
		Name: "Glasgow Airport", DisplayName: "Glasgow Airport, Abbotsinch Road, Paisley, Renfrewshire, Scotland, PA3 2SW, United Kingdom",
		Address:   map[string]string{"aeroway": "Glasgow Airport", "town": "Paisley", "postcode": "PA3 2SW", "country": "United Kingdom", "country_code": "gb"},
		ExtraTags: map[string]string{"iata": "GLA", "icao": "EGPF"},
	},
	"helensburgh central station": {
		PlaceID: 107163218, OSMType: "node", OSMID: 25452936, Lat: "56.0041652", Lon: "-4.7325324",
		Category: "railway", Type: "station", PlaceRank: 30, Importance: 0.31, AddressType: "railway",
		Name: "Helensburgh Central", DisplayName: "Helensburgh Central, East Princes Street, Helensburgh, Argyll and Bute, Scotland, G84 7HL, United Kingdom",
		Address: map[string]string{"railway": "Helensburgh Central", "town": "Helensburgh", "postcode": "G84 7HL", "country": "United Kingdom", "country_code": "gb"},
	},
	"glasgow central station": {
		PlaceID: 107165540, OSMType: "way", OSMID: 4240208, Lat: "55.8591", Lon: "-4.2581",
		Category: "railway", Type: "station", PlaceRank: 30, Importance: 0.45, AddressType: "railway",
		Name: "Glasgow Central", DisplayName: "Glasgow Central, Gordon Street, Glasgow, Scotland, G1 3SL, United Kingdom",
		Address: map[string]string{"railway": "Glasgow Central", "city": "Glasgow", "postcode": "G1 3SL", "country": "United Kingdom", "country_code": "gb"},
	},
	"dumbarton": {
		PlaceID: 107346187, OSMType: "relation", OSMID: 1920901, Lat: "55.9433645", Lon: "-4.5678521",
		Category: "boundary", Type: "administrative", PlaceRank: 16, Importance: 0.48, AddressType: "town",
		Name: "Dumbarton", DisplayName: "Dumbarton, West Dunbartonshire, Scotland, United Kingdom",
		Address: map[string]string{"town": "Dumbarton", "country": "United Kingdom", "country_code": "gb"},
	},
}

func (nominatim) answer(r *http.Request) (int, []byte) {
	if r.URL.Path != "/search" {
		return http.StatusNotFound, nominatim{}.errorBody(404, "Not Found")
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		return http.StatusBadRequest, nominatim{}.errorBody(400, "Nothing to search for.")
	}
	if f := r.URL.Query().Get("format"); f != "" && f != "jsonv2" && f != "json" {
		return http.StatusBadRequest, nominatim{}.errorBody(400, "Parameter 'format' must be one of: xml, json, jsonv2, geojson, geocodejson")
	}
	p, ok := knownPlaces[strings.ToLower(q)]
	if !ok {
		p = madeUpAddress(q)
	}
	p.Licence = licence
	lat, _ := strconv.ParseFloat(p.Lat, 64)
	lon, _ := strconv.ParseFloat(p.Lon, 64)
	p.BoundingBox = []string{ff(lat - 0.001), ff(lat + 0.001), ff(lon - 0.001), ff(lon + 0.001)}
	return http.StatusOK, mustJSON([]nominatimPlace{p})
}

// madeUpAddress places query on a street near Helensburgh, at a point
// fixed by its hash: the same query always lands in the same place.
func madeUpAddress(query string) nominatimPlace {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(query)))
	v := h.Sum64()
	lat := 55.98 + float64(v%4000)/100000      // 55.98 .. 56.02
	lon := -4.76 + float64(v/4000%6000)/100000 // -4.76 .. -4.70
	road, _, _ := strings.Cut(query, ",")
	return nominatimPlace{
		PlaceID: int64(v % 1_000_000_000), OSMType: "way", OSMID: int64(v % 100_000_000), Lat: ff(lat), Lon: ff(lon),
		Category: "highway", Type: "residential", PlaceRank: 26, Importance: 0.1, AddressType: "road",
		DisplayName: road + ", Helensburgh, Argyll and Bute, Scotland, G84 8TU, United Kingdom",
		Address:     map[string]string{"road": strings.TrimSpace(road), "town": "Helensburgh", "postcode": "G84 8TU", "country": "United Kingdom", "country_code": "gb"},
	}
}

func (nominatim) empty() []byte { return []byte("[]") }

func (nominatim) impossible(*http.Request) []byte {
	p := knownPlaces["dumbarton"]
	p.Lat = "91.5"
	p.Licence = licence
	return mustJSON([]nominatimPlace{p})
}

// errorBody is Nominatim's JSON error shape.
func (nominatim) errorBody(status int, msg string) []byte {
	return mustJSON(map[string]any{"error": map[string]any{"code": status, "message": msg}})
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 7, 64) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

package geo

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Nominatim geocodes with a Nominatim server's /search API
// (https://nominatim.org/release-docs/latest/api/Search/), restricted to
// Great Britain and to the single best result. Queries the embedded
// gazetteer recognises as junk, placeholders or foreign are refused locally
// with [ErrNoMatch] and never sent: they would only spend the server's quota
// (the public instance allows one request a second) and could match a
// "Main Street" somewhere.
type Nominatim struct {
	base  string
	http  httpConfig
	guard *guard[Place]
}

var _ Geocoder = (*Nominatim)(nil)

// NewNominatim returns a geocoder for the Nominatim server at baseURL
// (e.g. "https://nominatim.openstreetmap.org" or a self-hosted
// "http://localhost:8088"). It sends at most one request a second
// ([DefaultNominatimMinInterval], as the public instance's usage policy
// asks) unless [WithMinInterval] says otherwise, and runs behind the cache,
// breaker and cool-down every HTTP back end has (see [WithCache],
// [WithBreaker]).
func NewNominatim(baseURL string, opts ...Option) *Nominatim {
	n := &Nominatim{base: baseURL, http: newHTTPConfig(append([]Option{WithMinInterval(DefaultNominatimMinInterval)}, opts...))}
	n.guard = newGuard[Place]("nominatim", &n.http)
	return n
}

// Stats reports what the geocoder did since it was built.
func (n *Nominatim) Stats() Stats { return n.guard.stats() }

// nominatimPlace is one element of a format=jsonv2 /search reply. Nominatim
// sends lat and lon as strings. "category" is jsonv2's name for the older
// format's "class".
type nominatimPlace struct {
	PlaceID     int64             `json:"place_id"`
	Licence     string            `json:"licence"`
	OSMType     string            `json:"osm_type"`
	OSMID       int64             `json:"osm_id"`
	Lat         string            `json:"lat"`
	Lon         string            `json:"lon"`
	Category    string            `json:"category"`
	Class       string            `json:"class"`
	Type        string            `json:"type"`
	PlaceRank   int               `json:"place_rank"`
	Importance  float64           `json:"importance"`
	AddressType string            `json:"addresstype"`
	Name        string            `json:"name"`
	DisplayName string            `json:"display_name"`
	Address     map[string]string `json:"address"`
	ExtraTags   map[string]string `json:"extratags"`
	BoundingBox []string          `json:"boundingbox"`
}

// Geocode resolves query with Nominatim. An empty result is [ErrNoMatch];
// transport failures, timeouts, non-2xx replies, malformed JSON, an open
// breaker and a cool-down are [ErrUnavailable] (as a [*BackendError]).
func (n *Nominatim) Geocode(ctx context.Context, query string) (Place, error) {
	if p, ok, err := coordinatePlace(query); ok { // a coordinate pair needs no search
		return p, err
	}
	if err := screen(query); err != nil {
		return Place{}, err
	}
	v := url.Values{
		"q":               {strings.TrimSpace(query)},
		"format":          {"jsonv2"},
		"countrycodes":    {"gb"},
		"limit":           {"1"},
		"addressdetails":  {"1"},
		"extratags":       {"1"},
		"accept-language": {"en-GB,en"},
	}
	u := joinURL(n.base, "/search") + "?" + v.Encode()
	return n.guard.do(ctx, u, func(ctx context.Context) (Place, error) {
		rep, err := n.http.get(ctx, "nominatim", u)
		if err != nil {
			return Place{}, err
		}
		return readNominatim(rep, u, query)
	})
}

// readNominatim reads the reply to the /search request u for query. It
// trusts nothing in it: every field that reaches a [Place] is checked.
func readNominatim(rep reply, u, query string) (Place, error) {
	fail := func(msg string, cause error) error {
		return &BackendError{Backend: "nominatim", URL: u, StatusCode: rep.status, Message: msg, Body: snippet(rep.body), Err: cause, RetryAfter: rep.retryAfter, class: ErrUnavailable}
	}
	if rep.status < 200 || rep.status > 299 {
		return Place{}, fail("unexpected status", nil)
	}
	var results []nominatimPlace
	if err := json.Unmarshal(rep.body, &results); err != nil {
		return Place{}, fail("malformed JSON reply", err)
	}
	if len(results) == 0 {
		return Place{}, &BackendError{Backend: "nominatim", URL: u, StatusCode: rep.status, Message: "no result for " + strconv.Quote(query), Body: snippet(rep.body), class: ErrNoMatch}
	}
	r := results[0]
	if cc := r.Address["country_code"]; cc != "" && cc != "gb" {
		return Place{}, &BackendError{Backend: "nominatim", URL: u, StatusCode: rep.status, Message: "result outside the UK: " + cc, class: ErrNoMatch}
	}
	lat, err1 := strconv.ParseFloat(r.Lat, 64)
	lon, err2 := strconv.ParseFloat(r.Lon, 64)
	pl := Place{Lat: lat, Lon: lon, Kind: nominatimKind(r), Postcode: wireText(r.Address["postcode"], 16), Name: wireText(nominatimName(r), 200)}
	if err1 != nil || err2 != nil || !pl.Valid() {
		return Place{}, fail("result has bad coordinates "+strconv.Quote(r.Lat)+","+strconv.Quote(r.Lon), nil)
	}
	if iata := strings.ToUpper(r.ExtraTags["iata"]); pl.Kind == KindAirport && len(iata) == 3 && strings.Trim(iata, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		pl.IATA = iata
	}
	return pl, nil
}

// wireText makes a string from a reply fit to show: valid UTF-8, no control
// characters, at most n runes. A back end's data is not ours to trust.
func wireText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n])
	}
	return strings.TrimSpace(s)
}

// nominatimKind maps OSM tags to a [Kind]. Anything named that is not a
// transport hub, hospital, settlement, postcode or street address is a
// landmark.
func nominatimKind(r nominatimPlace) Kind {
	cat := r.Category
	if cat == "" {
		cat = r.Class
	}
	switch cat + "/" + r.Type {
	case "aeroway/aerodrome", "aeroway/airport", "aeroway/terminal":
		return KindAirport
	case "railway/station", "railway/halt", "public_transport/station", "building/train_station":
		return KindStation
	case "amenity/ferry_terminal":
		return KindFerry
	case "amenity/hospital", "healthcare/hospital", "building/hospital":
		return KindHospital
	case "place/postcode", "boundary/postal_code":
		return KindPostcode
	}
	switch cat {
	case "place":
		switch r.Type {
		case "house", "building":
			return KindAddress
		}
		return KindTown
	case "boundary":
		return KindTown
	case "highway", "building":
		return KindAddress
	}
	switch r.AddressType {
	case "road", "house", "building":
		return KindAddress
	case "postcode":
		return KindPostcode
	}
	return KindLandmark
}

// nominatimName picks a short display name: the OSM name, else "12 Sinclair
// Street" for an address, else the first part of display_name.
func nominatimName(r nominatimPlace) string {
	if r.Name != "" {
		return r.Name
	}
	if road := r.Address["road"]; road != "" {
		if hn := r.Address["house_number"]; hn != "" {
			return hn + " " + road
		}
		return road
	}
	first, _, _ := strings.Cut(r.DisplayName, ",")
	return strings.TrimSpace(first)
}

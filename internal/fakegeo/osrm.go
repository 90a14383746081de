package fakegeo

import (
	"math"
	"net/http"
	"strconv"
	"strings"
)

// NewOSRM starts a fake OSRM. Healthy, GET
// /route/v1/driving/{lon},{lat};{lon},{lat} answers code "Ok" with one
// route: the great-circle distance times 1.3, driven at 15 m/s.
func NewOSRM() *Server { return newServer(osrm{}) }

type osrm struct{}

type osrmLeg struct {
	Steps    []any   `json:"steps"`
	Summary  string  `json:"summary"`
	Weight   float64 `json:"weight"`
	Duration float64 `json:"duration"`
	Distance float64 `json:"distance"`
}

type osrmRoute struct {
	Legs       []osrmLeg `json:"legs"`
	WeightName string    `json:"weight_name"`
	Weight     float64   `json:"weight"`
	Duration   float64   `json:"duration"`
	Distance   float64   `json:"distance"`
}

type osrmWaypoint struct {
	Hint     string     `json:"hint"`
	Distance float64    `json:"distance"`
	Name     string     `json:"name"`
	Location [2]float64 `json:"location"`
}

type osrmReply struct {
	Code      string         `json:"code"`
	Message   string         `json:"message,omitempty"`
	Routes    []osrmRoute    `json:"routes"`
	Waypoints []osrmWaypoint `json:"waypoints,omitempty"`
}

// points reads the two lon,lat pairs of a route request.
func points(r *http.Request) ([2][2]float64, bool) {
	var pts [2][2]float64
	rest, ok := strings.CutPrefix(r.URL.Path, "/route/v1/driving/")
	if !ok {
		return pts, false
	}
	pairs := strings.Split(rest, ";")
	if len(pairs) != 2 {
		return pts, false
	}
	for i, p := range pairs {
		lon, lat, ok := strings.Cut(p, ",")
		x, err1 := strconv.ParseFloat(lon, 64)
		y, err2 := strconv.ParseFloat(lat, 64)
		if !ok || err1 != nil || err2 != nil || math.Abs(y) > 90 || math.Abs(x) > 180 {
			return pts, false
		}
		pts[i] = [2]float64{x, y}
	}
	return pts, true
}

func (osrm) answer(r *http.Request) (int, []byte) {
	pts, ok := points(r)
	if !ok {
		return http.StatusBadRequest, mustJSON(osrmReply{Code: "InvalidQuery", Message: "Query string malformed close to position 0"})
	}
	d := 1.3 * haversine(pts[0], pts[1])
	return http.StatusOK, routeReply(pts, d, d/15)
}

func routeReply(pts [2][2]float64, distance, duration float64) []byte {
	distance, duration = math.Round(distance*10)/10, math.Round(duration*10)/10
	return mustJSON(osrmReply{
		Code: "Ok",
		Routes: []osrmRoute{{
			Legs:       []osrmLeg{{Steps: []any{}, Weight: duration, Duration: duration, Distance: distance}},
			WeightName: "routability", Weight: duration, Duration: duration, Distance: distance,
		}},
		Waypoints: []osrmWaypoint{
			{Hint: "fake", Name: "Start", Location: pts[0]},
			{Hint: "fake", Name: "End", Location: pts[1]},
		},
	})
}

func (osrm) empty() []byte { return []byte(`{"code":"Ok","routes":[],"waypoints":[]}`) }

func (osrm) impossible(r *http.Request) []byte {
	pts, _ := points(r)
	return routeReply(pts, 1e12, 1e9)
}

// errorBody is what comes back for an overload or a crash: OSRM's own
// codes are all about the query, so it carries a message and no code.
func (osrm) errorBody(_ int, msg string) []byte {
	return mustJSON(map[string]string{"message": msg})
}

// haversine is the great-circle distance in meters between two lon,lat
// points. (server/trident/geo has one too; this package cannot import it, since
// server/trident/geo's own tests import this package.)
func haversine(a, b [2]float64) float64 {
	const rad, radius = math.Pi / 180, 6371008.8
	p1, p2 := a[1]*rad, b[1]*rad
	dp, dl := p2-p1, (b[0]-a[0])*rad
	s1, s2 := math.Sin(dp/2), math.Sin(dl/2)
	h := s1*s1 + math.Cos(p1)*math.Cos(p2)*s2*s2
	return 2 * radius * math.Asin(math.Sqrt(math.Min(1, h)))
}

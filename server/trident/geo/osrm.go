package geo

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// OSRM routes with an OSRM server's route service
// (https://project-osrm.org/docs/v5.24.0/api/#route-service), driving
// profile, no geometry.
//
// OSRM's answer codes map to errors as follows: "Ok" with a route is a
// [Route]; "NoRoute" and "NoSegment" (no road between or near the points:
// retrying cannot help) are [ErrNoMatch]; every other code ("TooBig",
// "InvalidQuery", "InvalidValue", ...), a non-2xx status without a code, a
// malformed reply, a transport failure or a timeout is [ErrUnavailable].
type OSRM struct {
	base  string
	http  httpConfig
	guard *guard[Route]
}

var _ Router = (*OSRM)(nil)

// NewOSRM returns a router for the OSRM server at baseURL
// (e.g. "http://localhost:5000"), behind the cache, breaker and cool-down
// every HTTP back end has (see [WithCache], [WithBreaker]).
func NewOSRM(baseURL string, opts ...Option) *OSRM {
	o := &OSRM{base: baseURL, http: newHTTPConfig(opts)}
	o.guard = newGuard[Route]("osrm", &o.http)
	return o
}

// Stats reports what the router did since it was built.
func (o *OSRM) Stats() Stats { return o.guard.stats() }

// maxRouteMeters is the longest believable road route: once round the
// Earth. A longer distance is a broken reply, not a trip to price.
const maxRouteMeters = 40_075_000

type osrmReply struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Routes  []struct {
		Distance   float64 `json:"distance"`
		Duration   float64 `json:"duration"`
		Weight     float64 `json:"weight"`
		WeightName string  `json:"weight_name"`
	} `json:"routes"`
	Waypoints []struct {
		Hint     string     `json:"hint"`
		Distance float64    `json:"distance"`
		Name     string     `json:"name"`
		Location [2]float64 `json:"location"`
	} `json:"waypoints"`
}

// Route asks OSRM for the fastest driving route from one place to the other.
func (o *OSRM) Route(ctx context.Context, from, to Place) (Route, error) {
	if !from.Valid() || !to.Valid() {
		return Route{}, fmt.Errorf("%w: invalid coordinates (%v,%v) -> (%v,%v)", ErrNoMatch, from.Lat, from.Lon, to.Lat, to.Lon)
	}
	coord := func(p Place) string {
		return strconv.FormatFloat(p.Lon, 'f', 6, 64) + "," + strconv.FormatFloat(p.Lat, 'f', 6, 64)
	}
	u := joinURL(o.base, "/route/v1/driving/"+coord(from)+";"+coord(to)) + "?overview=false"
	return o.guard.do(ctx, u, func(ctx context.Context) (Route, error) {
		rep, err := o.http.get(ctx, "osrm", u)
		if err != nil {
			return Route{}, err
		}
		return readOSRM(rep, u)
	})
}

// readOSRM reads the reply to the route request u, trusting nothing in it.
func readOSRM(rep reply, u string) (Route, error) {
	fail := func(class error, code, msg string, cause error) error {
		return &BackendError{Backend: "osrm", URL: u, StatusCode: rep.status, Code: code, Message: msg, Body: snippet(rep.body), Err: cause, RetryAfter: rep.retryAfter, class: class}
	}
	var r osrmReply
	jerr := json.Unmarshal(rep.body, &r)
	switch {
	case jerr == nil && r.Code == "Ok" && rep.status >= 200 && rep.status <= 299:
	case jerr == nil && (r.Code == "NoRoute" || r.Code == "NoSegment"):
		return Route{}, fail(ErrNoMatch, r.Code, "no route: "+r.Message, nil)
	case jerr == nil && r.Code != "" && r.Code != "Ok":
		return Route{}, fail(ErrUnavailable, r.Code, "route service refused: "+r.Message, nil)
	case rep.status < 200 || rep.status > 299:
		return Route{}, fail(ErrUnavailable, "", "unexpected status", nil)
	case jerr != nil:
		return Route{}, fail(ErrUnavailable, "", "malformed JSON reply", jerr)
	default:
		return Route{}, fail(ErrUnavailable, "", "reply has no code", nil)
	}
	if len(r.Routes) == 0 {
		return Route{}, fail(ErrUnavailable, r.Code, "reply has no routes", nil)
	}
	d, t := r.Routes[0].Distance, r.Routes[0].Duration
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 || d > maxRouteMeters || math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
		return Route{}, fail(ErrUnavailable, r.Code, fmt.Sprintf("reply has bad distance %v or duration %v", d, t), nil)
	}
	return Route{DistanceMeters: d, DurationSeconds: t}, nil
}

package trident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
	"github.com/tridenttaxis/trident-mcp/server/trident/validate"
)

// tools holds what the three tool handlers share. Each handler validates its
// arguments against the contract's input schema before it touches the
// geocoder, so a bad call costs no upstream quota.
type tools struct {
	tariff      *fare.Tariff
	geocoder    geo.Geocoder
	router      geo.Router
	bookingBase string // BOOKING_BASE_URL, no trailing slash
	bookingSite string // BOOKING_BASE_URL exactly as configured (get_service_info)
	inputs      map[string]*validate.Schema
}

// handlers maps each tool name of the endpoint's manifest to its handler.
// New refuses to start when the two lists differ.
func (t *tools) handlers() map[string]mcp.ToolHandler {
	return map[string]mcp.ToolHandler{
		mcptypes.ToolEstimateFare:   t.estimateFare,
		mcptypes.ToolGetServiceInfo: t.getServiceInfo,
		mcptypes.ToolStartBooking:   t.startBooking,
	}
}

// decode validates raw arguments against tool's input schema and unmarshals
// them (defaults applied) into v. Its error is an [*mcphttp.ArgumentError]:
// -32602 for the specification's 2025-06-18 clients, an isError result for
// clients of 2025-11-25 and later (contracts/README.md).
//
// The common call, already in normal form, is decoded in the one pass that
// validates it (validate.Schema.DecodeNormal); any other goes through the
// whole check and json.Unmarshal.
func (t *tools) decode(tool string, raw json.RawMessage, v any) error {
	s := t.inputs[tool]
	if s.DecodeNormal(raw, v) {
		return nil
	}
	norm, err := s.Validate(raw)
	if err != nil {
		var fe *validate.FieldError
		if errors.As(err, &fe) {
			return &mcphttp.ArgumentError{Field: fe.Field, Reason: fe.Reason}
		}
		return err
	}
	if err := json.Unmarshal(norm, v); err != nil {
		// Valid per schema but out of Go's range, e.g. a number beyond float64.
		return &mcphttp.ArgumentError{Field: validate.RootField, Reason: err.Error()}
	}
	return nil
}

// trip is what estimate_fare and start_booking both price.
type trip struct {
	tool            string
	pickup, dropoff string
	vehicle         string
	departAt        *string
	meetAndGreet    bool
	passengers      int
}

// priced is a quote with the rounded route it was computed on.
type priced struct {
	quote   fare.Quote
	miles   float64 // whole miles, as the fare counted them
	seconds float64 // whole minutes, in seconds
}

// The four steps reported as notifications/progress when the call carries
// _meta.progressToken; progress counts the steps already done.
var progressSteps = [...]string{"Geocoding pickup", "Geocoding dropoff", "Routing", "Pricing"}

type progressFunc func(step int)

func progressFor(ctx context.Context, req *mcp.CallToolRequest) progressFunc {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func(int) {}
	}
	return func(step int) {
		// A failed notification (client gone) must not fail the call.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(step),
			Total:         float64(len(progressSteps)),
			Message:       progressSteps[step],
		})
	}
}

// price runs geocode, geocode, route, quote. Deterministic failures (an
// address or route that does not resolve, a trip the tariff refuses) are
// GEOCODE_FAILED; an upstream that could not answer is ROUTING_UNAVAILABLE,
// which the catalogue marks retryable (a geocoder outage included: retrying
// it can succeed, unlike a bad address).
func (t *tools) price(ctx context.Context, tr trip, progress progressFunc) (priced, error) {
	ft, err := t.route(ctx, tr, progress)
	if err != nil {
		return priced{}, err
	}
	return t.quote(ctx, tr.tool, ft)
}

// route geocodes and routes the trip: the fare.Trip every vehicle class
// of the call is priced on.
func (t *tools) route(ctx context.Context, tr trip, progress progressFunc) (fare.Trip, error) {
	fail := func(code errcodes.Code, cause error) (fare.Trip, error) {
		return fare.Trip{}, toolFailure(code, tr.tool, cause)
	}
	gctx, span := telemetry.Start(ctx, "trident.geocode") // the spans of the steps: tracing.go
	from, to, err := t.geocodePair(gctx, tr.pickup, tr.dropoff, progress)
	endStep(span, err)
	switch {
	case err == nil:
	case errors.Is(err, geo.ErrNoMatch):
		return fail(errcodes.GeocodeFailed, err)
	default:
		return fail(errcodes.RoutingUnavailable, err)
	}
	progress(2)
	rctx, span := telemetry.Start(ctx, "trident.route")
	route, err := t.router.Route(rctx, from, to)
	endStep(span, err)
	if err != nil {
		if errors.Is(err, geo.ErrNoMatch) {
			return fail(errcodes.GeocodeFailed, err)
		}
		return fail(errcodes.RoutingUnavailable, err)
	}
	progress(3)
	ft := fare.Trip{
		Vehicle:         tr.vehicle,
		DistanceMiles:   t.tariff.RoundDistanceMiles(route.DistanceMeters),
		DurationSeconds: t.tariff.RoundDurationSeconds(route.DurationSeconds),
		Pickup:          fare.Endpoint{Lat: from.Lat, Lon: from.Lon, Airport: from.IsAirport()},
		Dropoff:         fare.Endpoint{Lat: to.Lat, Lon: to.Lon, Airport: to.IsAirport()},
		MeetAndGreet:    tr.meetAndGreet,
		Passengers:      tr.passengers,
	}
	if tr.departAt != nil {
		depart, err := validate.ParseDateTime(*tr.departAt)
		if err != nil { // unreachable: the schema's format check ran first
			return fare.Trip{}, err
		}
		ft.Depart, ft.Prebooked = depart, true
	}
	return ft, nil
}

// toolFailure is the tool's refusal with the catalogue's text for code.
func toolFailure(code errcodes.Code, tool string, cause error) *mcphttp.ToolError {
	return &mcphttp.ToolError{Code: string(code), Text: mcphttp.ToolText(code, tool), Cause: cause}
}

// quote prices a routed trip for its vehicle class.
func (t *tools) quote(ctx context.Context, tool string, ft fare.Trip) (priced, error) {
	_, span := telemetry.Start(ctx, "trident.price")
	q, err := t.tariff.Quote(ft)
	endPrice(span, q, err)
	switch {
	case err == nil:
	case errors.Is(err, fare.ErrCapacity):
		var ce *fare.CapacityError
		errors.As(err, &ce)
		return priced{}, t.capacityFailure(ce.Vehicle, ce.Capacity, ce.Passengers)
	case errors.Is(err, fare.ErrInvalidTrip), errors.Is(err, fare.ErrUnknownVehicle):
		// e.g. a route longer than the tariff prices: no address change
		// within the service makes this retryable.
		return priced{}, toolFailure(errcodes.GeocodeFailed, tool, err)
	default:
		return priced{}, err // the server's own fault: logged, answered -32603
	}
	return priced{quote: q, miles: ft.DistanceMiles, seconds: ft.DurationSeconds}, nil
}

// geocodePair geocodes pickup and dropoff at once, so the pair costs the
// slower of two lookups rather than their sum: each lookup of an HTTP back
// end ends within GEO_TIMEOUT of its start, and both start together, so a
// slow but working back end holds the call up to one timeout here, not
// two. The first failure cancels the other lookup and is the one reported;
// a panic in the dropoff's lookup is raised again in the caller's
// goroutine, so it is answered -32603 like any other.
// Progress is reported from the caller's goroutine: step 0 as both start,
// step 1 once the pickup is known.
//
// The embedded geocoder answers from memory in a few microseconds and never
// waits, so the two lookups run one after the other in the caller's
// goroutine: a goroutine, a channel and a cancellable context would cost
// more than the second lookup. The pickup's failure is reported first, as
// the lookup that failed first.
func (t *tools) geocodePair(ctx context.Context, pickup, dropoff string, progress progressFunc) (from, to geo.Place, err error) {
	if _, inMemory := t.geocoder.(*geo.EmbeddedGeocoder); inMemory {
		progress(0)
		from, err = t.geocoder.Geocode(ctx, pickup)
		progress(1)
		if err == nil {
			to, err = t.geocoder.Geocode(ctx, dropoff)
		}
		return from, to, err
	}
	return t.geocodeConcurrently(ctx, pickup, dropoff, progress)
}

// geocodeConcurrently is geocodePair for a geocoder that may wait.
func (t *tools) geocodeConcurrently(ctx context.Context, pickup, dropoff string, progress progressFunc) (from, to geo.Place, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	failed := func(e error) {
		once.Do(func() {
			err = e
			cancel()
		})
	}
	progress(0)
	done := make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		defer func() { panicked = recover() }() // re-raised below, where the front door recovers it
		var e error
		if to, e = t.geocoder.Geocode(ctx, dropoff); e != nil {
			failed(e)
		}
	}()
	var e error
	if from, e = t.geocoder.Geocode(ctx, pickup); e != nil {
		failed(e)
	}
	progress(1)
	<-done
	if panicked != nil {
		panic(panicked)
	}
	return from, to, err
}

// capacityFailure words CAPACITY_EXCEEDED from the catalogue template. The
// advice names the smallest vehicle start_booking accepts that seats the
// party, or, when none does, says the group needs more than one vehicle.
func (t *tools) capacityFailure(vehicle string, capacity, passengers int) *mcphttp.ToolError {
	advice := fmt.Sprintf("Groups over %d need more than one vehicle — call the office.", capacity)
	best := 0
	for _, v := range mcptypes.StartBookingInputVehicleTypeValues {
		c, ok := t.tariff.Capacity(string(v))
		if ok && c >= passengers && (best == 0 || c < best) {
			best = c
			advice = fmt.Sprintf("Choose '%s' for groups over %d.", v, capacity)
		}
	}
	return &mcphttp.ToolError{
		Code: string(errcodes.CapacityExceeded),
		Text: mcphttp.Message(errcodes.CapacityExceeded,
			"vehicle", vehicle, "capacity", strconv.Itoa(capacity),
			"passengers", strconv.Itoa(passengers), "advice", advice),
	}
}

// estimateFare prices the trip for its vehicle class and, when the call
// names alternativeVehicleTypes (this server's extension), for each of
// those too on the same geocoded route: a caller comparing classes, as
// Relay does, makes one call where it would make one per class. A class
// the tariff refuses fails the whole call, as it would fail alone.
func (t *tools) estimateFare(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcptypes.EstimateFareInput
	if err := t.decode(mcptypes.ToolEstimateFare, req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	tr := trip{tool: mcptypes.ToolEstimateFare, pickup: in.Pickup, dropoff: in.Dropoff, departAt: in.DepartAt}
	if in.VehicleType != nil {
		tr.vehicle = string(*in.VehicleType)
	}
	if in.MeetAndGreet != nil {
		tr.meetAndGreet = *in.MeetAndGreet
	}
	ft, err := t.route(ctx, tr, progressFor(ctx, req))
	if err != nil {
		return nil, err
	}
	p, err := t.quote(ctx, tr.tool, ft)
	if err != nil {
		return nil, err
	}
	out := mcptypes.EstimateFareOutput{
		FareGBP:             p.quote.FareGBP,
		DistanceMiles:       p.miles,
		DurationSeconds:     p.seconds,
		Rate:                mcptypes.EstimateFareOutputRate(p.quote.Band),
		AirportSurchargeGBP: p.quote.AirportSurchargeGBP,
		TariffVersion:       p.quote.TariffVersion,
		AppliedRules:        rulesOf(p.quote),
	}
	text := fare.FormatGBP(p.quote.FarePence) + " · " + milesText(p.miles) + " · " + minutesText(p.seconds) + " · " + string(p.quote.Band) + " tariff"
	if len(in.AlternativeVehicleTypes) > 0 {
		out.Alternatives = make([]mcptypes.AlternativeQuote, len(in.AlternativeVehicleTypes))
		also := make([]string, len(in.AlternativeVehicleTypes))
		for i, vt := range in.AlternativeVehicleTypes {
			ft.Vehicle = string(vt)
			a, err := t.quote(ctx, tr.tool, ft)
			if err != nil {
				return nil, err
			}
			out.Alternatives[i] = mcptypes.AlternativeQuote{
				VehicleType:         mcptypes.AlternativeQuoteVehicleType(vt),
				FareGBP:             a.quote.FareGBP,
				Rate:                mcptypes.AlternativeQuoteRate(a.quote.Band),
				AirportSurchargeGBP: a.quote.AirportSurchargeGBP,
				AppliedRules:        rulesOf(a.quote),
			}
			also[i] = string(vt) + " " + fare.FormatGBP(a.quote.FarePence)
		}
		text += "\nAlso priced: " + strings.Join(also, " · ")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: out}, nil
}

// rulesOf is a quote's applied rules: its own slice, and [] rather than
// null when no rule applied.
func rulesOf(q fare.Quote) []string {
	if q.AppliedRules == nil {
		return []string{}
	}
	return q.AppliedRules
}

func (t *tools) getServiceInfo(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcptypes.GetServiceInfoInput
	if err := t.decode(mcptypes.ToolGetServiceInfo, req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	info := t.tariff.ServiceInfo()
	out := mcptypes.GetServiceInfoOutput{
		Brand:    info.Brand,
		Area:     info.Area,
		Vehicles: make([]mcptypes.Vehicle, 0, len(info.Vehicles)),
		Surcharges: mcptypes.Surcharges{
			PreBookingGBP:              info.Surcharges.PreBookingGBP,
			AirportPickupOrDropGBP:     info.Surcharges.AirportPickupOrDropGBP,
			AirportMeetAndGreetGBP:     info.Surcharges.AirportMeetAndGreetGBP,
			EightSeaterLocalMultiplier: info.Surcharges.EightSeaterLocalMultiplier,
		},
		Tariffs:    append([]string{}, info.Tariffs...),
		BookingURL: t.bookingSite,
	}
	for _, v := range info.Vehicles {
		mv := mcptypes.Vehicle{ID: v.ID, MaxPassengers: int64(v.MaxPassengers)}
		if v.Note != "" {
			note := v.Note
			mv.Note = &note
		}
		out.Vehicles = append(out.Vehicles, mv)
	}
	text := info.Brand + " · " + info.Area
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: out}, nil
}

func (t *tools) startBooking(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcptypes.StartBookingInput
	if err := t.decode(mcptypes.ToolStartBooking, req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	vehicle := string(in.VehicleType)
	tr := trip{tool: mcptypes.ToolStartBooking, pickup: in.Pickup, dropoff: in.Dropoff, vehicle: vehicle, departAt: in.DepartAt}
	if in.MeetAndGreet != nil {
		tr.meetAndGreet = *in.MeetAndGreet
	}
	if in.Passengers != nil {
		tr.passengers = int(*in.Passengers)
		// Capacity before geocoding: a party that cannot fit fails fast and
		// spends no upstream quota.
		if c, ok := t.tariff.Capacity(vehicle); ok && tr.passengers > c {
			return nil, t.capacityFailure(vehicle, c, tr.passengers)
		}
	}
	p, f := t.price(ctx, tr, progressFor(ctx, req))
	if f != nil {
		return nil, f
	}
	link := t.bookingURL(in, p)
	out := mcptypes.StartBookingOutput{
		BookingURL:              link,
		Confirmed:               false,
		RequiresPassengerAction: true,
		Quote: mcptypes.Quote{
			FareGBP:         p.quote.FareGBP,
			DistanceMiles:   p.miles,
			DurationSeconds: p.seconds,
			Rate:            mcptypes.QuoteRate(p.quote.Band),
			VehicleType:     mcptypes.QuoteVehicleType(vehicle),
			TariffVersion:   p.quote.TariffVersion,
		},
		Prefilled: &mcptypes.Prefilled{
			Pickup:       in.Pickup,
			Dropoff:      in.Dropoff,
			VehicleType:  mcptypes.PrefilledVehicleType(vehicle),
			DepartAt:     in.DepartAt,
			MeetAndGreet: tr.meetAndGreet,
		},
	}
	text := fmt.Sprintf("Booking session ready — fare %s · %s · %s.\n\nSend the passenger this link to finish the booking (name, phone, date, payment):\n%s",
		fare.FormatGBP(p.quote.FarePence), milesText(p.miles), minutesText(p.seconds), link)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: out}, nil
}

// bookingURL builds <BOOKING_BASE_URL>/book?... with the specification's
// parameters in its order; departAt only when given, meetAndGreet=1 only
// when requested. The party size is not part of the specification's link.
func (t *tools) bookingURL(in mcptypes.StartBookingInput, p priced) string {
	var b strings.Builder
	b.WriteString(t.bookingBase)
	b.WriteString("/book?pickup=")
	b.WriteString(url.QueryEscape(in.Pickup))
	b.WriteString("&dropoff=")
	b.WriteString(url.QueryEscape(in.Dropoff))
	b.WriteString("&vehicleType=")
	b.WriteString(url.QueryEscape(string(in.VehicleType)))
	fmt.Fprintf(&b, "&fare=%d.%02d", p.quote.FarePence/100, p.quote.FarePence%100)
	b.WriteString("&distance=" + strconv.FormatFloat(p.miles, 'f', -1, 64))
	b.WriteString("&duration=" + strconv.FormatFloat(p.seconds, 'f', -1, 64))
	if in.DepartAt != nil {
		b.WriteString("&departAt=" + url.QueryEscape(*in.DepartAt))
	}
	if in.MeetAndGreet != nil && *in.MeetAndGreet {
		b.WriteString("&meetAndGreet=1")
	}
	return b.String()
}

func milesText(miles float64) string {
	if miles == 1 {
		return "1 mile"
	}
	return strconv.FormatFloat(miles, 'f', -1, 64) + " miles"
}

// minutesText shows a duration already rounded to whole minutes.
func minutesText(seconds float64) string {
	return strconv.FormatFloat(seconds/60, 'f', 0, 64) + " min"
}

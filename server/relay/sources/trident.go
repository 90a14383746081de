package sources

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	tridentclient "github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	trident "github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
)

// Trident prices trips with Trident's own MCP endpoint, over HTTP
// through the project's generated client: one estimate_fare for every
// product (every vehicle class, whatever the party: the first as
// vehicleType, the others as alternativeVehicleTypes, Trident's extension),
// and start_booking for the prefilled handoff link.
// Trident takes places as text; Relay sends the coordinates as a
// "lat,lng" pair, never an address it made up.
type Trident struct {
	c *tridentclient.Client
}

// NewTrident returns a source for the Trident endpoint URL
// (RELAY_TRIDENT_URL), e.g. "http://127.0.0.1:8080/mcp". opts are passed to
// [client.New] (an HTTP client, a token source in OAuth mode).
func NewTrident(endpoint string, opts ...client.Option) (*Trident, error) {
	// A bounded retry: one more try after a short wait, and never a long
	// Retry-After (that puts the provider in cool-down instead). The
	// revision Trident's specification documents, 2025-06-18, spoken
	// statelessly: the one every Trident serves, and the one this server's
	// fast path answers without an SDK session (the client would otherwise
	// open with a server/discover and speak 2026-07-28: twice the time and
	// nine times the allocations per search, BenchmarkSearchRidesTrident).
	base := []client.Option{
		client.WithRetry(client.RetryPolicy{MaxAttempts: 2, BaseDelay: 100 * time.Millisecond, MaxDelay: 200 * time.Millisecond, MaxRetryAfter: time.Second}),
		client.WithProtocolVersion(client.DocumentedProtocolVersion),
		// With tracing on, each request is a client span whose context
		// rides in the traceparent header, so Trident's spans join the
		// search's trace (headers rather than _meta: a call with _meta
		// leaves Trident's fast path).
		client.WithHTTPClient(&http.Client{Transport: telemetry.Transport(nil)}),
	}
	c, err := tridentclient.New(endpoint, append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("relay: RELAY_TRIDENT_URL: %w", err)
	}
	return &Trident{c: c}, nil
}

var (
	_ Source = (*Trident)(nil)
	_ Booker = (*Trident)(nil)
)

// place is a coordinate pair as Trident's geocoder reads it.
func place(c mcptypes.Coordinates) string {
	return registry.FormatCoordinate(c.Latitude) + "," + registry.FormatCoordinate(c.Longitude)
}

// Quote prices every product in one estimate_fare: Trident routes the trip
// once and answers each further class in alternatives, where a call per
// class would cost a round trip, a geocoding and a routing each. A Trident
// that does not know the extension (one that answers as its specification
// documents, with no alternatives) is asked for the other classes one call
// each, concurrently, as before the extension: each extra call spends the
// provider's request budget.
func (t *Trident) Quote(ctx context.Context, trip Trip, rec Recorder) ([]Quote, error) {
	if len(trip.Products) == 0 {
		return nil, &Error{Code: mcptypes.ProviderErrorCodeRefused, Message: "the provider registry lists no Trident vehicle class"}
	}
	first, rest := trip.Products[0], trip.Products[1:]
	in := t.estimate(trip, first)
	for _, pr := range rest {
		in.AlternativeVehicleTypes = append(in.AlternativeVehicleTypes, trident.EstimateFareInputAlternativeVehicleTypesItem(pr.ID))
	}
	start := time.Now()
	out, err := t.c.EstimateFare(ctx, in)
	a := attempt(trident.ToolEstimateFare, start, err)
	if err != nil {
		rec(a)
		return nil, classify(err)
	}
	quotes := make([]Quote, 0, len(trip.Products))
	var errs []error
	q, err := tridentQuote(first, out)
	if err != nil {
		a.Outcome = mcptypes.ProviderCallOutcomeMalformed
		rec(a)
		return nil, err
	}
	quotes = append(quotes, q)
	switch {
	case len(rest) == 0:
	case out.Alternatives == nil:
		a.Options = 1
		rec(a)
		more, err := t.quoteEach(ctx, trip, rest, rec)
		return append(quotes, more...), err
	case len(out.Alternatives) != len(rest):
		errs = append(errs, &Error{Code: mcptypes.ProviderErrorCodeMalformed, Message: fmt.Sprintf("Trident priced %d further vehicle classes of the %d asked", len(out.Alternatives), len(rest))})
	default:
		for i, pr := range rest {
			alt := &out.Alternatives[i]
			if string(alt.VehicleType) != pr.ID {
				errs = append(errs, &Error{Code: mcptypes.ProviderErrorCodeMalformed, Message: fmt.Sprintf("Trident answered vehicle class %q where %q was asked", alt.VehicleType, pr.ID)})
				continue
			}
			q, err := tridentQuote(pr, alternative(out, alt))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			quotes = append(quotes, q)
		}
	}
	if len(errs) > 0 {
		a.Outcome = mcptypes.ProviderCallOutcomeMalformed
	}
	a.Options = len(quotes)
	rec(a)
	return quotes, errors.Join(errs...)
}

// estimate is the estimate_fare arguments of trip for one product.
func (t *Trident) estimate(trip Trip, pr registry.ProductEntry) trident.EstimateFareInput {
	vt := trident.EstimateFareInputVehicleType(pr.ID)
	return trident.EstimateFareInput{Pickup: place(trip.Pickup), Dropoff: place(trip.Dropoff), VehicleType: &vt}
}

// quoteEach asks estimate_fare once per product, concurrently, each call
// spending the provider's budget first: the way to price a Trident that
// answers no alternatives.
func (t *Trident) quoteEach(ctx context.Context, trip Trip, products []registry.ProductEntry, rec Recorder) ([]Quote, error) {
	quotes := make([]*Quote, len(products))
	errs := make([]error, len(products))
	attempts := make([]*Attempt, len(products))
	var wg sync.WaitGroup
	for i, pr := range products {
		if trip.Spend != nil {
			if err := trip.Spend(ctx); err != nil {
				errs[i] = AsError(err)
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			out, err := t.c.EstimateFare(ctx, t.estimate(trip, pr))
			a := attempt(trident.ToolEstimateFare, start, err)
			defer func() { attempts[i] = &a }()
			if err != nil {
				errs[i] = classify(err)
				return
			}
			q, err := tridentQuote(pr, out)
			if err != nil {
				a.Outcome = mcptypes.ProviderCallOutcomeMalformed
				errs[i] = err
				return
			}
			a.Options = 1
			quotes[i] = &q
		}()
	}
	wg.Wait()
	// Recorded in product order, whatever order the calls finished in.
	for _, a := range attempts {
		if a != nil {
			rec(*a)
		}
	}
	var out []Quote
	for _, q := range quotes {
		if q != nil {
			out = append(out, *q)
		}
	}
	return out, errors.Join(errs...)
}

// BookingLink calls start_booking for the product's booking vehicle type.
func (t *Trident) BookingLink(ctx context.Context, trip Trip, product registry.ProductEntry, rec Recorder) (string, error) {
	if product.BookingVehicleType == nil {
		return "", &Error{Code: mcptypes.ProviderErrorCodeRefused, Message: "Trident's booking form does not take this vehicle class"}
	}
	in := trident.StartBookingInput{Pickup: place(trip.Pickup), Dropoff: place(trip.Dropoff), VehicleType: trident.StartBookingInputVehicleType(*product.BookingVehicleType)}
	if trip.PartySize > 0 {
		n := int64(trip.PartySize)
		in.Passengers = &n
	}
	start := time.Now()
	out, err := t.c.StartBooking(ctx, in)
	rec(attempt(trident.ToolStartBooking, start, err))
	if err != nil {
		return "", classify(err)
	}
	return out.BookingURL, nil
}

func attempt(op string, start time.Time, err error) Attempt {
	a := Attempt{Operation: op, Outcome: mcptypes.ProviderCallOutcomeOk, HTTPStatus: http.StatusOK, Duration: time.Since(start)}
	if err == nil {
		return a
	}
	se := classify(err)
	a.HTTPStatus, a.Outcome = se.HTTPStatus, outcomeOf(se.Code)
	return a
}

// classify turns a client error into Relay's words: Trident's own refusal
// text (a tool error) is reported by its catalogue code, not quoted.
func classify(err error) *Error {
	var (
		te *client.TransportError
		re *client.RPCError
		tl *client.ToolError
	)
	switch {
	case errors.As(err, &tl):
		return &Error{Code: mcptypes.ProviderErrorCodeRefused, HTTPStatus: http.StatusOK, Message: "Trident declined the trip (" + string(tl.Code) + ")", Cause: err}
	case errors.As(err, &re):
		return &Error{Code: mcptypes.ProviderErrorCodeRefused, HTTPStatus: http.StatusOK, Message: fmt.Sprintf("Trident refused the request (JSON-RPC %d)", re.Code), Cause: err}
	case errors.As(err, &te):
		se := &Error{HTTPStatus: te.StatusCode, RetryAfter: te.RetryAfter, Cause: err}
		switch {
		case te.StatusCode == http.StatusUnauthorized || te.StatusCode == http.StatusForbidden:
			se.Code, se.Message = mcptypes.ProviderErrorCodeUnauthorized, "Trident refused Relay's credentials"
		case te.StatusCode == http.StatusTooManyRequests:
			se.Code, se.Message = mcptypes.ProviderErrorCodeRateLimited, "Trident is rate limiting Relay"
		case errors.Is(err, context.DeadlineExceeded):
			se.Code, se.Message = mcptypes.ProviderErrorCodeTimeout, "Trident did not answer in time"
		case te.StatusCode >= 200 && te.StatusCode < 300:
			se.Code, se.Message = mcptypes.ProviderErrorCodeMalformed, "Trident's answer could not be read"
		default:
			se.Code, se.Message = mcptypes.ProviderErrorCodeUpstreamError, "Trident is unavailable"
		}
		return se
	}
	return AsError(err)
}

// alternative is out as a call for alt's class alone answers it: the
// main quote's route and tariff version, alt's fare, band and rules.
func alternative(out *trident.EstimateFareOutput, alt *trident.AlternativeQuote) *trident.EstimateFareOutput {
	o := *out
	o.FareGBP, o.Rate, o.AirportSurchargeGBP, o.AppliedRules = alt.FareGBP, trident.EstimateFareOutputRate(alt.Rate), alt.AirportSurchargeGBP, alt.AppliedRules
	o.Alternatives = nil
	return &o
}

// tridentQuote normalises an estimate: fareGBP to pence through its decimal
// text, never float × 100, and the fixed-price facts of Trident's tariff
// (fees included, taxes unknown).
func tridentQuote(pr registry.ProductEntry, out *trident.EstimateFareOutput) (Quote, error) {
	// encoding/json parsed the decimal in the reply to the nearest float64;
	// the shortest text of that float is the decimal Trident sent.
	minor, err := decimalToMinor(strconv.FormatFloat(out.FareGBP, 'f', -1, 64), 2)
	if err != nil {
		return Quote{}, &Error{Code: mcptypes.ProviderErrorCodeMalformed, Message: "Trident sent a fare Relay could not read", Cause: err}
	}
	capacity := int64(pr.Capacity)
	fees := true
	dur := int64(math.Round(out.DurationSeconds))
	dist := int64(math.Round(out.DistanceMiles * 1609.344))
	return Quote{
		Product:         mcptypes.Product{ID: pr.ID, Name: pr.Name, Capacity: &capacity},
		Price:           mcptypes.Price{AmountMinor: minor, Currency: "GBP", Basis: mcptypes.PriceBasisFixed, FeesIncluded: &fees},
		DurationSeconds: &dur,
		DistanceMeters:  &dist,
		Title:           string(out.Rate) + " tariff " + out.TariffVersion,
		Description:     strings.Join(out.AppliedRules, "; "),
	}, nil
}

// decimalToMinor converts a non-negative decimal string to minor units of
// a currency with the given exponent, exactly, refusing more fraction
// digits than the currency has.
func decimalToMinor(s string, exponent int) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || strings.TrimLeft(whole, "0123456789") != "" || strings.TrimLeft(frac, "0123456789") != "" {
		return 0, fmt.Errorf("amount %q is not a non-negative decimal", s)
	}
	if len(frac) > exponent {
		return 0, fmt.Errorf("amount %q has more than %d decimals", s, exponent)
	}
	frac += strings.Repeat("0", exponent-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	return n, nil
}

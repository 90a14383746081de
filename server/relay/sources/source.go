package sources

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
)

// Source is one priced provider API behind a small adapter. Relay decides
// whether to ask it (credentials, inputs, coverage, cool-down, the
// two-source limit); the source only answers.
type Source interface {
	// Quote prices trip. It records each real upstream attempt with rec
	// (Relay reports them in provider_calls) and returns what it could
	// price; an error with no quotes means the source failed, an error
	// beside quotes means some of its products failed. Errors should be a
	// [*Error] so the failure is reported in the right words.
	Quote(ctx context.Context, trip Trip, rec Recorder) ([]Quote, error)
}

// Booker is a source whose provider makes a prefilled booking link for one
// of its quotes (Trident's start_booking). get_ride_booking_handoff uses it
// for the provider's own options.
type Booker interface {
	BookingLink(ctx context.Context, trip Trip, product registry.ProductEntry, rec Recorder) (string, error)
}

// Trip is what a source prices: both ends are always set (a source whose
// required inputs are missing is not asked). PartySize 0 means unknown.
type Trip struct {
	Pickup, Dropoff mcptypes.Coordinates
	PartySize       int
	Currency        string // preferred, may be ""; sources never convert
	// Products are the registry's products for this source, every one
	// whatever the party (party size does not select a vehicle); empty
	// when the registry lists none and the source offers its own.
	Products []registry.ProductEntry
	// ProductID, when set, asks for that product only (resolve_ride
	// re-quoting a selected option of a source that lists its own).
	ProductID string
	// Spend takes one unit of the provider's request budget for an
	// upstream request beyond the first (which the caller has already
	// paid for), and fails when the budget is spent: a source that makes
	// an optional extra call (an ETA beside a price) asks it first. Nil:
	// no budget to spend.
	Spend func(ctx context.Context) error
}

// Quote is one priced answer, normalised: money in minor units, times in
// seconds. Title and Description are the provider's own text, untrusted.
type Quote struct {
	Product         mcptypes.Product
	Price           mcptypes.Price
	DataMode        mcptypes.RideOptionDataMode // "" takes the registry's
	DurationSeconds *int64
	DistanceMeters  *int64
	ETASeconds      *int64
	Title           string
	Description     string
	Deadline        time.Time // when the provider stops honouring the quote; zero: none
}

// Attempt is one real upstream call.
type Attempt struct {
	Operation  string
	Outcome    mcptypes.ProviderCallOutcome
	HTTPStatus int // 0: none received
	Duration   time.Duration
	Options    int
}

// Recorder receives a source's attempts; it is safe for concurrent use.
type Recorder func(Attempt)

// Error is a sanitised source failure: what Relay may tell the caller.
// It never carries credentials or an upstream body.
type Error struct {
	Code       mcptypes.ProviderErrorCode
	Message    string
	HTTPStatus int           // 0 when none
	RetryAfter time.Duration // 0 when the provider gave none
	Cause      error         // logged, never sent
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// Retryable reports whether a later attempt can succeed.
func (e *Error) Retryable() bool {
	switch e.Code {
	case mcptypes.ProviderErrorCodeRateLimited, mcptypes.ProviderErrorCodeTimeout, mcptypes.ProviderErrorCodeUpstreamError:
		return true
	}
	return false
}

// AsError classifies any error a source returned: an [*Error] as it is, a
// deadline as a timeout, anything unclassified as an upstream error.
func AsError(err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: mcptypes.ProviderErrorCodeTimeout, Message: "the provider did not answer in time", Cause: err}
	}
	return &Error{Code: mcptypes.ProviderErrorCodeUpstreamError, Message: "the provider could not be reached", Cause: err}
}

// outcomeOf is the provider_calls outcome of a failed attempt.
func outcomeOf(c mcptypes.ProviderErrorCode) mcptypes.ProviderCallOutcome {
	switch c {
	case mcptypes.ProviderErrorCodeUnauthorized:
		return mcptypes.ProviderCallOutcomeUnauthorized
	case mcptypes.ProviderErrorCodeRateLimited:
		return mcptypes.ProviderCallOutcomeRateLimited
	case mcptypes.ProviderErrorCodeTimeout:
		return mcptypes.ProviderCallOutcomeTimeout
	case mcptypes.ProviderErrorCodeMalformed:
		return mcptypes.ProviderCallOutcomeMalformed
	}
	return mcptypes.ProviderCallOutcomeFailed
}

package upstream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// Kind is the closed set of ways a provider call fails.
type Kind string

const (
	// NotConfigured: the adapter has no credentials and made no call.
	NotConfigured Kind = "not_configured"
	// Unauthorized: the provider refused the credentials (HTTP 401 or 403,
	// or a token endpoint that refused the client).
	Unauthorized Kind = "unauthorized"
	// RateLimited: HTTP 429; [Error.RetryAfter] says how long to wait.
	RateLimited Kind = "rate_limited"
	// Unavailable: HTTP 5xx, or no connection at all; a 503 may carry a
	// Retry-After too.
	Unavailable Kind = "unavailable"
	// Timeout: no complete answer before the caller's deadline.
	Timeout Kind = "timeout"
	// Canceled: the caller gave up (its context was canceled) first.
	Canceled Kind = "canceled"
	// Malformed: an answer that is not JSON, is truncated, has the wrong
	// content type, or lacks a field the adapter needs.
	Malformed Kind = "malformed"
	// Rejected: any other 4xx; the provider refused this request (Uber's
	// 422 distance_exceeded, Lyft's 400 bad_parameter).
	Rejected Kind = "rejected"
)

// maxRetryAfter caps Retry-After: a provider asking for longer is still
// cooled down for a day, not forever, and the Duration cannot overflow.
const maxRetryAfter = 24 * time.Hour

// Error is a failed provider call. Every field is safe to show: see the
// package documentation.
type Error struct {
	// Provider is the adapter's provider id ("uber", "lyft").
	Provider string
	Kind     Kind
	// Status is the HTTP status of the provider's answer, 0 when there was
	// none (not configured, timeout, connection failure).
	Status int
	// RetryAfter is the provider's Retry-After on a 429 or 5xx (seconds
	// or an HTTP-date, read against the adapter's clock), 0 when absent.
	RetryAfter time.Duration
	// Code is the provider's own error code from the body ("invalid_token"),
	// kept only when it matches [a-z0-9_.]{1,64}; "" otherwise.
	Code string
	// Detail is this package's or the adapter's own description, never
	// upstream text: "prices[1]: currency_code is not an ISO 4217 code".
	Detail string

	cause error // only context.DeadlineExceeded or context.Canceled
}

func (e *Error) Error() string {
	msg := e.Provider + ": " + string(e.Kind)
	if e.Status != 0 {
		msg += ": HTTP " + strconv.Itoa(e.Status)
	}
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	if e.RetryAfter > 0 {
		msg += ", retry after " + e.RetryAfter.String()
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns context.DeadlineExceeded for a [Timeout] and
// context.Canceled for [Canceled], so errors.Is works as with any call
// under a context; it returns nil otherwise. The transport's own error is
// not kept: its text names the URL, and so the passenger's coordinates.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error of the same Kind, so that
// errors.Is(err, &upstream.Error{Kind: upstream.RateLimited}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

// KindOf returns the Kind of the first *Error in err's chain, "" if none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// RetryAfterOf returns the RetryAfter of the first *Error in err's chain,
// 0 if none.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// StatusOf returns the HTTP status of the first *Error in err's chain, 0
// if none or if there was no answer.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// NewNotConfigured reports that provider has no credentials; the adapter
// returns it without making any call.
func NewNotConfigured(provider, detail string) *Error {
	return &Error{Provider: provider, Kind: NotConfigured, Detail: detail}
}

// NewMalformed reports an answer the adapter cannot use. detail must be
// the adapter's own words (a field path), never text from the answer.
func NewMalformed(provider string, status int, detail string) *Error {
	return &Error{Provider: provider, Kind: Malformed, Status: status, Detail: detail}
}

// FromTransport classifies an error from sending a request or reading its
// answer under ctx: the caller's deadline (or a network timeout) is
// [Timeout], the caller's cancellation [Canceled], anything else
// [Unavailable].
func FromTransport(ctx context.Context, provider string, err error) *Error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()):
		return &Error{Provider: provider, Kind: Timeout, Detail: "no answer before the deadline", cause: context.DeadlineExceeded}
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return &Error{Provider: provider, Kind: Canceled, Detail: "the call was canceled", cause: context.Canceled}
	default:
		return &Error{Provider: provider, Kind: Unavailable, Detail: "no connection"}
	}
}

// FromStatus classifies a non-2xx HTTP answer. retryAfter is the raw
// Retry-After header, read against now; code is the provider's error code
// from the body, dropped unless it is a short lower-case token.
func FromStatus(provider string, status int, retryAfter string, code string, now time.Time) *Error {
	e := &Error{Provider: provider, Status: status, Code: safeCode(code)}
	switch {
	case status == 401 || status == 403:
		e.Kind = Unauthorized
	case status == 429:
		e.Kind = RateLimited
		e.RetryAfter = ParseRetryAfter(retryAfter, now)
	case status >= 500:
		e.Kind = Unavailable
		e.RetryAfter = ParseRetryAfter(retryAfter, now) // RFC 9110 §15.6.4
	case status >= 400:
		e.Kind = Rejected
	default:
		e.Kind = Malformed
		e.Detail = "unexpected HTTP status"
	}
	return e
}

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3): a
// number of seconds, or an HTTP-date taken relative to now. It returns 0
// for an absent, unreadable or past value, and at most 24 hours.
func ParseRetryAfter(value string, now time.Time) time.Duration {
	if value == "" {
		return 0
	}
	if secs, err := strconv.ParseUint(value, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0
	}
	d := at.Sub(now)
	switch {
	case d <= 0:
		return 0
	case d > maxRetryAfter:
		return maxRetryAfter
	}
	// HTTP-dates have whole seconds; round up so a caller never comes back
	// early.
	return (d + time.Second - 1).Truncate(time.Second)
}

var codePattern = regexp.MustCompile(`^[a-z0-9_.]{1,64}$`)

func safeCode(code string) string {
	if codePattern.MatchString(code) {
		return code
	}
	return ""
}

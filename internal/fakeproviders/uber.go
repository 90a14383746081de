package fakeproviders

import (
	"encoding/json"
	"net/http"
	"testing"
)

// The Riders API estimate endpoints the fake serves.
const (
	UberPricePath = "/v1.2/estimates/price"
	UberTimePath  = "/v1.2/estimates/time"
)

// UberTime is one element of the Riders API's times[] (GET
// /v1.2/estimates/time), field for field: estimate is the pickup ETA in
// whole seconds.
type UberTime struct {
	LocalizedDisplayName string       `json:"localized_display_name"`
	Estimate             *json.Number `json:"estimate"`
	DisplayName          string       `json:"display_name"`
	ProductID            string       `json:"product_id"`
}

// UberDefaultTimes is the times[] [NewUber] answers: an ETA for UberX,
// Black and the taxi, none for UberXL (Uber leaves out a product with no
// car to send).
var UberDefaultTimes = []UberTime{
	{LocalizedDisplayName: "UberX", DisplayName: "UberX", ProductID: "a1111c8c-c720-46c3-8534-2fcdd730040d", Estimate: N("180")},
	{LocalizedDisplayName: "Black", DisplayName: "Black", ProductID: "d4abaae7-f4d6-4152-91cc-77523e8165a4", Estimate: N("420")},
	{LocalizedDisplayName: "Taxi", DisplayName: "Taxi", ProductID: "3ab64887-4842-4c8e-9780-ccecd3a0391d", Estimate: N("300")},
}

// UberPrice is one element of the Riders API's prices[], field for field.
// Amounts are major units (21 is $21); a nil number is sent as null, as
// Uber does for a metered taxi.
type UberPrice struct {
	LocalizedDisplayName string       `json:"localized_display_name"`
	Distance             *json.Number `json:"distance"`
	DisplayName          string       `json:"display_name"`
	ProductID            string       `json:"product_id"`
	HighEstimate         *json.Number `json:"high_estimate"`
	LowEstimate          *json.Number `json:"low_estimate"`
	Duration             *json.Number `json:"duration"`
	Estimate             string       `json:"estimate"`
	CurrencyCode         *string      `json:"currency_code"`
	SurgeMultiplier      *json.Number `json:"surge_multiplier,omitempty"`
}

// N is a JSON number for the fakes' tables: N("21").
func N(text string) *json.Number {
	n := json.Number(text)
	return &n
}

// S is a string pointer for the fakes' tables.
func S(s string) *string { return &s }

// UberDefaultPrices is what [NewUber] answers: a range, a flat price, a
// range with a fractional bound under surge, and a metered taxi.
var UberDefaultPrices = []UberPrice{
	{LocalizedDisplayName: "UberX", DisplayName: "UberX", ProductID: "a1111c8c-c720-46c3-8534-2fcdd730040d",
		Distance: N("5.72"), Duration: N("1140"), LowEstimate: N("21"), HighEstimate: N("26"),
		Estimate: "$21-26", CurrencyCode: S("USD"), SurgeMultiplier: N("1.0")},
	{LocalizedDisplayName: "Black", DisplayName: "Black", ProductID: "d4abaae7-f4d6-4152-91cc-77523e8165a4",
		Distance: N("5.72"), Duration: N("1140"), LowEstimate: N("52"), HighEstimate: N("52"),
		Estimate: "$52", CurrencyCode: S("USD"), SurgeMultiplier: N("1.0")},
	{LocalizedDisplayName: "UberXL", DisplayName: "UberXL", ProductID: "821415d8-3bd5-4e27-9604-194e4359a449",
		Distance: N("5.72"), Duration: N("1140"), LowEstimate: N("30.5"), HighEstimate: N("38"),
		Estimate: "$30-38", CurrencyCode: S("USD"), SurgeMultiplier: N("1.25")},
	{LocalizedDisplayName: "Taxi", DisplayName: "Taxi", ProductID: "3ab64887-4842-4c8e-9780-ccecd3a0391d",
		Distance: N("5.72"), Duration: N("1140"), Estimate: "Metered"},
}

// Uber is a fake of the Riders API price estimates.
type Uber struct {
	base
	token  string
	prices []UberPrice

	timeKnob Knob
	times    []UberTime
}

// NewUber serves the fake until the test ends. Requests whose
// Authorization is not "Bearer "+token get Uber's 401, whatever the knob.
func NewUber(tb testing.TB, token string) *Uber {
	u := &Uber{token: token, prices: UberDefaultPrices, times: UberDefaultTimes}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+UberPricePath, u.price)
	mux.HandleFunc("GET "+UberTimePath, u.time)
	u.start(tb, mux)
	return u
}

// SetPrices replaces the prices[] of a Normal answer.
func (u *Uber) SetPrices(p []UberPrice) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.prices = p
}

// SetTimes replaces the times[] of a Normal time estimates answer.
func (u *Uber) SetTimes(t []UberTime) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.times = t
}

// SetTimeKnob makes the time estimates endpoint answer with k from now on;
// Set and Queue are for the price endpoint.
func (u *Uber) SetTimeKnob(k Knob) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.timeKnob = k
}

// Calls returns every request received, in order.
func (u *Uber) Calls() []Recorded { return u.recorded("") }

// PriceCalls and TimeCalls return the requests each endpoint received.
func (u *Uber) PriceCalls() []Recorded { return u.recorded(UberPricePath) }

// TimeCalls returns the requests the time estimates endpoint received.
func (u *Uber) TimeCalls() []Recorded { return u.recorded(UberTimePath) }

func uberError(code, message string) any {
	return map[string]string{"code": code, "message": message}
}

func (u *Uber) price(w http.ResponseWriter, r *http.Request) {
	u.record(r, nil)
	knob, retryAfter := u.take()
	if r.Header.Get("Authorization") != "Bearer "+u.token {
		writeJSON(w, http.StatusUnauthorized, uberError("unauthorized", "Invalid OAuth 2.0 credentials provided."))
		return
	}
	if u.fail(w, r, knob, retryAfter, uberError) {
		return
	}
	q := r.URL.Query()
	for _, p := range []string{"start_latitude", "start_longitude", "end_latitude", "end_longitude"} {
		if q.Get(p) == "" {
			writeJSON(w, http.StatusUnprocessableEntity, uberError("validation_failed", "Invalid request."))
			return
		}
	}
	u.mu.Lock()
	prices := u.prices
	u.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"prices": prices})
}

func (u *Uber) time(w http.ResponseWriter, r *http.Request) {
	u.record(r, nil)
	u.mu.Lock()
	knob, retryAfter, times := u.timeKnob, u.retryAfter, u.times
	u.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+u.token {
		writeJSON(w, http.StatusUnauthorized, uberError("unauthorized", "Invalid OAuth 2.0 credentials provided."))
		return
	}
	if u.fail(w, r, knob, retryAfter, uberError) {
		return
	}
	q := r.URL.Query()
	if q.Get("start_latitude") == "" || q.Get("start_longitude") == "" {
		writeJSON(w, http.StatusUnprocessableEntity, uberError("validation_failed", "Invalid request."))
		return
	}
	times = only(times, q.Get("product_id"), func(t UberTime) string { return t.ProductID })
	writeJSON(w, http.StatusOK, map[string]any{"times": times})
}

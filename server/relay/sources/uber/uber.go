package uber

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay/money"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

// Provider is the provider id in errors and estimates.
const Provider = "uber"

// DefaultBaseURL is Uber's production API host.
const DefaultBaseURL = "https://api.uber.com"

// PricePath is the price estimates endpoint.
const PricePath = "/v1.2/estimates/price"

// TimePath is the time estimates endpoint: pickup ETAs by product.
const TimePath = "/v1.2/estimates/time"

// SandboxBaseURL is Uber's sandbox, whose answers are test data.
const SandboxBaseURL = "https://sandbox-api.uber.com"

// Config is the operator's configuration for Uber (in the binary
// UBER_API_URL and UBER_ACCESS_TOKEN).
type Config struct {
	// BaseURL is the API root; "" means [DefaultBaseURL]. Tests point it at
	// a fake; https://sandbox-api.uber.com is Uber's sandbox.
	BaseURL string
	// AccessToken is the server token or OAuth access token sent as
	// Bearer; "" means not configured: [Client.Estimate] makes no call.
	AccessToken string
	// AcceptLanguage is sent as Accept-Language; "" means en_US.
	AcceptLanguage string
}

// Options are the client's collaborators; a nil *Options and every zero
// field mean the default.
type Options struct {
	// HTTPClient sends the requests; nil means http.DefaultClient. The
	// client uses a copy that never follows redirects. Give each call a
	// deadline through its context, not a client Timeout.
	HTTPClient *http.Client
	// Now is the clock for Retry-After dates; nil means time.Now.
	Now func() time.Time
}

var (
	_ upstream.Estimator    = (*Client)(nil)
	_ upstream.ETAEstimator = (*Client)(nil)
)

// Client is an Uber price estimates client; it is safe for concurrent use.
type Client struct {
	endpoint *url.URL // PricePath
	times    *url.URL // TimePath
	token    string
	language string
	http     *http.Client
	now      func() time.Time
}

// New checks cfg and returns a client. Only a BaseURL that is not an
// absolute http(s) URL is an error; a missing token is not (see
// [Client.Configured]).
func New(cfg Config, opts *Options) (*Client, error) {
	u, err := upstream.ParseBaseURL(cfg.BaseURL, DefaultBaseURL, "UBER_API_URL")
	if err != nil {
		return nil, fmt.Errorf("uber: %w", err)
	}
	c := &Client{endpoint: u.JoinPath(PricePath), times: u.JoinPath(TimePath), token: cfg.AccessToken, language: cfg.AcceptLanguage, http: upstream.NoRedirects(nil), now: time.Now}
	if c.language == "" {
		c.language = "en_US"
	}
	if opts != nil && opts.HTTPClient != nil {
		c.http = upstream.NoRedirects(opts.HTTPClient)
	}
	if opts != nil && opts.Now != nil {
		c.now = opts.Now
	}
	return c, nil
}

// Configured reports whether the client has a token, that is whether
// [Client.Estimate] would call Uber at all.
func (c *Client) Configured() bool { return c.token != "" }

// DataMode is live against Uber's production host, test against its
// sandbox, unknown anywhere else.
func (c *Client) DataMode() upstream.DataMode {
	switch c.endpoint.Scheme + "://" + c.endpoint.Host {
	case DefaultBaseURL:
		return upstream.DataLive
	case SandboxBaseURL:
		return upstream.DataTest
	}
	return upstream.DataUnknown
}

// priceAnswer is the Riders API answer, with numbers kept as text.
type priceAnswer struct {
	Prices *[]struct {
		ProductID       string      `json:"product_id"`
		DisplayName     string      `json:"display_name"`
		CurrencyCode    string      `json:"currency_code"`
		LowEstimate     json.Number `json:"low_estimate"`
		HighEstimate    json.Number `json:"high_estimate"`
		Estimate        string      `json:"estimate"`
		Duration        json.Number `json:"duration"`
		Distance        json.Number `json:"distance"`
		SurgeMultiplier json.Number `json:"surge_multiplier"`
	} `json:"prices"`
}

// Estimate asks Uber for the prices of every product between req's
// points (or only req.ProductID's) within ctx's deadline. It returns the
// estimates in Uber's order, or an *upstream.Error: NotConfigured without
// a token, and otherwise as [upstream.Fetch] classifies the answer, with
// Malformed for a price that lacks its product, has an unknown currency,
// more decimals than the currency has, or a high below its low.
func (c *Client) Estimate(ctx context.Context, req upstream.Request) ([]upstream.Estimate, error) {
	if !c.Configured() {
		return nil, upstream.NewNotConfigured(Provider, "UBER_ACCESS_TOKEN is not set")
	}
	if err := req.Check(Provider); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("start_latitude", upstream.FormatDegrees(req.Pickup.Latitude))
	q.Set("start_longitude", upstream.FormatDegrees(req.Pickup.Longitude))
	q.Set("end_latitude", upstream.FormatDegrees(req.Dropoff.Latitude))
	q.Set("end_longitude", upstream.FormatDegrees(req.Dropoff.Longitude))
	if req.PartySize == 1 || req.PartySize == 2 {
		q.Set("seat_count", strconv.Itoa(req.PartySize))
	}
	body, err := c.get(ctx, c.endpoint, q)
	if err != nil {
		return nil, err
	}
	var answer priceAnswer
	if err := upstream.DecodeJSON(Provider, http.StatusOK, body, &answer); err != nil {
		return nil, err
	}
	if answer.Prices == nil {
		return nil, upstream.NewMalformed(Provider, http.StatusOK, "prices missing")
	}
	out := []upstream.Estimate{}
	for i, p := range *answer.Prices {
		if req.ProductID != "" && p.ProductID != req.ProductID {
			continue
		}
		e, detail := normalise(p.ProductID, p.DisplayName, p.CurrencyCode, p.LowEstimate, p.HighEstimate, p.Distance, p.Duration)
		if detail != "" {
			return nil, upstream.NewMalformed(Provider, http.StatusOK, fmt.Sprintf("prices[%d]: %s", i, detail))
		}
		e.PriceMultiplier = string(p.SurgeMultiplier)
		e.ProviderText = upstream.ProviderText{DisplayName: p.DisplayName, Estimate: p.Estimate}
		out = append(out, e)
	}
	return out, nil
}

// normalise builds one estimate, or says in its own words which field is
// wrong.
func normalise(id, name, currency string, low, high, miles, seconds json.Number) (upstream.Estimate, string) {
	e := upstream.Estimate{ProductID: id, ProductName: name, Currency: currency}
	if id == "" {
		return e, "product_id missing"
	}
	if name == "" {
		return e, "display_name missing"
	}
	var lowMinor, highMinor *int64
	if low != "" {
		if _, err := money.Exponent(currency); err != nil {
			return e, "currency_code is not an ISO 4217 code with minor units"
		}
		n, err := money.ParseMajor(string(low), currency, money.Exact)
		if err != nil {
			return e, "low_estimate is not an amount in currency_code"
		}
		lowMinor = &n
		if high != "" {
			m, err := money.ParseMajor(string(high), currency, money.Exact)
			if err != nil {
				return e, "high_estimate is not an amount in currency_code"
			}
			if m < n {
				return e, "high_estimate is below low_estimate"
			}
			highMinor = &m
		}
	}
	e.Basis, e.AmountMinorMax = upstream.BasisOf(lowMinor, highMinor)
	e.AmountMinor = lowMinor
	if miles != "" {
		m, err := upstream.MetersFromMiles(string(miles))
		if err != nil {
			return e, "distance is not a distance in miles"
		}
		e.DistanceMeters = &m
	}
	if seconds != "" {
		s, err := upstream.WholeNumber(string(seconds))
		if err != nil {
			return e, "duration is not whole seconds"
		}
		e.DurationSeconds = &s
	}
	return e, ""
}

// get sends one authorised GET of endpoint with query q and returns the
// body of its JSON answer, or an *upstream.Error.
func (c *Client) get(ctx context.Context, endpoint *url.URL, q url.Values) ([]byte, error) {
	u := *endpoint
	u.RawQuery = q.Encode()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, upstream.FromTransport(ctx, Provider, err)
	}
	hreq.Header.Set("Authorization", "Bearer "+c.token)
	hreq.Header.Set("Accept-Language", c.language)
	hreq.Header.Set("Accept", "application/json")
	return upstream.Fetch(c.http, hreq, Provider, c.now)
}

// timeAnswer is the Riders API's time estimates answer: times[] with each
// product's ETA in whole seconds ("estimate").
type timeAnswer struct {
	Times *[]struct {
		ProductID   string      `json:"product_id"`
		DisplayName string      `json:"display_name"`
		Estimate    json.Number `json:"estimate"`
	} `json:"times"`
}

// ETAs asks Uber for the pickup ETA of every product available at
// req.Pickup (GET /v1.2/estimates/time takes the start only; req.ProductID
// narrows it to one product) within ctx's deadline. A product Uber leaves
// out has no car to send now, and is absent from the map. Errors are as
// [Client.Estimate]'s, Malformed for an entry without its product or with
// an estimate that is not whole seconds.
func (c *Client) ETAs(ctx context.Context, req upstream.Request) (map[string]int64, error) {
	if !c.Configured() {
		return nil, upstream.NewNotConfigured(Provider, "UBER_ACCESS_TOKEN is not set")
	}
	if err := req.Check(Provider); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("start_latitude", upstream.FormatDegrees(req.Pickup.Latitude))
	q.Set("start_longitude", upstream.FormatDegrees(req.Pickup.Longitude))
	if req.ProductID != "" {
		q.Set("product_id", req.ProductID)
	}
	body, err := c.get(ctx, c.times, q)
	if err != nil {
		return nil, err
	}
	var answer timeAnswer
	if err := upstream.DecodeJSON(Provider, http.StatusOK, body, &answer); err != nil {
		return nil, err
	}
	if answer.Times == nil {
		return nil, upstream.NewMalformed(Provider, http.StatusOK, "times missing")
	}
	out := map[string]int64{}
	for i, t := range *answer.Times {
		if t.ProductID == "" {
			return nil, upstream.NewMalformed(Provider, http.StatusOK, fmt.Sprintf("times[%d]: product_id missing", i))
		}
		if t.Estimate == "" {
			continue
		}
		n, err := upstream.WholeNumber(string(t.Estimate))
		if err != nil {
			return nil, upstream.NewMalformed(Provider, http.StatusOK, fmt.Sprintf("times[%d]: estimate is not whole seconds", i))
		}
		out[t.ProductID] = n
	}
	return out, nil
}

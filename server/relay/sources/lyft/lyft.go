package lyft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/apd/v3"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	"golang.org/x/sync/singleflight"

	"github.com/tridenttaxis/trident-mcp/server/relay/money"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

// Provider is the provider id in errors and estimates.
const Provider = "lyft"

// DefaultBaseURL is Lyft's API host.
const DefaultBaseURL = "https://api.lyft.com"

// The endpoints under the base URL.
const (
	TokenPath = "/oauth/token"
	CostPath  = "/v1/cost"
	// ETAPath answers pickup ETAs by ride type.
	ETAPath = "/v1/eta"
)

// refreshBefore is how long before its expiry a token is replaced, so a
// request never leaves with a token that dies on the way.
const refreshBefore = time.Minute

// Config is the operator's configuration for Lyft (in the binary
// LYFT_API_URL, LYFT_CLIENT_ID and LYFT_CLIENT_SECRET).
type Config struct {
	// BaseURL is the API root; "" means [DefaultBaseURL].
	BaseURL string
	// ClientID and ClientSecret are the application's credentials; either
	// empty means not configured: [Client.Estimate] makes no call.
	ClientID, ClientSecret string
}

// Options are the client's collaborators; a nil *Options and every zero
// field mean the default.
type Options struct {
	// HTTPClient sends both the token and the cost requests; nil means
	// http.DefaultClient. The client uses a copy that never follows
	// redirects. Give each call a deadline through its context.
	HTTPClient *http.Client
	// Now is the clock for token expiry and Retry-After dates; nil means
	// time.Now.
	Now func() time.Time
}

var (
	_ upstream.Estimator    = (*Client)(nil)
	_ upstream.ETAEstimator = (*Client)(nil)
)

// Client is a Lyft cost estimates client; it is safe for concurrent use.
type Client struct {
	cost  *url.URL
	eta   *url.URL
	oauth *clientcredentials.Config
	http  *http.Client
	now   func() time.Time

	fetch singleflight.Group
	mu    sync.Mutex
	token string
	until time.Time // zero: no expiry given, kept until a 401
}

// New checks cfg and returns a client. Only a BaseURL that is not an
// absolute http(s) URL is an error; missing credentials are not (see
// [Client.Configured]).
func New(cfg Config, opts *Options) (*Client, error) {
	u, err := upstream.ParseBaseURL(cfg.BaseURL, DefaultBaseURL, "LYFT_API_URL")
	if err != nil {
		return nil, fmt.Errorf("lyft: %w", err)
	}
	c := &Client{
		cost: u.JoinPath(CostPath),
		eta:  u.JoinPath(ETAPath),
		oauth: &clientcredentials.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
			TokenURL: u.JoinPath(TokenPath).String(), Scopes: []string{"public"},
			AuthStyle: oauth2.AuthStyleInHeader,
		},
		http: upstream.NoRedirects(nil),
		now:  time.Now,
	}
	if opts != nil && opts.HTTPClient != nil {
		c.http = upstream.NoRedirects(opts.HTTPClient)
	}
	if opts != nil && opts.Now != nil {
		c.now = opts.Now
	}
	return c, nil
}

// Configured reports whether the client has credentials, that is whether
// [Client.Estimate] would call Lyft at all.
func (c *Client) Configured() bool { return c.oauth.ClientID != "" && c.oauth.ClientSecret != "" }

// DataMode is live against Lyft's production host and unknown anywhere
// else: Lyft documents no separate sandbox host.
func (c *Client) DataMode() upstream.DataMode {
	if c.cost.Scheme+"://"+c.cost.Host == DefaultBaseURL {
		return upstream.DataLive
	}
	return upstream.DataUnknown
}

// costAnswer is Lyft's answer, with numbers kept as text.
type costAnswer struct {
	CostEstimates *[]struct {
		RideType            string      `json:"ride_type"`
		DisplayName         string      `json:"display_name"`
		Currency            string      `json:"currency"`
		CentsMin            json.Number `json:"estimated_cost_cents_min"`
		CentsMax            json.Number `json:"estimated_cost_cents_max"`
		DurationSeconds     json.Number `json:"estimated_duration_seconds"`
		DistanceMiles       json.Number `json:"estimated_distance_miles"`
		PrimetimePercentage string      `json:"primetime_percentage"`
		IsValidEstimate     bool        `json:"is_valid_estimate"`
	} `json:"cost_estimates"`
}

// Estimate asks Lyft for the costs of every ride type between req's
// points (or only req.ProductID's) within ctx's deadline, fetching or
// reusing a token first. It returns the valid estimates in Lyft's order,
// or an *upstream.Error: NotConfigured without credentials; the token
// endpoint's and /v1/cost's failures as [upstream.Fetch] classifies them
// (a token endpoint refusing the client is Unauthorized); Malformed for a
// valid estimate without its ride type, a known currency or whole cents.
func (c *Client) Estimate(ctx context.Context, req upstream.Request) ([]upstream.Estimate, error) {
	if !c.Configured() {
		return nil, upstream.NewNotConfigured(Provider, "LYFT_CLIENT_ID and LYFT_CLIENT_SECRET are not set")
	}
	if err := req.Check(Provider); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("start_lat", upstream.FormatDegrees(req.Pickup.Latitude))
	q.Set("start_lng", upstream.FormatDegrees(req.Pickup.Longitude))
	q.Set("end_lat", upstream.FormatDegrees(req.Dropoff.Latitude))
	q.Set("end_lng", upstream.FormatDegrees(req.Dropoff.Longitude))
	if req.ProductID != "" {
		q.Set("ride_type", req.ProductID)
	}
	body, err := c.get(ctx, c.cost, q)
	if err != nil {
		return nil, err
	}
	var answer costAnswer
	if err := upstream.DecodeJSON(Provider, http.StatusOK, body, &answer); err != nil {
		return nil, err
	}
	if answer.CostEstimates == nil {
		return nil, upstream.NewMalformed(Provider, http.StatusOK, "cost_estimates missing")
	}
	out := []upstream.Estimate{}
	for i, ce := range *answer.CostEstimates {
		if !ce.IsValidEstimate {
			continue
		}
		e, detail := normalise(ce.RideType, ce.DisplayName, ce.Currency, ce.CentsMin, ce.CentsMax, ce.DistanceMiles, ce.DurationSeconds)
		if detail != "" {
			return nil, upstream.NewMalformed(Provider, http.StatusOK, fmt.Sprintf("cost_estimates[%d]: %s", i, detail))
		}
		e.PriceMultiplier = multiplier(ce.PrimetimePercentage)
		e.ProviderText = upstream.ProviderText{DisplayName: ce.DisplayName}
		out = append(out, e)
	}
	return out, nil
}

// get sends one GET of endpoint with query q under a bearer token, fetching
// a fresh token once when Lyft answers 401 to the cached one, and returns
// the body of its JSON answer, or an *upstream.Error.
func (c *Client) get(ctx context.Context, endpoint *url.URL, q url.Values) ([]byte, error) {
	u := *endpoint
	u.RawQuery = q.Encode()
	for attempt := 0; ; attempt++ {
		token, err := c.bearer(ctx)
		if err != nil {
			return nil, err
		}
		hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, upstream.FromTransport(ctx, Provider, err)
		}
		hreq.Header.Set("Authorization", "Bearer "+token)
		hreq.Header.Set("Accept", "application/json")
		body, err := upstream.Fetch(c.http, hreq, Provider, c.now)
		if err == nil {
			return body, nil
		}
		if attempt == 0 && upstream.StatusOf(err) == http.StatusUnauthorized {
			c.forget(token)
			continue
		}
		return nil, err
	}
}

// etaAnswer is Lyft's answer to GET /v1/eta: eta_estimates[] with each ride
// type's pickup ETA in seconds, null when Lyft has none.
type etaAnswer struct {
	ETAEstimates *[]struct {
		RideType        string      `json:"ride_type"`
		DisplayName     string      `json:"display_name"`
		ETASeconds      json.Number `json:"eta_seconds"`
		IsValidEstimate bool        `json:"is_valid_estimate"`
	} `json:"eta_estimates"`
}

// ETAs asks Lyft for the pickup ETA of every ride type at req.Pickup (lat,
// lng; the destination as destination_lat and destination_lng, which Lyft
// uses to sharpen the estimate; req.ProductID as ride_type) within ctx's
// deadline, with the same token as [Client.Estimate]. Estimates Lyft marks
// invalid or sends without eta_seconds are absent. Errors are as
// [Client.Estimate]'s.
func (c *Client) ETAs(ctx context.Context, req upstream.Request) (map[string]int64, error) {
	if !c.Configured() {
		return nil, upstream.NewNotConfigured(Provider, "LYFT_CLIENT_ID and LYFT_CLIENT_SECRET are not set")
	}
	if err := req.Check(Provider); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("lat", upstream.FormatDegrees(req.Pickup.Latitude))
	q.Set("lng", upstream.FormatDegrees(req.Pickup.Longitude))
	q.Set("destination_lat", upstream.FormatDegrees(req.Dropoff.Latitude))
	q.Set("destination_lng", upstream.FormatDegrees(req.Dropoff.Longitude))
	if req.ProductID != "" {
		q.Set("ride_type", req.ProductID)
	}
	body, err := c.get(ctx, c.eta, q)
	if err != nil {
		return nil, err
	}
	var answer etaAnswer
	if err := upstream.DecodeJSON(Provider, http.StatusOK, body, &answer); err != nil {
		return nil, err
	}
	if answer.ETAEstimates == nil {
		return nil, upstream.NewMalformed(Provider, http.StatusOK, "eta_estimates missing")
	}
	out := map[string]int64{}
	for i, e := range *answer.ETAEstimates {
		if !e.IsValidEstimate || e.ETASeconds == "" {
			continue
		}
		if e.RideType == "" {
			return nil, upstream.NewMalformed(Provider, http.StatusOK, fmt.Sprintf("eta_estimates[%d]: ride_type missing", i))
		}
		n, err := upstream.WholeNumber(string(e.ETASeconds))
		if err != nil {
			return nil, upstream.NewMalformed(Provider, http.StatusOK, fmt.Sprintf("eta_estimates[%d]: eta_seconds is not whole seconds", i))
		}
		out[e.RideType] = n
	}
	return out, nil
}

// bearer returns a cached token, or fetches one under ctx; concurrent
// callers share one fetch.
func (c *Client) bearer(ctx context.Context) (string, error) {
	if token, ok := c.cached(); ok {
		return token, nil
	}
	// The shared fetch runs under the first caller's context. When that
	// caller's deadline or cancellation ends it while ours is still alive,
	// fetch once more under ours rather than fail for someone else's
	// impatience.
	for attempt := 0; ; attempt++ {
		ch := c.fetch.DoChan("token", func() (any, error) {
			// A caller that found no token just before a shared fetch
			// stored one would otherwise start a second fetch here.
			if token, ok := c.cached(); ok {
				return token, nil
			}
			return c.fetchToken(ctx)
		})
		select {
		case r := <-ch:
			if r.Err == nil {
				return r.Val.(string), nil
			}
			if k := upstream.KindOf(r.Err); attempt == 0 && r.Shared && ctx.Err() == nil &&
				(k == upstream.Timeout || k == upstream.Canceled) {
				continue
			}
			return "", r.Err
		case <-ctx.Done():
			return "", upstream.FromTransport(ctx, Provider, ctx.Err())
		}
	}
}

// cached returns the cached token while it is still to be used.
func (c *Client) cached() (string, bool) {
	c.mu.Lock()
	token, until := c.token, c.until
	c.mu.Unlock()
	return token, token != "" && (until.IsZero() || c.now().Before(until))
}

func (c *Client) fetchToken(ctx context.Context) (string, error) {
	fetchedAt := c.now()
	tok, err := c.oauth.Token(context.WithValue(ctx, oauth2.HTTPClient, c.http))
	if err != nil {
		return "", c.tokenError(ctx, err)
	}
	// oauth2 turns expires_in into an Expiry on the real clock; read the
	// lifetime back (whole seconds, as sent) and count it on c.now.
	var until time.Time
	if !tok.Expiry.IsZero() {
		lifetime := time.Until(tok.Expiry).Round(time.Second)
		until = fetchedAt.Add(lifetime - refreshBefore)
	}
	c.mu.Lock()
	c.token, c.until = tok.AccessToken, until
	c.mu.Unlock()
	return tok.AccessToken, nil
}

// forget drops token if it is still the cached one, so the next call
// fetches a fresh one.
func (c *Client) forget(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token == token {
		c.token, c.until = "", time.Time{}
	}
}

// tokenError classifies a failed token fetch. The oauth2 error's text
// holds the token endpoint's body, so only its status, Retry-After and
// error code are kept.
func (c *Client) tokenError(ctx context.Context, err error) error {
	var re *oauth2.RetrieveError
	var ue *url.Error
	switch {
	case errors.As(err, &re) && re.Response != nil:
		e := upstream.FromStatus(Provider, re.Response.StatusCode, re.Response.Header.Get("Retry-After"), re.ErrorCode, c.now())
		if e.Kind == upstream.Rejected && (re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client") {
			e.Kind = upstream.Unauthorized // RFC 6749 §5.2 allows 400 for a refused client
		}
		e.Detail = "token request refused"
		return e
	case errors.As(err, &ue) || ctx.Err() != nil:
		return upstream.FromTransport(ctx, Provider, err)
	default:
		return upstream.NewMalformed(Provider, http.StatusOK, "token answer unusable")
	}
}

// normalise builds one estimate, or says in its own words which field is
// wrong.
func normalise(rideType, name, currency string, min, max, miles, seconds json.Number) (upstream.Estimate, string) {
	e := upstream.Estimate{ProductID: rideType, ProductName: name, Currency: currency}
	if rideType == "" {
		return e, "ride_type missing"
	}
	if name == "" {
		return e, "display_name missing"
	}
	if _, err := money.Exponent(currency); err != nil {
		return e, "currency is not an ISO 4217 code with minor units"
	}
	low, err := cents(min, currency)
	if err != nil {
		return e, "estimated_cost_cents_min is not whole cents"
	}
	high, err := cents(max, currency)
	if err != nil {
		return e, "estimated_cost_cents_max is not whole cents"
	}
	if high < low {
		return e, "estimated_cost_cents_max is below estimated_cost_cents_min"
	}
	e.Basis, e.AmountMinorMax = upstream.BasisOf(&low, &high)
	e.AmountMinor = &low
	if miles != "" {
		m, err := upstream.MetersFromMiles(string(miles))
		if err != nil {
			return e, "estimated_distance_miles is not a distance in miles"
		}
		e.DistanceMeters = &m
	}
	if seconds != "" {
		s, err := upstream.WholeNumber(string(seconds))
		if err != nil {
			return e, "estimated_duration_seconds is not whole seconds"
		}
		e.DurationSeconds = &s
	}
	return e, ""
}

func cents(n json.Number, currency string) (int64, error) {
	whole, err := upstream.WholeNumber(string(n))
	if err != nil {
		return 0, err
	}
	return money.FromCents(whole, currency, money.Exact)
}

var percentContext = apd.BaseContext.WithPrecision(20)

// multiplier turns Lyft's primetime_percentage ("25%") into a price
// factor ("1.25") in decimal; "" when Lyft sends none or nonsense.
func multiplier(percentage string) string {
	p, ok := strings.CutSuffix(percentage, "%")
	if !ok {
		return ""
	}
	d, _, err := apd.NewFromString(p)
	if err != nil || d.Form != apd.Finite || d.Negative || d.NumDigits()+int64(d.Exponent) > 6 {
		return ""
	}
	var f apd.Decimal
	if _, err := percentContext.Add(&f, d, apd.New(100, 0)); err != nil {
		return ""
	}
	f.Exponent -= 2 // ÷ 100, exactly
	return f.Text('f')
}

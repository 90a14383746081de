package conformance

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Mode says whether the server under test requires OAuth bearer tokens.
type Mode string

const (
	// ModeAuto probes the endpoint once: a 401 to an anonymous call means OAuth.
	ModeAuto Mode = "auto"
	// ModePublic expects anonymous calls to work.
	ModePublic Mode = "public"
	// ModeOAuth expects anonymous calls to be refused with 401.
	ModeOAuth Mode = "oauth"
)

// String and Set make Mode a flag.Value.
func (m *Mode) String() string { return string(*m) }

// Set implements flag.Value.
func (m *Mode) Set(s string) error { *m = Mode(s); return nil }

// DefaultBookingBaseURL is the booking site the contracts' samples link to.
const DefaultBookingBaseURL = "https://tridenttaxis.online"

// Config is everything the suite needs to know about the server under test.
// Every field has a flag and an environment variable (the flag wins); see
// [RegisterFlags] and README.md.
type Config struct {
	// Endpoint is the MCP endpoint URL, e.g. http://127.0.0.1:8080/mcp. Required.
	Endpoint string
	// PublicBaseURL is where the server says it is reached: the base of the
	// resource_metadata URL in 401 challenges. Empty means the endpoint's
	// scheme://host.
	PublicBaseURL string
	// BookingBaseURL is the site start_booking links point at. The samples
	// use DefaultBookingBaseURL; another value is substituted into them.
	BookingBaseURL string
	// Resource is the RFC 8707 resource the tokens are bound to. Empty means
	// the endpoint URL.
	Resource string

	// Mode is auto, public or oauth.
	Mode Mode
	// Token is a valid access token for OAuth mode.
	Token string
	// ExpiredToken is an access token signed by the real issuer whose exp has
	// passed; without it the expired-token case is skipped.
	ExpiredToken string
	// Issuer, with ClientID (or dynamic registration when empty) and
	// AutoApprove, lets the suite obtain a token itself from a dev issuer
	// that approves consent on request.
	Issuer       string
	ClientID     string
	ClientSecret string
	// AutoApprove is the dev user's email sent as X-Dev-Auto-Approve (and the
	// dev_auto_approve parameter) on the authorize request.
	AutoApprove string
	RedirectURI string

	// StrictMessages checks the exact human-readable wording of error
	// messages where the contracts fix it (Zod v3 reasons, catalogue texts).
	// Off, only codes, signals and the "Invalid params: <field>: " prefix are
	// checked, so other implementations can word things their own way.
	StrictMessages bool

	// Seed drives the property-based cases; 0 means Ginkgo's random seed.
	Seed int64
	// PropertyCases is how many valid and how many invalid argument sets are
	// generated per tool.
	PropertyCases int

	// RoutingDownEndpoint is an endpoint of the same server whose routing
	// back end is down, to trigger ROUTING_UNAVAILABLE. Empty skips that row.
	RoutingDownEndpoint string
	// MaxBodyBytes is the server's request size limit; when set, a body one
	// byte over it must draw 413 (PAYLOAD_TOO_LARGE). Zero skips that row.
	MaxBodyBytes int
	// ForbiddenOrigin is an Origin the server is configured to refuse (403,
	// FORBIDDEN_ORIGIN). Empty skips that row.
	ForbiddenOrigin string

	// FareClock is the server's frozen fare clock (its FARE_CLOCK), RFC
	// 3339: the departure the fare oracle assumes for a call without
	// departAt. Empty: such a call's band is taken as the server reports it.
	FareClock     string
	FareClockTime *time.Time

	// StrictSchemas compares tools/list with tools.json and the schema files
	// exactly ($id, titles and descriptions included). Off, schemas are
	// compared by meaning and wording differences are reported as information.
	StrictSchemas bool

	// Timeout bounds each HTTP exchange.
	Timeout time.Duration
	// KnownFailures is a file of known failures to skip (see
	// known_failures.txt); empty means the embedded one, "none" means none.
	KnownFailures string
}

// RegisterFlags defines the suite's flags on fs, each defaulting to its
// environment variable, and returns the Config they fill once fs is parsed.
func RegisterFlags(fs *flag.FlagSet) *Config {
	c := &Config{}
	str := func(p *string, name, env, def, usage string) {
		fs.StringVar(p, name, envOr(env, def), usage+" (env "+env+")")
	}
	str(&c.Endpoint, "endpoint", "CONFORMANCE_ENDPOINT", "", "MCP endpoint URL of the server under test, e.g. http://127.0.0.1:8080/mcp")
	str(&c.PublicBaseURL, "public-base-url", "CONFORMANCE_PUBLIC_BASE_URL", "", "the server's PUBLIC_BASE_URL, base of resource_metadata; default: the endpoint's scheme://host")
	str(&c.BookingBaseURL, "booking-base-url", "CONFORMANCE_BOOKING_BASE_URL", DefaultBookingBaseURL, "the server's BOOKING_BASE_URL, expected in start_booking links")
	str(&c.Resource, "resource", "CONFORMANCE_RESOURCE", "", "RFC 8707 resource the tokens are bound to; default: the endpoint URL")
	c.Mode = Mode(envOr("CONFORMANCE_MODE", string(ModeAuto)))
	fs.Var(&c.Mode, "mode", "auto, public or oauth (env CONFORMANCE_MODE)")
	str(&c.Token, "token", "CONFORMANCE_TOKEN", "", "OAuth mode: a valid access token")
	str(&c.ExpiredToken, "expired-token", "CONFORMANCE_EXPIRED_TOKEN", "", "OAuth mode: an expired token signed by the issuer (the expired case is skipped without it)")
	str(&c.Issuer, "issuer", "CONFORMANCE_ISSUER", "", "OAuth mode: issuer URL to obtain a token from (dev issuer with auto-approval)")
	str(&c.ClientID, "client-id", "CONFORMANCE_CLIENT_ID", "", "OAuth mode: client id; empty registers one dynamically")
	str(&c.ClientSecret, "client-secret", "CONFORMANCE_CLIENT_SECRET", "", "OAuth mode: client secret for a confidential client")
	str(&c.AutoApprove, "auto-approve", "CONFORMANCE_AUTO_APPROVE", "1", "OAuth mode: dev user email (or 1) sent as X-Dev-Auto-Approve on authorize")
	str(&c.RedirectURI, "redirect-uri", "CONFORMANCE_REDIRECT_URI", "http://127.0.0.1:1/callback", "OAuth mode: redirect URI registered for the client (never served)")
	str(&c.RoutingDownEndpoint, "routing-down-endpoint", "CONFORMANCE_ROUTING_DOWN_ENDPOINT", "", "an endpoint of the same server with its router down, for ROUTING_UNAVAILABLE")
	str(&c.ForbiddenOrigin, "forbidden-origin", "CONFORMANCE_FORBIDDEN_ORIGIN", "", "an Origin the server refuses with 403, for FORBIDDEN_ORIGIN")
	str(&c.FareClock, "fare-clock", "CONFORMANCE_FARE_CLOCK", "", "the server's frozen fare clock (RFC 3339), for the band of calls without departAt; empty: not judged")
	fs.BoolVar(&c.StrictSchemas, "strict-schemas", envBool("CONFORMANCE_STRICT_SCHEMAS", false), "compare tools/list schemas, titles and descriptions exactly with the contracts (env CONFORMANCE_STRICT_SCHEMAS)")
	str(&c.KnownFailures, "known-failures", "CONFORMANCE_KNOWN_FAILURES", "", "known-failures file; empty: the embedded known_failures.txt; none: no skips")
	fs.BoolVar(&c.StrictMessages, "strict-messages", envBool("CONFORMANCE_STRICT_MESSAGES", true), "check exact error wordings where the contracts fix them (env CONFORMANCE_STRICT_MESSAGES)")
	fs.Int64Var(&c.Seed, "seed", int64(envInt("CONFORMANCE_SEED", 0)), "seed of the property-based cases; 0: Ginkgo's random seed (env CONFORMANCE_SEED)")
	fs.IntVar(&c.PropertyCases, "property-cases", envInt("CONFORMANCE_PROPERTY_CASES", 40), "valid and invalid argument sets generated per tool (env CONFORMANCE_PROPERTY_CASES)")
	fs.IntVar(&c.MaxBodyBytes, "max-body-bytes", envInt("CONFORMANCE_MAX_BODY_BYTES", 0), "the server's request body limit, for PAYLOAD_TOO_LARGE; 0 skips (env CONFORMANCE_MAX_BODY_BYTES)")
	fs.DurationVar(&c.Timeout, "timeout", envDuration("CONFORMANCE_TIMEOUT", 10*time.Second), "timeout of each HTTP exchange (env CONFORMANCE_TIMEOUT)")
	return c
}

// Validate checks the configuration and fills the derived defaults.
func (c *Config) Validate() error {
	if c.Endpoint == "" {
		return errors.New("no endpoint: pass --endpoint=http://HOST:PORT/mcp or set CONFORMANCE_ENDPOINT")
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint %q is not an absolute http(s) URL", c.Endpoint)
	}
	if c.PublicBaseURL == "" {
		c.PublicBaseURL = u.Scheme + "://" + u.Host
	}
	c.PublicBaseURL = strings.TrimRight(c.PublicBaseURL, "/")
	c.BookingBaseURL = strings.TrimRight(c.BookingBaseURL, "/")
	if c.Resource == "" {
		c.Resource = c.Endpoint
	}
	switch c.Mode {
	case ModeAuto, ModePublic, ModeOAuth:
	case "":
		c.Mode = ModeAuto
	default:
		return fmt.Errorf("mode %q: want auto, public or oauth", c.Mode)
	}
	if c.PropertyCases < 0 {
		return fmt.Errorf("property-cases %d: want 0 or more", c.PropertyCases)
	}
	if c.FareClock != "" {
		at, err := time.Parse(time.RFC3339Nano, c.FareClock)
		if err != nil {
			return fmt.Errorf("fare-clock %q: want an RFC 3339 instant such as 2025-06-18T09:00:00Z", c.FareClock)
		}
		c.FareClockTime = &at
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	return nil
}

// HasOAuthCredentials says whether the suite can call the server in OAuth mode.
func (c *Config) HasOAuthCredentials() bool { return c.Token != "" || c.Issuer != "" }

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envBool(name string, def bool) bool {
	if v, err := strconv.ParseBool(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

package auth

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults for the zero values of [Config].
const (
	// DefaultAudience is the audience every Supabase user token carries; tokens
	// for service_role or anon do not, and are refused.
	DefaultAudience = "authenticated"
	// DefaultSkew tolerates small clock drift between issuer and this server.
	DefaultSkew = 30 * time.Second
	// DefaultRefetchInterval is the minimum gap between JWKS fetches caused by
	// tokens with an unknown kid, so a flood of forged kids cannot hammer the
	// issuer.
	DefaultRefetchInterval = 30 * time.Second
	// DefaultRefreshInterval is how often loaded keys are refreshed in the
	// background, so a key the issuer withdrew stops verifying even if no
	// token with a new kid arrives.
	DefaultRefreshInterval = 15 * time.Minute
	// defaultHTTPTimeout bounds one discovery or JWKS request.
	defaultHTTPTimeout = 10 * time.Second
)

// Config configures a [Verifier]. Issuer and ResourceURL are required; every
// other field has a documented zero value.
type Config struct {
	// Issuer is the authorization server's issuer identifier
	// (OAUTH_ISSUER), e.g. https://<project-ref>.supabase.co/auth/v1.
	// The iss claim must equal it byte for byte (RFC 8414 issuer matching;
	// proxy hosts are refused), and discovery documents are fetched below it.
	// Required.
	Issuer string

	// ResourceURL is this server's canonical resource identifier
	// (MCP_RESOURCE_URL, e.g. https://tridenttaxis.online/mcp). The aud claim
	// must contain it exactly (RFC 8707 audience binding). Required.
	ResourceURL string

	// ResourceMetadataURL is advertised in the WWW-Authenticate header of
	// every 401 as resource_metadata. Zero: the origin of ResourceURL plus
	// /.well-known/oauth-protected-resource, as the published docs show.
	ResourceMetadataURL string

	// ResourceDocumentation is the resource_documentation member of the
	// protected-resource metadata (<PUBLIC_BASE_URL>/mcp-docs). Zero: the
	// member is omitted.
	ResourceDocumentation string

	// Audience must appear in the aud claim besides ResourceURL.
	// Zero: [DefaultAudience] ("authenticated").
	Audience string

	// Skew is the leeway applied to exp, nbf and iat. Zero: [DefaultSkew].
	// Negative: no leeway at all.
	Skew time.Duration

	// HTTPClient fetches discovery documents and the JWKS. Zero: a client
	// with a 10 s timeout. Responses are capped at 1 MiB.
	HTTPClient *http.Client

	// Now is the clock for claim checks and fetch rate limiting.
	// Zero: time.Now.
	Now func() time.Time

	// Logger receives one record per rejected request (reason class, never
	// the token) and key-loading events. Zero: slog.Default().
	Logger *slog.Logger

	// RefetchInterval is the minimum gap between JWKS re-fetches triggered by
	// an unknown kid; concurrent triggers share one fetch.
	// Zero: [DefaultRefetchInterval]. Negative is an error.
	RefetchInterval time.Duration

	// RefreshInterval is how often keys are re-fetched in the background once
	// loaded. Zero: [DefaultRefreshInterval]. Negative: never (keys then
	// change only on an unknown kid).
	RefreshInterval time.Duration

	// VerdictCacheSize bounds how many accepted tokens are remembered (by
	// SHA-256, never the token itself), so a client reusing its token pays
	// the signature check once. A remembered token is still held to exp, nbf
	// and iat on every request, and the cache is dropped when the issuer's
	// keys change; refusals are never cached. Zero:
	// [DefaultVerdictCacheSize]. Negative: no cache, every request is
	// checked in full.
	VerdictCacheSize int
}

// settings is a Config with its defaults applied and its URLs checked.
type settings struct {
	Config
	challenge string // the WWW-Authenticate value, built once
}

func (c Config) resolve() (settings, error) {
	if c.Issuer == "" {
		return settings{}, fmt.Errorf("auth: Config.Issuer is required (set OAUTH_ISSUER)")
	}
	if err := checkAbsoluteURL(c.Issuer); err != nil {
		return settings{}, fmt.Errorf("auth: Config.Issuer %q: %w", c.Issuer, err)
	}
	if c.ResourceURL == "" {
		return settings{}, fmt.Errorf("auth: Config.ResourceURL is required (set MCP_RESOURCE_URL)")
	}
	if err := checkAbsoluteURL(c.ResourceURL); err != nil {
		return settings{}, fmt.Errorf("auth: Config.ResourceURL %q: %w", c.ResourceURL, err)
	}
	if c.ResourceMetadataURL == "" {
		u, _ := url.Parse(c.ResourceURL) // checked above
		c.ResourceMetadataURL = u.Scheme + "://" + u.Host + MetadataPath
	}
	if err := checkAbsoluteURL(c.ResourceMetadataURL); err != nil {
		return settings{}, fmt.Errorf("auth: Config.ResourceMetadataURL %q: %w", c.ResourceMetadataURL, err)
	}
	// The URL goes inside a quoted-string of the challenge; refuse what would
	// need escaping rather than emit a header some clients misparse.
	if strings.ContainsAny(c.ResourceMetadataURL, "\"\\") || strings.ContainsFunc(c.ResourceMetadataURL, isCTL) {
		return settings{}, fmt.Errorf("auth: Config.ResourceMetadataURL %q contains a quote, backslash or control character", c.ResourceMetadataURL)
	}
	if c.Audience == "" {
		c.Audience = DefaultAudience
	}
	switch {
	case c.Skew == 0:
		c.Skew = DefaultSkew
	case c.Skew < 0:
		c.Skew = 0
	}
	switch {
	case c.RefetchInterval == 0:
		c.RefetchInterval = DefaultRefetchInterval
	case c.RefetchInterval < 0:
		return settings{}, fmt.Errorf("auth: Config.RefetchInterval %v is negative; it rate-limits JWKS fetches and cannot be disabled", c.RefetchInterval)
	}
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultRefreshInterval
	}
	if c.VerdictCacheSize == 0 {
		c.VerdictCacheSize = DefaultVerdictCacheSize
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: defaultHTTPTimeout}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return settings{Config: c, challenge: Challenge(c.ResourceMetadataURL)}, nil
}

// MetadataConfig is the protected-resource metadata for OAuth mode, built
// from the same values the verifier enforces so the two cannot disagree.
// On a Config that has not been through [NewVerifier], call it after
// setting Issuer and ResourceURL.
func (c Config) MetadataConfig() MetadataConfig {
	return MetadataConfig{
		RequireOAuth:          true,
		ResourceURL:           c.ResourceURL,
		Issuer:                c.Issuer,
		ResourceDocumentation: c.ResourceDocumentation,
	}
}

func checkAbsoluteURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("scheme must be https (or http for local development), got %q", u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("must not carry a query or fragment")
	}
	return nil
}

func isCTL(r rune) bool { return r < 0x20 || r == 0x7f }

package conformance

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
)

// ObtainToken runs the OAuth 2.1 authorization-code flow with PKCE against
// cfg.Issuer, the way the specification's steps 2-5 describe: issuer metadata, dynamic
// client registration (unless cfg.ClientID is set), authorize with
// resource=cfg.Resource, and the code exchange. Consent is given by the dev
// issuer's auto-approval (X-Dev-Auto-Approve), since the suite drives no
// browser. It returns the access token.
func ObtainToken(ctx context.Context, cfg *Config) (string, error) {
	hc := &http.Client{
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	issuer := strings.TrimRight(cfg.Issuer, "/")
	meta, err := discoverIssuer(ctx, hc, issuer)
	if err != nil {
		return "", err
	}
	clientID, secret := cfg.ClientID, cfg.ClientSecret
	if clientID == "" {
		if meta.RegistrationEndpoint == "" {
			return "", fmt.Errorf("no --client-id and the issuer advertises no registration_endpoint")
		}
		reg, _ := json.Marshal(map[string]any{
			"client_name":                "trident-conformance",
			"redirect_uris":              []string{cfg.RedirectURI},
			"grant_types":                []string{"authorization_code", "refresh_token"},
			"response_types":             []string{"code"},
			"token_endpoint_auth_method": "none",
		})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, meta.RegistrationEndpoint, bytes.NewReader(reg))
		req.Header.Set("Content-Type", "application/json")
		var out struct {
			ClientID     string `json:"client_id"`
			ClientSecret string `json:"client_secret"`
		}
		if err := doJSON(hc, req, &out); err != nil {
			return "", fmt.Errorf("dynamic client registration: %w", err)
		}
		clientID, secret = out.ClientID, out.ClientSecret
	}
	oc := &oauth2.Config{
		ClientID:     clientID,
		ClientSecret: secret,
		RedirectURL:  cfg.RedirectURI,
		Scopes:       []string{"openid", "email", "profile"},
		Endpoint:     oauth2.Endpoint{AuthURL: meta.AuthorizationEndpoint, TokenURL: meta.TokenEndpoint},
	}
	verifier := oauth2.GenerateVerifier()
	state := oauth2.GenerateVerifier()[:16]
	authURL := oc.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", cfg.Resource),
		oauth2.SetAuthURLParam("dev_auto_approve", cfg.AutoApprove))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	req.Header.Set("X-Dev-Auto-Approve", cfg.AutoApprove)
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("authorize: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return "", fmt.Errorf("authorize answered HTTP %d without a redirect (does the issuer auto-approve? it needs dev auto-approval): %s", resp.StatusCode, truncate(string(body), 300))
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return "", fmt.Errorf("authorize refused: %s: %s", e, q.Get("error_description"))
	}
	if q.Get("state") != state || q.Get("code") == "" {
		return "", fmt.Errorf("authorize redirect %s lacks the code or echoes the wrong state", loc)
	}
	tctx := context.WithValue(ctx, oauth2.HTTPClient, hc)
	tok, err := oc.Exchange(tctx, q.Get("code"), oauth2.VerifierOption(verifier),
		oauth2.SetAuthURLParam("resource", cfg.Resource))
	if err != nil {
		return "", fmt.Errorf("token exchange: %w", err)
	}
	return tok.AccessToken, nil
}

// issuerMetadata is the part of RFC 8414 metadata the flow uses.
type issuerMetadata struct {
	Issuer                        string   `json:"issuer"`
	AuthorizationEndpoint         string   `json:"authorization_endpoint"`
	TokenEndpoint                 string   `json:"token_endpoint"`
	RegistrationEndpoint          string   `json:"registration_endpoint"`
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported"`
}

// MetadataURLs lists where an issuer's metadata may live, in the order the
// MCP authorization spec tries them: RFC 8414's form (the well-known suffix
// between host and path, which is where Supabase serves it for
// https://<ref>.supabase.co/auth/v1), OpenID discovery in the same form, and
// the suffix appended to the issuer (OpenID's form, which the dev issuer
// also serves).
func MetadataURLs(issuer string) []string {
	issuer = strings.TrimRight(issuer, "/")
	u, err := url.Parse(issuer)
	if err != nil || u.Path == "" {
		return []string{issuer + "/.well-known/oauth-authorization-server", issuer + "/.well-known/openid-configuration"}
	}
	root := u.Scheme + "://" + u.Host
	return []string{
		root + "/.well-known/oauth-authorization-server" + u.Path,
		root + "/.well-known/openid-configuration" + u.Path,
		issuer + "/.well-known/oauth-authorization-server",
		issuer + "/.well-known/openid-configuration",
	}
}

// discoverIssuer fetches the first metadata document of [MetadataURLs]
// that names both endpoints the flow needs.
func discoverIssuer(ctx context.Context, hc *http.Client, issuer string) (issuerMetadata, error) {
	var errs []string
	for _, u := range MetadataURLs(issuer) {
		var meta issuerMetadata
		err := getJSON(ctx, hc, u, &meta)
		if err == nil && (meta.AuthorizationEndpoint == "" || meta.TokenEndpoint == "") {
			err = fmt.Errorf("%s lacks authorization_endpoint or token_endpoint", u)
		}
		if err == nil {
			return meta, nil
		}
		errs = append(errs, err.Error())
	}
	return issuerMetadata{}, fmt.Errorf("issuer metadata of %s not found:\n  %s", issuer, strings.Join(errs, "\n  "))
}

func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	return doJSON(hc, req, v)
}

func doJSON(hc *http.Client, req *http.Request, v any) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d: %s", req.Method, req.URL, resp.StatusCode, truncate(string(b), 300))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	return nil
}

// UnverifiedClaims decodes a JWT's payload without checking its signature:
// the suite only copies claims from a token the server accepts.
func UnverifiedClaims(token string) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("not a compact JWS: %d parts", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, fmt.Errorf("JWT payload: %w", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(b, &claims); err != nil {
		return nil, fmt.Errorf("JWT payload: %w", err)
	}
	return claims, nil
}

// ForeignToken returns a token whose claims are those of template (or, when
// template is empty, plausible ones naming issuer and resource) with a fresh
// exp, signed ES256 by a key generated here that no issuer has published: a
// server that verifies signatures must refuse it.
func ForeignToken(template, issuer, resource string, now time.Time) (string, error) {
	claims := map[string]any{
		"iss": issuer, "aud": []string{"authenticated", resource}, "sub": "00000000-0000-4000-8000-000000000000",
		"client_id": "conformance-foreign", "role": "authenticated",
	}
	if template != "" {
		c, err := UnverifiedClaims(template)
		if err != nil {
			return "", err
		}
		claims = c
	}
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(time.Hour).Unix()
	kid := "conformance-foreign-key"
	if template != "" {
		// Reuse the real kid, so that a server cannot refuse the token merely
		// for an unknown kid: only the signature betrays it.
		if h, err := jwtHeader(template); err == nil && h.KeyID != "" {
			kid = h.KeyID
		}
	}
	return signES256(claims, kid)
}

func signES256(claims map[string]any, kid string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

func jwtHeader(token string) (jose.Header, error) {
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.ES384, jose.RS512, jose.PS256, jose.EdDSA})
	if err != nil {
		return jose.Header{}, err
	}
	if len(tok.Headers) == 0 {
		return jose.Header{}, fmt.Errorf("no header")
	}
	return tok.Headers[0], nil
}

// ResourceMetadataURL is where a server whose public base is base publishes
// its RFC 9728 metadata.
func ResourceMetadataURL(base string) string {
	return strings.TrimRight(base, "/") + "/.well-known/oauth-protected-resource"
}

// SameURL compares two URLs after parsing, so that a trailing slash on an
// empty path or letter case in the host does not matter.
func SameURL(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	norm := func(u *url.URL) string {
		p := u.EscapedPath()
		if p == "" {
			p = "/"
		}
		return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p + "?" + u.RawQuery
	}
	return norm(ua) == norm(ub)
}

package devissuer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// RegistrationRequest is the client metadata of RFC 7591 §2 that the dev
// issuer understands. Unknown fields are ignored, as §2 requires.
type RegistrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// RegistrationResponse is the RFC 7591 §3.2.1 response.
type RegistrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// registrationError carries an RFC 7591 §3.2.2 error code.
type registrationError struct{ code, desc string }

func (e *registrationError) Error() string { return e.code + ": " + e.desc }

func invalidMetadata(format string, args ...any) error {
	return &registrationError{"invalid_client_metadata", fmt.Sprintf(format, args...)}
}

// validateRegistration checks a request and fills in defaults. It is
// separate from the handler so that it can be fuzzed.
//
// Defaults differ from RFC 7591's in one place: token_endpoint_auth_method
// defaults to "none" (public client), not client_secret_basic, because the
// issuer exists for MCP clients, which are public clients with PKCE, and
// Supabase's OAuth server registers them that way too.
func validateRegistration(req *RegistrationRequest) error {
	if len(req.RedirectURIs) == 0 {
		return &registrationError{"invalid_redirect_uri", "redirect_uris is required and must not be empty"}
	}
	for _, u := range req.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return &registrationError{"invalid_redirect_uri", err.Error()}
		}
	}
	switch req.TokenEndpointAuthMethod {
	case "":
		req.TokenEndpointAuthMethod = "none"
	case "none", "client_secret_post", "client_secret_basic":
	default:
		return invalidMetadata("token_endpoint_auth_method %q is not supported (none, client_secret_post, client_secret_basic)", req.TokenEndpointAuthMethod)
	}
	if len(req.GrantTypes) == 0 {
		req.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return invalidMetadata("grant_type %q is not supported (authorization_code, refresh_token)", g)
		}
	}
	if !slices.Contains(req.GrantTypes, "authorization_code") {
		return invalidMetadata("grant_types must include authorization_code")
	}
	if len(req.ResponseTypes) == 0 {
		req.ResponseTypes = []string{"code"}
	}
	for _, rt := range req.ResponseTypes {
		if rt != "code" {
			return invalidMetadata("response_type %q is not supported (code)", rt)
		}
	}
	for _, s := range strings.Fields(req.Scope) {
		if !slices.Contains(supportedScopes, s) {
			return invalidMetadata("scope %q is not supported (%s)", s, strings.Join(supportedScopes, " "))
		}
	}
	for name, u := range map[string]string{"client_uri": req.ClientURI, "logo_uri": req.LogoURI} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return invalidMetadata("%s %q is not an absolute http(s) URL", name, u)
		}
	}
	return nil
}

// checkRedirectURI enforces OAuth 2.1 §2.3.1 / RFC 8252: absolute, no
// fragment; http only for loopback hosts; other schemes (private-use
// schemes of native apps, e.g. com.example.app:/cb) are allowed.
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("redirect_uri %q does not parse: %v", raw, err)
	}
	if !u.IsAbs() {
		return fmt.Errorf("redirect_uri %q is not absolute", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("redirect_uri %q must not have a fragment", raw)
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return fmt.Errorf("redirect_uri %q has no host", raw)
		}
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return fmt.Errorf("redirect_uri %q uses http on a non-loopback host; use https", raw)
		}
	case "javascript", "data", "file", "vbscript":
		return fmt.Errorf("redirect_uri %q uses a forbidden scheme", raw)
	}
	return nil
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1" || strings.HasSuffix(h, ".localhost")
}

// handleRegister implements RFC 7591 dynamic client registration. fosite
// has no DCR endpoint (Ory Hydra builds one on its own client store), so it
// is written here over the issuer's store.
func (i *Issuer) handleRegister(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "Content-Type must be application/json")
		return
	}
	var req RegistrationRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "body must be a JSON object of client metadata: "+err.Error())
		return
	}
	resp, err := i.RegisterClient(r.Context(), req)
	if err != nil {
		var re *registrationError
		if errors.As(err, &re) {
			writeOAuthError(w, http.StatusBadRequest, re.code, re.desc)
		} else {
			writeOAuthError(w, http.StatusInternalServerError, "server_error", err.Error())
		}
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, resp)
}

// RegisterClient registers a client as the DCR endpoint does, for tests
// that want one without HTTP. Invalid metadata returns an error whose text
// starts with the RFC 7591 error code.
func (i *Issuer) RegisterClient(ctx context.Context, req RegistrationRequest) (RegistrationResponse, error) {
	if err := validateRegistration(&req); err != nil {
		return RegistrationResponse{}, err
	}
	now := i.opts.Now().Unix()
	c := &Client{
		ID:                      uuid.NewString(),
		Name:                    req.ClientName,
		ClientURI:               req.ClientURI,
		LogoURI:                 req.LogoURI,
		RedirectURIs:            req.RedirectURIs,
		GrantTypes:              req.GrantTypes,
		ResponseTypes:           req.ResponseTypes,
		TokenEndpointAuthMethod: req.TokenEndpointAuthMethod,
		Scope:                   req.Scope,
		IssuedAt:                now,
	}
	resp := RegistrationResponse{
		ClientID:                c.ID,
		ClientIDIssuedAt:        now,
		RedirectURIs:            c.RedirectURIs,
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod,
		GrantTypes:              c.GrantTypes,
		ResponseTypes:           c.ResponseTypes,
		ClientName:              c.Name,
		ClientURI:               c.ClientURI,
		LogoURI:                 c.LogoURI,
		Scope:                   c.Scope,
	}
	if c.TokenEndpointAuthMethod != "none" {
		secret := randomID(32)
		hash, err := i.config.GetSecretsHasher(ctx).Hash(ctx, []byte(secret))
		if err != nil {
			return RegistrationResponse{}, fmt.Errorf("devissuer: hash client secret: %w", err)
		}
		c.SecretHash = hash
		resp.ClientSecret = secret
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	if err := i.store.saveClient(ctx, c); err != nil {
		return RegistrationResponse{}, err
	}
	return resp, nil
}

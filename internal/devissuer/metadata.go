package devissuer

import (
	"encoding/json"
	"net/http"
)

// Metadata is the authorization server metadata (RFC 8414), also served as
// the OpenID discovery document. fosite has no metadata endpoint, so this
// is written here; every value states what the handlers really do.
type Metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	JWKSURI                           string   `json:"jwks_uri"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	ScopesSupported                   []string `json:"scopes_supported"`
	SubjectTypesSupported             []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported  []string `json:"id_token_signing_alg_values_supported"`
	ClaimsSupported                   []string `json:"claims_supported"`
	// ResourceIndicatorsSupported is not an RFC 8414 field; it tells RFC
	// 8707-aware clients that resource is honoured (and here required).
	ResourceIndicatorsSupported bool `json:"resource_indicators_supported"`
	// ClientIDMetadataDocumentSupported is true: a client_id may be the
	// https URL of the client's metadata document (see cimd.go), as well as
	// one DCR issued.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported"`
}

// Metadata returns the document served at the well-known endpoints.
func (i *Issuer) Metadata() Metadata {
	return Metadata{
		Issuer:                            i.issuer,
		AuthorizationEndpoint:             i.issuer + "/oauth/authorize",
		TokenEndpoint:                     i.issuer + "/oauth/token",
		RegistrationEndpoint:              i.issuer + "/oauth/clients/register",
		RevocationEndpoint:                i.issuer + "/oauth/revoke",
		JWKSURI:                           i.issuer + "/.well-known/jwks.json",
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token", "client_credentials"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: []string{"none", "client_secret_post", "client_secret_basic"},
		RevocationEndpointAuthMethods:     []string{"none", "client_secret_post", "client_secret_basic"},
		ScopesSupported:                   supportedScopes,
		SubjectTypesSupported:             []string{"public"},
		IDTokenSigningAlgValuesSupported:  []string{"ES256"},
		ClaimsSupported: []string{"iss", "sub", "aud", "exp", "iat", "email", "phone", "role",
			"aal", "amr", "session_id", "is_anonymous", "client_id"},
		ResourceIndicatorsSupported:       true,
		ClientIDMetadataDocumentSupported: true,
	}
}

func (i *Issuer) handleMetadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, http.StatusOK, i.Metadata())
}

func (i *Issuer) handleJWKS(w http.ResponseWriter, _ *http.Request) {
	// Short cache: after RotateKey, verifiers that re-fetch on an unknown
	// kid must see the new key at once.
	w.Header().Set("Cache-Control", "public, max-age=30")
	writeJSON(w, http.StatusOK, i.keys.jwks())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// oauthError is the RFC 6749 §5.2 / RFC 7591 §3.2.2 error body.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeOAuthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, oauthError{Error: code, Description: desc})
}

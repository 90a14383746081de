package auth

import (
	"fmt"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Reason classifies why a request was refused. It is logged, never sent: the
// client always gets the same 401, so a probe learns nothing about which
// check failed.
type Reason string

// The reason classes, one per check.
const (
	ReasonMissingCredentials Reason = "missing_credentials" // no Authorization header
	ReasonMalformedHeader    Reason = "malformed_header"    // not "Bearer <token68>", or several headers
	ReasonWrongScheme        Reason = "wrong_scheme"        // "JWT ...", "Token ...", "Basic ..."
	ReasonTokenInQuery       Reason = "token_in_query"      // access_token= in the URL
	ReasonMalformedToken     Reason = "malformed_token"     // not a compact JWS
	ReasonDisallowedAlg      Reason = "disallowed_alg"      // alg not ES256/RS256 (none, HS256, ...)
	ReasonKeysUnavailable    Reason = "keys_unavailable"    // no JWKS loaded yet (issuer unreachable)
	ReasonUnknownKey         Reason = "unknown_key"         // kid not in the JWKS, even after a re-fetch
	ReasonBadSignature       Reason = "bad_signature"       // signature does not verify
	ReasonMalformedClaims    Reason = "malformed_claims"    // payload not a claims object of the right types
	ReasonWrongIssuer        Reason = "wrong_issuer"        // iss differs from the configured issuer
	ReasonWrongAudience      Reason = "wrong_audience"      // aud lacks "authenticated"
	ReasonWrongResource      Reason = "wrong_resource"      // aud lacks the resource URL (RFC 8707)
	ReasonMissingExpiry      Reason = "missing_exp"         // no exp claim
	ReasonExpired            Reason = "expired"             // exp passed
	ReasonNotYetValid        Reason = "not_yet_valid"       // nbf in the future
	ReasonIssuedInFuture     Reason = "issued_in_future"    // iat in the future
	ReasonMissingSubject     Reason = "missing_sub"         // sub absent or empty
	ReasonMissingClientID    Reason = "missing_client_id"   // client_id absent or empty (app-session JWT)
)

// TokenError is what [Verifier.Verify] returns for a token it refuses. It
// unwraps to the go-sdk's [sdkauth.ErrInvalidToken], as the SDK's
// TokenVerifier contract asks.
type TokenError struct {
	Reason Reason
	// Detail is for logs: which value failed, never the token itself.
	Detail string
}

func (e *TokenError) Error() string {
	if e.Detail == "" {
		return "auth: token refused: " + string(e.Reason)
	}
	return "auth: token refused: " + string(e.Reason) + ": " + e.Detail
}

// Unwrap lets errors.Is(err, sdkauth.ErrInvalidToken) hold.
func (e *TokenError) Unwrap() error { return sdkauth.ErrInvalidToken }

func refuse(r Reason, format string, args ...any) *TokenError {
	return &TokenError{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

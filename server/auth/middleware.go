package auth

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// The 401 contract comes from the error catalogue's UNAUTHORIZED row
// (contracts/errors.json), which follows the published docs' "Error payload on
// auth failure"; contracts/README.md says why that wording was chosen over the
// shorter one under "Error codes".
var (
	// UnauthorizedCode is the JSON-RPC error code of every auth failure.
	UnauthorizedCode = errcodes.MustLookup(errcodes.Unauthorized).JSONRPCCode
	// UnauthorizedMessage is the JSON-RPC error message of every auth failure.
	UnauthorizedMessage = errcodes.MustLookup(errcodes.Unauthorized).Message
)

// ChallengeDescription is the error_description of the challenge.
const ChallengeDescription = "Missing or invalid access token"

// unauthorizedBody is the exact 401 body:
// {"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"..."}}
var unauthorizedBody = func() []byte {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      *int   `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{UnauthorizedCode, UnauthorizedMessage}})
	if err != nil {
		panic(err)
	}
	return b
}()

// Challenge is the WWW-Authenticate value of every 401:
//
//	Bearer realm="mcp", error="invalid_token", error_description="Missing or invalid access token", resource_metadata="<url>"
//
// The same value is sent when no credentials came at all. RFC 6750 section 3.1
// says such a response SHOULD NOT carry an error code; the published docs
// promise one shape for every failure, including "missing header", and
// clients key on resource_metadata, which is always present. One shape also
// means a probe cannot tell "no token" from "bad token" by the header.
func Challenge(resourceMetadataURL string) string {
	return `Bearer realm="mcp", error="invalid_token", error_description="` + ChallengeDescription +
		`", resource_metadata="` + resourceMetadataURL + `"`
}

// WriteUnauthorized writes the one 401 answer. Other transports that refuse
// a caller should use it so every refusal looks the same.
func WriteUnauthorized(w http.ResponseWriter, resourceMetadataURL string) {
	writeUnauthorized(w, Challenge(resourceMetadataURL))
}

func writeUnauthorized(w http.ResponseWriter, challenge string) {
	h := w.Header()
	h.Set("WWW-Authenticate", challenge)
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write(unauthorizedBody)
}

// Middleware refuses every request without a valid bearer token with the
// 401 of [WriteUnauthorized], logging the reason, and passes the rest to next
// with the [Caller] in the context ([CallerFrom]) and the go-sdk's TokenInfo
// installed ([CallerFromTokenInfo] on mcp.RequestExtra.TokenInfo).
//
// Every method is guarded, OPTIONS included: CORS preflight handling, if the
// server offers it, belongs outside this middleware.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return v.Authenticate(v.SDKBridge(next))
}

// Authenticate is [Verifier.Middleware] without the go-sdk bridge: the
// same refusals, and the [Caller] in the context ([CallerFrom],
// [TokenInfoFrom]), but nothing under the SDK's own context key. It is for
// a front door that answers some requests itself and hands the rest to a
// go-sdk handler wrapped in [Verifier.SDKBridge]: the bridge re-reads the
// Authorization header (strings.Fields over the whole token) and copies the
// request once more, which was a tenth of an OAuth-mode estimate_fare's
// in-process time (BenchmarkEstimateFareOAuth), spent on calls the SDK
// never sees.
func (v *Verifier) Authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := bearerCredential(r)
		var c *verifiedCaller
		if err == nil {
			c, err = v.verifyCredential(r.Context(), token)
		}
		if err != nil {
			v.logRefusal(r, err)
			writeUnauthorized(w, v.cfg.challenge)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithCaller(r.Context(), c)))
	})
}

// SDKBridge puts the TokenInfo of the caller [Verifier.Authenticate] attached
// under the go-sdk's private context key, where its StreamableHTTPHandler
// reads it (auth.TokenInfoFromContext), by running the SDK's own
// RequireBearerToken with a verifier that hands back what was already
// verified. It cannot refuse a request Authenticate let through: the token
// is in the context and has a zero Expiration (see verify), which
// AllowMissingExpiration accepts. Behind anything other than Authenticate
// (no caller in the context) it answers the SDK's own 401.
func (v *Verifier) SDKBridge(next http.Handler) http.Handler {
	return sdkauth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if ti := TokenInfoFrom(ctx); ti != nil {
			return ti, nil
		}
		return nil, sdkauth.ErrInvalidToken
	}, &sdkauth.RequireBearerTokenOptions{
		ResourceMetadataURL:    v.cfg.ResourceMetadataURL,
		AllowMissingExpiration: true,
	})(next)
}

// TokenInfoFrom returns the go-sdk TokenInfo of the caller
// [Verifier.Authenticate] (or Middleware) attached to ctx, or nil when ctx
// has none. A handler that builds mcp.RequestExtra itself (the fast path)
// takes it from here rather than from the SDK's context key, which only
// [Verifier.SDKBridge] fills.
func TokenInfoFrom(ctx context.Context) *sdkauth.TokenInfo {
	if c, ok := ctx.Value(callerKey{}).(*verifiedCaller); ok && c.ti != nil {
		return c.ti
	}
	return nil
}

func (v *Verifier) logRefusal(r *http.Request, err error) {
	var te *TokenError
	if !errors.As(err, &te) {
		te = &TokenError{Reason: ReasonMalformedToken, Detail: err.Error()}
	}
	// Missing and expired tokens are ordinary client life; the rest point at
	// a broken client, a misconfiguration or an attack.
	level := slog.LevelWarn
	if te.Reason == ReasonMissingCredentials || te.Reason == ReasonExpired {
		level = slog.LevelInfo
	}
	v.cfg.Logger.LogAttrs(r.Context(), level, "auth: request refused",
		slog.String("reason", string(te.Reason)),
		slog.String("detail", te.Detail),
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.String("remote_addr", r.RemoteAddr),
	)
}

// bearerCredential takes the token from the one place the contract allows:
// a single Authorization header, "Bearer" in any case, exactly one space, a
// token68 value (RFC 6750 section 2.1). Query-string tokens are refused even
// beside a good header (RFC 6750 forbids more than one method per request);
// cookies are never read. Whether the value is a token68 is left to
// [Verifier.verifyCredential], which checks it only for a token it has not
// accepted before.
func bearerCredential(r *http.Request) (string, error) {
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return "", refuse(ReasonTokenInQuery, "access_token in the query string")
	}
	values := r.Header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", refuse(ReasonMissingCredentials, "no Authorization header")
	case 1:
	default:
		return "", refuse(ReasonMalformedHeader, "%d Authorization headers", len(values))
	}
	return splitBearer(values[0])
}

// verifyCredential checks a token taken from the Authorization header:
// the verdict cache first, then the token68 rule, then the full check. The
// order saves the token68 scan (every byte of a token of about 1 KiB, the
// largest OAuth-only cost left on a cached call under load) on every call
// of a client that reuses its token, and answers the same: only a token68
// is ever cached (verdictCache.add), so a hit is one, and anything else
// misses and is refused as before, for the same reason.
func (v *Verifier) verifyCredential(ctx context.Context, token string) (*verifiedCaller, error) {
	if c := v.cached(token); c != nil {
		return c, nil
	}
	if !isToken68(token) {
		return nil, errNotToken68()
	}
	return v.verify(ctx, token)
}

// parseBearer splits one Authorization value and checks that the token is
// a token68: bearerCredential and verifyCredential together. Split out for
// fuzzing.
func parseBearer(value string) (string, error) {
	token, err := splitBearer(value)
	if err != nil {
		return "", err
	}
	if !isToken68(token) {
		return "", errNotToken68()
	}
	return token, nil
}

// splitBearer takes the token out of one Authorization value, all but the
// token68 rule checked.
func splitBearer(value string) (string, error) {
	if value == "" {
		return "", refuse(ReasonMissingCredentials, "empty Authorization header")
	}
	scheme, token, ok := strings.Cut(value, " ")
	if !ok {
		if strings.EqualFold(value, "bearer") {
			return "", refuse(ReasonMalformedHeader, "Bearer scheme without a token")
		}
		return "", refuse(ReasonWrongScheme, "no space after the scheme")
	}
	if !strings.EqualFold(scheme, "bearer") {
		return "", refuse(ReasonWrongScheme, "scheme %s is not Bearer", schemeForLog(scheme))
	}
	return token, nil
}

func errNotToken68() error {
	return refuse(ReasonMalformedHeader, "value after \"Bearer \" is not a single token68")
}

// isToken68: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
func isToken68(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	// A table rather than a switch of ranges: the loop runs over every
	// byte of every token (about 1 KiB), and the switch was 1.7% of an
	// OAuth-mode server's CPU under load (perf, loadbench at 1 connection).
	for i := 0; i < len(body); i++ {
		if !token68Chars[body[i]] {
			return false
		}
	}
	return true
}

// token68Chars marks the bytes a token68 may hold before its padding.
var token68Chars = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
	}
	return t
}()

// schemeForLog names a short alphabetic scheme ("JWT", "Token", "Basic")
// and nothing else, so a raw token sent without a scheme never reaches logs.
func schemeForLog(s string) string {
	if len(s) > 12 {
		return "(unrecognised)"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-') {
			return "(unrecognised)"
		}
	}
	return strconv.Quote(s)
}

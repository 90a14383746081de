package auth

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Caller is who made the request, as tool handlers see it. It mirrors the
// published handler context (isAuthenticated, getUserId, getUserEmail,
// getClientId, getClaims, getToken).
type Caller interface {
	// IsAuthenticated reports whether a verified token stands behind this
	// caller. False only for [Anonymous].
	IsAuthenticated() bool
	// UserID is the sub claim (the Supabase user UUID).
	UserID() string
	// Email is the email claim, or "" when the token has none.
	Email() string
	// ClientID is the OAuth client the token was issued to.
	ClientID() string
	// Claims is every claim of the token (a fresh shallow copy per call, so
	// a handler cannot alter what another handler sees; nested values are
	// shared and must not be modified). Numbers are float64, as encoding/json
	// decodes them.
	Claims() map[string]any
	// Token is the raw access token, for forwarding to the issuer's APIs so
	// that row-level security runs as the caller. Never log it.
	Token() string
}

// CallerInfo is the data behind an authenticated [Caller]; see [NewCaller].
type CallerInfo struct {
	UserID   string
	Email    string
	ClientID string
	Claims   map[string]any
	Token    string
}

// NewCaller returns an authenticated Caller holding info. The middleware
// builds callers itself; this is for tests and other transports that
// authenticate by their own means and then use [WithCaller].
func NewCaller(info CallerInfo) Caller {
	return &verifiedCaller{info: info}
}

// Anonymous is the caller of public mode: IsAuthenticated is false and
// every other method returns the zero value. A public-mode server may attach
// it with [WithCaller] so handlers always find a caller; handlers should
// treat "no caller" and "Anonymous" alike.
var Anonymous Caller = anonymousCaller{}

type callerKey struct{}

// WithCaller returns ctx carrying c, where [CallerFrom] finds it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller the middleware attached to ctx. In public
// mode it returns (nil, false) unless the server attached [Anonymous].
//
// With the go-sdk's Streamable HTTP handler, a tool handler's ctx carries the
// values of the HTTP request that created the MCP session. In stateless mode
// (a session per request) that is the current request; in stateful mode it is
// the request that initialized the session, so prefer [CallerFromTokenInfo]
// with req.Extra.TokenInfo there, which is always the current request's.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c != nil
}

// TokenInfoCallerKey is the key of [sdkauth.TokenInfo].Extra under which the
// middleware stores the [Caller].
const TokenInfoCallerKey = "trident.caller"

// CallerFromTokenInfo returns the caller stored in the go-sdk's TokenInfo
// (mcp.RequestExtra.TokenInfo in a tool handler), which the SDK fills from
// the current HTTP request on every call.
func CallerFromTokenInfo(ti *sdkauth.TokenInfo) (Caller, bool) {
	if ti == nil {
		return nil, false
	}
	c, ok := ti.Extra[TokenInfoCallerKey].(Caller)
	return c, ok && c != nil
}

type verifiedCaller struct {
	info CallerInfo
	ti   *sdkauth.TokenInfo // set by the verifier; handed to the go-sdk
}

func (c *verifiedCaller) IsAuthenticated() bool  { return true }
func (c *verifiedCaller) UserID() string         { return c.info.UserID }
func (c *verifiedCaller) Email() string          { return c.info.Email }
func (c *verifiedCaller) ClientID() string       { return c.info.ClientID }
func (c *verifiedCaller) Claims() map[string]any { return maps.Clone(c.info.Claims) }
func (c *verifiedCaller) Token() string          { return c.info.Token }

// String keeps the token out of fmt output.
func (c *verifiedCaller) String() string {
	return "auth.Caller{user=" + c.info.UserID + " client=" + c.info.ClientID + "}"
}

// LogValue keeps the token out of slog output.
func (c *verifiedCaller) LogValue() slog.Value {
	return slog.GroupValue(slog.String("user_id", c.info.UserID), slog.String("client_id", c.info.ClientID))
}

type anonymousCaller struct{}

func (anonymousCaller) IsAuthenticated() bool  { return false }
func (anonymousCaller) UserID() string         { return "" }
func (anonymousCaller) Email() string          { return "" }
func (anonymousCaller) ClientID() string       { return "" }
func (anonymousCaller) Claims() map[string]any { return nil }
func (anonymousCaller) Token() string          { return "" }
func (anonymousCaller) String() string         { return "auth.Caller{anonymous}" }

// Scopes are the OAuth scopes granted to c's token (its space-separated
// scope claim), nil for [Anonymous] or a token without one. An endpoint
// that enforces per-tool scopes reads them here; a verified caller keeps
// them parsed in its go-sdk TokenInfo, a caller built by [NewCaller] has
// them in Claims["scope"].
func Scopes(c Caller) []string {
	if vc, ok := c.(*verifiedCaller); ok && vc.ti != nil {
		return slices.Clone(vc.ti.Scopes)
	}
	if c == nil || !c.IsAuthenticated() {
		return nil
	}
	s, _ := c.Claims()["scope"].(string)
	return strings.Fields(s)
}

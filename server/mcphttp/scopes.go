package mcphttp

import (
	"net/http"
	"slices"
	"sort"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
)

// requireScope checks, in OAuth mode, that the caller's token was granted
// the scope the endpoint's [Endpoint.ToolScopes] names for tool, answering
// 403 with the RFC 6750 section 3.1 challenge when it was not. Public mode,
// and a tool the map leaves out, need no scope. It runs after the
// verifier, so a caller without a valid token never gets here.
func (d *door) requireScope(w http.ResponseWriter, r *http.Request, tool string) bool {
	need, ok := d.ep.ToolScopes[tool]
	if !ok || d.cfg.Verifier == nil {
		return true
	}
	if HasScope(r, need) {
		return true
	}
	writeInsufficientScope(w, need, d.cfg.Verifier.ResourceMetadataURL())
	return false
}

// HasScope reports whether the request's verified caller was granted scope.
func HasScope(r *http.Request, scope string) bool {
	c, ok := auth.CallerFrom(r.Context())
	return ok && slices.Contains(auth.Scopes(c), scope)
}

// InsufficientScopeChallenge is the WWW-Authenticate value of a 403 for a
// token that lacks scope (RFC 6750 section 3.1):
//
//	Bearer error="insufficient_scope", scope="rides:read", resource_metadata="<url>"
func InsufficientScopeChallenge(scope, resourceMetadataURL string) string {
	return `Bearer error="insufficient_scope", scope="` + scope + `", resource_metadata="` + resourceMetadataURL + `"`
}

// writeInsufficientScope answers the catalogue's INSUFFICIENT_SCOPE row.
func writeInsufficientScope(w http.ResponseWriter, scope, resourceMetadataURL string) {
	w.Header().Set("WWW-Authenticate", InsufficientScopeChallenge(scope, resourceMetadataURL))
	writeError(w, 0, nil, errcodes.InsufficientScope, Message(errcodes.InsufficientScope, "scope", scope))
}

// ScopesSupported is what ep's protected-resource metadata lists as
// scopes_supported: every scope its tools and routes require, sorted.
func (ep *Endpoint) ScopesSupported() []string {
	var out []string
	for _, s := range ep.ToolScopes {
		out = append(out, s)
	}
	out = append(out, ep.RouteScopes...)
	sort.Strings(out)
	return slices.Compact(out)
}

// Protect wraps a route of the endpoint with the same access the MCP
// endpoint has: in OAuth mode the endpoint's verifier (401 without a valid
// token) and then scope (403 insufficient_scope without it; "" needs none).
// The host fills it in the [Mount] it gives [Endpoint.Routes]; in public
// mode it returns h unchanged.
type Protect func(scope string, h http.Handler) http.Handler

// NewProtect is the [Protect] of an endpoint behind verifier v (nil: public
// mode), for the host to put in the [Mount] it gives [Endpoint.Routes].
func NewProtect(v *auth.Verifier) Protect {
	return func(scope string, h http.Handler) http.Handler {
		if v == nil {
			return h
		}
		inner := h
		if scope != "" {
			inner = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !HasScope(r, scope) {
					writeInsufficientScope(w, scope, v.ResourceMetadataURL())
					return
				}
				h.ServeHTTP(w, r)
			})
		}
		return v.Middleware(inner)
	}
}

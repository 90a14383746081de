package devissuer

import (
	"net/http"
	"strings"
)

func (i *Issuer) routes() http.Handler {
	mux := http.NewServeMux()
	p := IssuerPath
	api := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, cors(h)) }

	api("GET "+p+"/.well-known/oauth-authorization-server", i.handleMetadata)
	api("GET "+p+"/.well-known/openid-configuration", i.handleMetadata)
	// RFC 8414 §3.1: for an issuer with a path, the well-known suffix goes
	// between host and path.
	api("GET /.well-known/oauth-authorization-server"+p, i.handleMetadata)
	api("GET /.well-known/openid-configuration"+p, i.handleMetadata)
	api("GET "+p+"/.well-known/jwks.json", i.handleJWKS)
	api("POST "+p+"/oauth/token", i.handleToken)
	api("POST "+p+"/oauth/revoke", i.handleRevoke)
	// Supabase registers at /oauth/clients/register; the specification says
	// /oauth/register. Both work.
	api("POST "+p+"/oauth/clients/register", i.handleRegister)
	api("POST "+p+"/oauth/register", i.handleRegister)
	api("GET "+p+"/health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "issuer": i.issuer})
	})

	mux.HandleFunc("GET "+p+"/oauth/authorize", i.handleAuthorize)
	mux.HandleFunc("POST "+p+"/oauth/authorize", i.handleAuthorize)
	for _, path := range []string{SignInPath, signInAlias} {
		mux.HandleFunc("GET "+path, i.handleSignIn)
		mux.HandleFunc("POST "+path, i.handleSignIn)
	}
	for _, path := range []string{ConsentPath, consentAlias} {
		mux.HandleFunc("GET "+path, i.handleConsent)
		mux.HandleFunc("POST "+path, i.handleConsent)
	}
	if i.opts.DevAdmin {
		mux.HandleFunc("POST "+p+"/admin/rotate-key", i.handleRotateKey)
	}
	return preflight(mux)
}

// handleRotateKey is the DEV ONLY admin endpoint behind Options.DevAdmin.
func (i *Issuer) handleRotateKey(w http.ResponseWriter, _ *http.Request) {
	kid, err := i.RotateKey()
	if err != nil {
		writeOAuthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"kid": kid})
}

// cors lets browser-based MCP clients (e.g. the MCP Inspector) read the
// metadata and call DCR and the token endpoint from another origin. These
// endpoints use no cookies, so a wildcard origin is safe.
func cors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "WWW-Authenticate")
		h.ServeHTTP(w, r)
	})
}

// preflight answers CORS preflights for the API endpoints.
func preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" &&
			(strings.HasPrefix(r.URL.Path, IssuerPath+"/") || strings.HasPrefix(r.URL.Path, "/.well-known/")) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			w.Header().Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

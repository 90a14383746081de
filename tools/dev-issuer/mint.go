package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

// MintPath is the DEV ONLY endpoint, under --dev-admin, that signs an access
// token without the OAuth flow. Its reason to exist is the expired token: a
// conformance run must show that the server refuses a token signed by the
// real issuer whose exp has passed, and no flow can produce one without
// waiting out a lifetime. Minting needs the issuer's private key, which
// lives in this process, so an HTTP endpoint beside rotate-key is simpler and
// safer than a second process sharing the SQLite file.
//
//	curl -fsS -X POST http://127.0.0.1:9999/auth/v1/admin/mint-token \
//	     -d resource=http://127.0.0.1:8080/mcp -d ttl=-1h
//	→ {"access_token":"eyJ…","token_type":"bearer","expires_in":-3600}
//
// Form (or query) parameters, all optional:
//
//	resource   RFC 8707 resource bound into aud; must be on the --resource
//	           allow-list when there is one (default: its first entry)
//	email      the dev user the token is for (default: the first user)
//	client_id  the client_id claim (default: devissuer-test-client)
//	scope      the space-separated scope claim (e.g. "rides:read rides:handoff journeys:write")
//	ttl        a Go duration from now to exp; negative gives an expired token
//	           (then iat is an hour before exp). Default: the access token TTL.
const MintPath = devissuer.IssuerPath + "/admin/mint-token"

// mintResponse is a token response in RFC 6749 §5.1's shape, so a script
// reads access_token as it would from the token endpoint.
type mintResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
}

// withMint serves MintPath in front of the issuer's own handler.
func withMint(iss *devissuer.Issuer, resources []string, now func() time.Time, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", next)
	mux.HandleFunc("POST "+MintPath, func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			mintError(w, http.StatusBadRequest, "invalid_request", "cannot parse the form: "+err.Error())
			return
		}
		tc := devissuer.TokenClaims{Resource: r.Form.Get("resource"), ClientID: r.Form.Get("client_id"), Scope: r.Form.Get("scope")}
		if tc.Resource != "" && len(resources) > 0 && !slices.Contains(resources, tc.Resource) {
			mintError(w, http.StatusBadRequest, "invalid_target", "resource "+tc.Resource+" is not on the --resource allow-list")
			return
		}
		if email := r.Form.Get("email"); email != "" {
			i := slices.IndexFunc(iss.Users(), func(u devissuer.User) bool { return u.Email == email })
			if i < 0 {
				mintError(w, http.StatusBadRequest, "invalid_request", "no dev user "+email)
				return
			}
			tc.Subject, tc.Email = iss.Users()[i].ID, email
		}
		var ttl time.Duration
		if s := r.Form.Get("ttl"); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d == 0 {
				mintError(w, http.StatusBadRequest, "invalid_request", "ttl="+s+": want a non-zero Go duration such as 1h or -1h")
				return
			}
			ttl = d
			t := now()
			tc.IssuedAt, tc.ExpiresAt = t, t.Add(d)
			if d < 0 {
				tc.IssuedAt = tc.ExpiresAt.Add(-time.Hour)
			}
		}
		tok, err := iss.MintAccessToken(tc)
		if err != nil {
			mintError(w, http.StatusInternalServerError, "server_error", err.Error())
			return
		}
		if ttl == 0 {
			ttl = mintedTTL(tok)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(mintResponse{AccessToken: tok, TokenType: "bearer", ExpiresIn: int64(ttl / time.Second)})
	})
	return mux
}

// mintedTTL reads exp-iat back from a token minted with the default
// lifetime, so the response states the lifetime the issuer applied.
func mintedTTL(tok string) time.Duration {
	c, err := unverifiedClaims(tok)
	if err != nil {
		return 0
	}
	if c.Expiry == nil || c.IssuedAt == nil {
		return 0
	}
	return c.Expiry.Time().Sub(c.IssuedAt.Time())
}

// unverifiedClaims reads iat and exp of a token this process just signed.
func unverifiedClaims(tok string) (jwt.Claims, error) {
	var c jwt.Claims
	t, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return c, err
	}
	err = t.UnsafeClaimsWithoutVerification(&c)
	return c, err
}

func mintError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

package faultserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Issuer is a fake OAuth 2.1 authorization server with Supabase's refresh
// rules: every refresh rotates the refresh token, and presenting a rotated
// one revokes its whole family. Tokens are opaque random strings. It serves
// RFC 8414 metadata, RFC 7591 registration, an authorize endpoint that
// approves at once (PKCE S256 and the RFC 8707 resource are checked), and
// the token endpoint.
type Issuer struct {
	// URL is the issuer identifier; set it before serving metadata.
	URL string
	// AccessTTL is the expires_in of issued tokens. Zero means one hour.
	AccessTTL time.Duration
	// Now is the issuer's clock. Nil means time.Now.
	Now func() time.Time
	// Resource is the only RFC 8707 resource it issues tokens for; "" skips
	// the check.
	Resource string

	mu        sync.Mutex
	access    map[string]grant
	refresh   map[string]*refreshState
	revoked   map[int]bool
	nextFam   int
	refreshes int
	clients   map[string][]string // client_id → redirect URIs
	codes     map[string]codeGrant
}

type grant struct {
	family int
	exp    time.Time
}

type refreshState struct {
	family int
	used   bool
}

type codeGrant struct {
	clientID, redirect, challenge, resource string
}

// NewIssuer returns an empty issuer.
func NewIssuer() *Issuer {
	return &Issuer{
		access: map[string]grant{}, refresh: map[string]*refreshState{}, revoked: map[int]bool{},
		clients: map[string][]string{}, codes: map[string]codeGrant{},
	}
}

func (i *Issuer) now() time.Time {
	if i.Now != nil {
		return i.Now()
	}
	return time.Now()
}

func (i *Issuer) ttl() time.Duration {
	if i.AccessTTL > 0 {
		return i.AccessTTL
	}
	return time.Hour
}

// Grant starts a new token family, as a completed consent would.
func (i *Issuer) Grant() (access, refresh string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.nextFam++
	return i.mintLocked(i.nextFam)
}

func (i *Issuer) mintLocked(family int) (string, string) {
	a, r := "at-"+rand.Text(), "rt-"+rand.Text()
	i.access[a] = grant{family: family, exp: i.now().Add(i.ttl())}
	i.refresh[r] = &refreshState{family: family}
	return a, r
}

// Valid reports whether access is a live token of a live family.
func (i *Issuer) Valid(access string) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	g, ok := i.access[access]
	return ok && !i.revoked[g.family] && i.now().Before(g.exp)
}

// ExpireAccess makes every access token issued so far invalid, as if an
// hour had passed for the server but not for the client.
func (i *Issuer) ExpireAccess() {
	i.mu.Lock()
	defer i.mu.Unlock()
	for k := range i.access {
		delete(i.access, k)
	}
}

// RevokeFamilyOf revokes the family of a refresh token.
func (i *Issuer) RevokeFamilyOf(refresh string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if st, ok := i.refresh[refresh]; ok {
		i.revoked[st.family] = true
	}
}

// Refreshes counts refresh_token grants received, successful or not.
func (i *Issuer) Refreshes() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.refreshes
}

// Handler serves the issuer's endpoints under prefix (e.g. "/auth/v1"):
// prefix/oauth/register, prefix/oauth/authorize, prefix/oauth/token, and the
// metadata at prefix/.well-known/oauth-authorization-server.
func (i *Issuer) Handler(prefix string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix+"/.well-known/oauth-authorization-server", i.serveMetadata)
	mux.HandleFunc("POST "+prefix+"/oauth/register", i.serveRegister)
	mux.HandleFunc("GET "+prefix+"/oauth/authorize", i.serveAuthorize)
	mux.HandleFunc("POST "+prefix+"/oauth/token", i.serveToken)
	return mux
}

func (i *Issuer) serveMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer":                                i.URL,
		"authorization_endpoint":                i.URL + "/oauth/authorize",
		"token_endpoint":                        i.URL + "/oauth/token",
		"registration_endpoint":                 i.URL + "/oauth/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
	})
}

func (i *Issuer) serveRegister(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, 400, map[string]any{"error": "invalid_client_metadata", "error_description": "redirect_uris is required"})
		return
	}
	id := "client-" + rand.Text()
	i.mu.Lock()
	i.clients[id] = meta.RedirectURIs
	i.mu.Unlock()
	writeJSON(w, 201, map[string]any{
		"client_id": id, "client_id_issued_at": i.now().Unix(), "client_name": meta.ClientName,
		"redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	})
}

// serveAuthorize approves at once: the user "consents" without a page.
func (i *Issuer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	i.mu.Lock()
	uris, ok := i.clients[q.Get("client_id")]
	i.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if !ok || !slices.Contains(uris, redirect) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	ru, _ := url.Parse(redirect)
	back := ru.Query()
	back.Set("state", q.Get("state"))
	switch {
	case q.Get("response_type") != "code":
		back.Set("error", "unsupported_response_type")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		back.Set("error", "invalid_request")
		back.Set("error_description", "PKCE S256 is required")
	case i.Resource != "" && q.Get("resource") != i.Resource:
		back.Set("error", "invalid_target")
	default:
		code := "code-" + rand.Text()
		i.mu.Lock()
		i.codes[code] = codeGrant{clientID: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
		i.mu.Unlock()
		back.Set("code", code)
	}
	ru.RawQuery = back.Encode()
	http.Redirect(w, r, ru.String(), http.StatusFound)
}

func (i *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "refresh_token":
		i.refreshes++
		st, ok := i.refresh[r.PostForm.Get("refresh_token")]
		switch {
		case !ok:
			tokenError(w, "invalid_grant", "Invalid Refresh Token: Refresh Token Not Found")
			return
		case st.used:
			i.revoked[st.family] = true
			tokenError(w, "invalid_grant", "Invalid Refresh Token: Already Used")
			return
		case i.revoked[st.family]:
			tokenError(w, "invalid_grant", "Invalid Refresh Token: Revoked")
			return
		}
		st.used = true
		a, rt := i.mintLocked(st.family)
		i.writeTokens(w, a, rt)
	case "authorization_code":
		cg, ok := i.codes[r.PostForm.Get("code")]
		delete(i.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case !ok || cg.clientID != r.PostForm.Get("client_id") || cg.redirect != r.PostForm.Get("redirect_uri"):
			tokenError(w, "invalid_grant", "unknown code, client or redirect_uri")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != cg.challenge:
			tokenError(w, "invalid_grant", "PKCE verification failed")
			return
		case i.Resource != "" && r.PostForm.Get("resource") != cg.resource:
			tokenError(w, "invalid_target", "resource does not match the authorization request")
			return
		}
		i.nextFam++
		a, rt := i.mintLocked(i.nextFam)
		i.writeTokens(w, a, rt)
	default:
		tokenError(w, "unsupported_grant_type", r.PostForm.Get("grant_type"))
	}
}

func (i *Issuer) writeTokens(w http.ResponseWriter, access, refresh string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, 200, map[string]any{
		"access_token": access, "token_type": "bearer", "expires_in": int(i.ttl() / time.Second), "refresh_token": refresh,
	})
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, 400, map[string]any{"error": code, "error_description": desc})
}

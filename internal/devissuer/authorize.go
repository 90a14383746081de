package devissuer

import (
	"context"
	"crypto/subtle"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
)

// Paths of the browser pages. The seed's site signs users in at /auth and
// asks consent at /.lovable/oauth/consent; those are the canonical paths
// here, with aliases under /auth/v1 for a host that only proxies Supabase.
const (
	SignInPath        = "/auth"
	ConsentPath       = "/.lovable/oauth/consent"
	signInAlias       = IssuerPath + "/signin"
	consentAlias      = IssuerPath + "/oauth/consent"
	sessionCookie     = "devissuer_session"
	autoApproveParam  = "dev_auto_approve"
	AutoApproveHeader = "X-Dev-Auto-Approve"
)

// pendingAuth is an authorize request waiting for sign-in and consent,
// named by the authorization_id the pages carry (as Supabase's do). The
// query is replayed through fosite on approval, so nothing fosite validated
// is trusted from the form.
type pendingAuth struct {
	query   url.Values
	created time.Time
}

// browserSession is a dev user signed in at the sign-in page. Its ID is
// the Supabase session_id claim of every token issued under it.
type browserSession struct {
	user      User
	sessionID string
	created   time.Time
}

// handleAuthorize is the authorization endpoint: fosite validates the
// client, redirect_uri, response_type, scope and state; this adds what
// OAuth 2.1 and the specification require on top (PKCE S256 before the user is
// asked anything, and the RFC 8707 resource), then either auto-approves
// (dev only) or sends the browser to sign-in and consent.
func (i *Issuer) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed authorize request: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx := withRequestedRedirect(r.Context(), r.Form.Get("redirect_uri"))
	ar, err := i.provider.NewAuthorizeRequest(ctx, r)
	if err != nil {
		i.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	if err := i.checkAuthorizeExtras(ar); err != nil {
		i.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}

	if user, ok, err := i.autoApproveUser(r); err != nil {
		i.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	} else if ok {
		i.approve(ctx, w, ar, user, uuid.NewString())
		return
	}

	q := url.Values{}
	for k, v := range r.Form {
		if k != autoApproveParam {
			q[k] = v
		}
	}
	id := randomID(24)
	i.mu.Lock()
	i.gcLocked()
	i.pending[id] = &pendingAuth{query: q, created: i.opts.Now()}
	i.mu.Unlock()

	next := SignInPath
	if i.browserSessionOf(r) != nil {
		next = ConsentPath
	}
	http.Redirect(w, r, i.opts.BaseURL+next+"?authorization_id="+id, http.StatusSeeOther)
}

func (i *Issuer) checkAuthorizeExtras(ar fosite.AuthorizeRequester) error {
	form := ar.GetRequestForm()
	if form.Get("code_challenge") == "" {
		return fosite.ErrInvalidRequest.WithHint("PKCE is required: send code_challenge and code_challenge_method=S256.")
	}
	if m := form.Get("code_challenge_method"); m != "S256" {
		return fosite.ErrInvalidRequest.WithHintf("code_challenge_method must be S256, got %q; plain is not allowed.", m)
	}
	return i.checkResourceParam(form["resource"])
}

// checkResourceParam enforces RFC 8707 as the specification needs it: exactly one
// resource, an absolute URI without fragment, on the allow-list if any.
func (i *Issuer) checkResourceParam(values []string) error {
	switch len(values) {
	case 0:
		return fosite.ErrInvalidRequest.WithHint("The resource parameter (RFC 8707) is required, e.g. resource=https://tridenttaxis.online/mcp.")
	case 1:
	default:
		return errInvalidTarget("exactly one resource parameter is supported")
	}
	if err := checkResourceSyntax(values[0]); err != nil {
		return errInvalidTarget(err.Error())
	}
	if len(i.opts.Resources) > 0 && !slices.Contains(i.opts.Resources, values[0]) {
		return errInvalidTarget(fmt.Sprintf("resource %q is not served by this issuer (allowed: %s)", values[0], strings.Join(i.opts.Resources, ", ")))
	}
	return nil
}

func checkResourceSyntax(r string) error {
	u, err := url.Parse(r)
	if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("resource %q must be an absolute http(s) URI", r)
	}
	if u.Fragment != "" || strings.Contains(r, "#") {
		return fmt.Errorf("resource %q must not have a fragment", r)
	}
	return nil
}

// errInvalidTarget is RFC 8707 §2's error; fosite does not define it.
func errInvalidTarget(desc string) *fosite.RFC6749Error {
	return &fosite.RFC6749Error{
		ErrorField:       "invalid_target",
		DescriptionField: "The requested resource is invalid, missing, unknown, or malformed.",
		HintField:        desc,
		CodeField:        http.StatusBadRequest,
	}
}

// autoApproveUser decides whether this request skips the pages (DEV ONLY,
// see Options.AutoApproveUser and Options.DevAutoApprove).
func (i *Issuer) autoApproveUser(r *http.Request) (User, bool, error) {
	want := ""
	if i.opts.DevAutoApprove {
		want = r.Header.Get(AutoApproveHeader)
		if v := r.Form.Get(autoApproveParam); v != "" {
			want = v
		}
	}
	if want == "" {
		want = i.opts.AutoApproveUser
	}
	if want == "" {
		return User{}, false, nil
	}
	if want == "1" || want == "true" {
		return i.users[0], true, nil
	}
	for _, u := range i.users {
		if strings.EqualFold(u.Email, want) {
			return u, true, nil
		}
	}
	return User{}, false, fosite.ErrAccessDenied.WithHintf("Auto-approve user %q is not a configured dev user.", want)
}

// approve grants the requested scopes to user and redirects to the client
// with a code bound to the session's resource.
func (i *Issuer) approve(ctx context.Context, w http.ResponseWriter, ar fosite.AuthorizeRequester, user User, sessionID string) {
	sess := &Session{
		Subject:   user.ID,
		Email:     user.Email,
		Role:      user.Role,
		SessionID: sessionID,
		ClientID:  ar.GetClient().GetID(),
		Resource:  ar.GetRequestForm().Get("resource"),
		AuthTime:  i.opts.Now(),
		Nonce:     ar.GetRequestForm().Get("nonce"),
	}
	for _, s := range ar.GetRequestedScopes() {
		ar.GrantScope(s)
	}
	resp, err := i.provider.NewAuthorizeResponse(ctx, ar, sess)
	if err != nil {
		i.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	i.provider.WriteAuthorizeResponse(ctx, w, ar, resp)
}

func (i *Issuer) browserSessionOf(r *http.Request) *browserSession {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	s := i.browser[c.Value]
	if s == nil || i.opts.Now().Sub(s.created) > DefaultBrowserSessionTTL {
		return nil
	}
	return s
}

func (i *Issuer) pendingOf(id string) *pendingAuth {
	i.mu.Lock()
	defer i.mu.Unlock()
	p := i.pending[id]
	if p == nil || i.opts.Now().Sub(p.created) > DefaultPendingAuthTTL {
		return nil
	}
	return p
}

// gcLocked drops expired pending authorizations and browser sessions.
func (i *Issuer) gcLocked() {
	now := i.opts.Now()
	for id, p := range i.pending {
		if now.Sub(p.created) > DefaultPendingAuthTTL {
			delete(i.pending, id)
		}
	}
	for id, s := range i.browser {
		if now.Sub(s.created) > DefaultBrowserSessionTTL {
			delete(i.browser, id)
		}
	}
}

func (i *Issuer) findUser(email, password string) (User, bool) {
	for _, u := range i.users {
		emailOK := strings.EqualFold(u.Email, strings.TrimSpace(email))
		pwOK := subtle.ConstantTimeCompare([]byte(u.Password), []byte(password)) == 1
		if emailOK && pwOK {
			return u, true
		}
	}
	return User{}, false
}

// handleSignIn serves the sign-in page (GET) and checks the dev user's
// credentials (POST), then sends the browser on to consent.
func (i *Issuer) handleSignIn(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed form: "+err.Error(), http.StatusBadRequest)
		return
	}
	id := r.Form.Get("authorization_id")
	if i.pendingOf(id) == nil {
		renderPage(w, http.StatusBadRequest, pageData{Title: "Sign-in link expired",
			Error: "This sign-in request is unknown or expired. Start again from your app."})
		return
	}
	data := pageData{Title: "Sign in", AuthorizationID: id, Action: i.opts.BaseURL + SignInPath, Email: i.users[0].Email}
	if r.Method == http.MethodGet {
		renderPage(w, http.StatusOK, data)
		return
	}
	user, ok := i.findUser(r.PostForm.Get("email"), r.PostForm.Get("password"))
	if !ok {
		data.Email = r.PostForm.Get("email")
		data.Error = "Invalid email or password."
		renderPage(w, http.StatusUnauthorized, data)
		return
	}
	cookie := randomID(24)
	i.mu.Lock()
	i.browser[cookie] = &browserSession{user: user, sessionID: uuid.NewString(), created: i.opts.Now()}
	i.mu.Unlock()
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: cookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: strings.HasPrefix(i.opts.BaseURL, "https:"),
		MaxAge: int(DefaultBrowserSessionTTL / time.Second),
	})
	http.Redirect(w, r, i.opts.BaseURL+ConsentPath+"?authorization_id="+url.QueryEscape(id), http.StatusSeeOther)
}

// handleConsent shows what the client asks for (GET) and, on approval
// (POST decision=approve), replays the stored authorize request through
// fosite and redirects with a code; decision=deny redirects with
// error=access_denied.
func (i *Issuer) handleConsent(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed form: "+err.Error(), http.StatusBadRequest)
		return
	}
	id := r.Form.Get("authorization_id")
	p := i.pendingOf(id)
	if p == nil {
		renderPage(w, http.StatusBadRequest, pageData{Title: "Consent request expired",
			Error: "This consent request is unknown, expired or already answered. Start again from your app."})
		return
	}
	bs := i.browserSessionOf(r)
	if bs == nil {
		http.Redirect(w, r, i.opts.BaseURL+SignInPath+"?authorization_id="+url.QueryEscape(id), http.StatusSeeOther)
		return
	}
	if r.Method == http.MethodGet {
		clientName := p.query.Get("client_id")
		if c, err := i.store.lookup(r.Context(), clientName); err == nil && c.Name != "" {
			clientName = c.Name
		}
		renderPage(w, http.StatusOK, pageData{
			Title: "Authorize " + clientName, Consent: true, AuthorizationID: id,
			Action: i.opts.BaseURL + ConsentPath, Email: bs.user.Email, ClientName: clientName,
			RedirectURI: p.query.Get("redirect_uri"), Resource: p.query.Get("resource"),
			Scopes: strings.Fields(p.query.Get("scope")),
		})
		return
	}

	i.mu.Lock()
	delete(i.pending, id) // one answer per request
	i.mu.Unlock()
	ctx := withRequestedRedirect(r.Context(), p.query.Get("redirect_uri"))
	replay, err := http.NewRequestWithContext(ctx, http.MethodGet, i.issuer+"/oauth/authorize?"+p.query.Encode(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ar, err := i.provider.NewAuthorizeRequest(ctx, replay)
	if err == nil {
		err = i.checkAuthorizeExtras(ar)
	}
	if err != nil {
		i.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		i.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
		return
	}
	i.approve(ctx, w, ar, bs.user, bs.sessionID)
}

type pageData struct {
	Title           string
	Error           string
	Action          string
	AuthorizationID string
	Email           string
	Consent         bool
	ClientName      string
	RedirectURI     string
	Resource        string
	Scopes          []string
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} · Trident Taxis dev issuer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
label,input,button{display:block;width:100%;margin:.4rem 0}input{padding:.4rem}button{padding:.5rem}
.err{color:#b00020}.dev{background:#fff3cd;padding:.5rem;font-size:.9rem}</style></head>
<body><p class="dev">Development authorization server. Not for production use.</p>
<h1>{{.Title}}</h1>
{{with .Error}}<p class="err" role="alert">{{.}}</p>{{end}}
{{if .Consent}}
<p>Signed in as <strong>{{.Email}}</strong>.</p>
<p><strong>{{.ClientName}}</strong> wants access to <code>{{.Resource}}</code> on your behalf.</p>
{{with .Scopes}}<p>Scopes: {{range .}}<code>{{.}}</code> {{end}}</p>{{end}}
<p>You will be sent back to <code>{{.RedirectURI}}</code>.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="authorization_id" value="{{.AuthorizationID}}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
{{else if .Action}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="authorization_id" value="{{.AuthorizationID}}">
<label for="email">Email</label><input id="email" name="email" type="email" value="{{.Email}}" required>
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit">Sign in</button>
</form>
{{end}}
</body></html>
`))

func renderPage(w http.ResponseWriter, status int, data pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, data)
}

package devissuer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"os"
	"time"
)

// Default lifetimes. They mirror Supabase Auth's OAuth 2.1 server so that
// clients exercised against the dev issuer behave as they will in production.
const (
	DefaultAccessTokenTTL    = time.Hour
	DefaultAuthCodeTTL       = 60 * time.Second
	DefaultRefreshTokenTTL   = 30 * 24 * time.Hour
	DefaultPendingAuthTTL    = 10 * time.Minute
	DefaultBrowserSessionTTL = 12 * time.Hour
)

// DefaultUser is the dev user the issuer knows when Options.Users is empty.
// Its sub is a fixed UUID so that tests and fixtures can name it.
var DefaultUser = User{
	ID:       "6f1c7a2e-5b8d-4c3e-9a1f-2d7e8b9c0a11",
	Email:    "dev@tridenttaxis.test",
	Password: "dev-password",
}

// User is a dev account that can sign in at the issuer's sign-in page.
// Passwords are compared in plain text: this is a development issuer only.
type User struct {
	// ID becomes the token's sub. It should be a UUID, as Supabase's are.
	ID       string `json:"id"`
	Email    string `json:"email"`
	Password string `json:"password"`
	// Role is the token's role claim; empty means "authenticated".
	Role string `json:"role,omitempty"`
}

// Options configures an [Issuer]. Every zero value has a documented default,
// so Options{BaseURL: srv.URL} is a complete configuration.
type Options struct {
	// BaseURL is where the issuer's handler is reached, without a trailing
	// slash, e.g. "http://127.0.0.1:9999". The issuer URL is BaseURL+"/auth/v1"
	// (Supabase's layout). Required.
	BaseURL string

	// Users who can sign in. Empty means []User{DefaultUser}.
	Users []User

	// Resources is the allow-list of RFC 8707 resource indicators. Empty
	// means any absolute http(s) URI without a fragment is accepted.
	Resources []string

	// ServiceClients are confidential clients registered at start for the
	// client_credentials grant (see [ServiceClient]). Zero: none; DCR
	// registers public clients only.
	ServiceClients []ServiceClient

	// DBPath, when set, keeps registered clients, signing keys and the HMAC
	// secret for codes and refresh tokens in a SQLite file, so a restarted
	// issuer still knows its clients and its tokens still verify. Empty means
	// everything lives in memory. Authorization codes, refresh tokens and
	// browser sessions are always in memory: a restart ends them.
	DBPath string

	// AutoApproveUser, when set to a dev user's email, makes every authorize
	// request sign that user in and approve consent at once, redirecting
	// straight to redirect_uri?code=..&state=... DEV ONLY: it turns the
	// issuer into one that hands a code to anyone who asks. Meant for
	// conformance runs whose stock OAuth client cannot fill in forms.
	AutoApproveUser string

	// DevAutoApprove honours a per-request auto-approval: the query
	// parameter dev_auto_approve=<email> on /oauth/authorize, or the header
	// X-Dev-Auto-Approve: <email> ("1" or "true" picks the first user).
	// DEV ONLY, for automated tests that must not drive a browser. When false
	// the parameter and header are ignored.
	DevAutoApprove bool

	// DevAdmin enables POST /auth/v1/admin/rotate-key. DEV ONLY: it has no
	// authentication of its own.
	DevAdmin bool

	// DevClientMetadataLoopback accepts client ID metadata documents served
	// over plain http from a loopback host (http://127.0.0.1:<port>/...),
	// and fetched from loopback addresses at all, so that tests and
	// conformance runs can serve the document themselves. DEV ONLY: it lets
	// a client_id make the issuer fetch from the machine it runs on. When
	// false, a document must be https and on a public address.
	DevClientMetadataLoopback bool

	// AccessTokenTTL is the access token lifetime; zero means one hour.
	AccessTokenTTL time.Duration
	// AuthCodeTTL is the authorization code lifetime; zero means 60 s.
	AuthCodeTTL time.Duration
	// RefreshTokenTTL is the refresh token lifetime; zero means 30 days.
	RefreshTokenTTL time.Duration
	// KeyRetention is how long a rotated-out signing key stays in the JWKS;
	// zero means AccessTokenTTL plus five minutes, so every token it signed
	// expires before the key disappears.
	KeyRetention time.Duration
	// RefreshReuseInterval mirrors Supabase's GOTRUE_SECURITY_REFRESH_TOKEN_
	// REUSE_INTERVAL: a rotated refresh token presented again within this
	// interval of its rotation is accepted (and rotated again) instead of
	// revoking the family. Zero (the default) means every reuse revokes.
	RefreshReuseInterval time.Duration

	// Now is the clock for everything the issuer times itself (token iat and
	// exp it signs, key retention, DCR timestamps, pending authorizations).
	// Nil means time.Now. Note that fosite times codes and refresh tokens
	// with the wall clock whatever this says.
	Now func() time.Time

	// Logf receives one line per notable event (key rotation, family
	// revocation). Nil discards.
	Logf func(format string, args ...any)
}

func (o *Options) withDefaults() (Options, error) {
	out := *o
	if out.BaseURL == "" {
		return out, errors.New("devissuer: Options.BaseURL is required (e.g. http://127.0.0.1:9999)")
	}
	for len(out.BaseURL) > 0 && out.BaseURL[len(out.BaseURL)-1] == '/' {
		out.BaseURL = out.BaseURL[:len(out.BaseURL)-1]
	}
	if len(out.Users) == 0 {
		out.Users = []User{DefaultUser}
	}
	seen := map[string]bool{}
	for i, u := range out.Users {
		if u.ID == "" || u.Email == "" || u.Password == "" {
			return out, fmt.Errorf("devissuer: user %d (%q) needs id, email and password", i, u.Email)
		}
		if _, err := mail.ParseAddress(u.Email); err != nil {
			return out, fmt.Errorf("devissuer: user %d email %q: %w", i, u.Email, err)
		}
		if seen[u.Email] {
			return out, fmt.Errorf("devissuer: user email %q listed twice", u.Email)
		}
		seen[u.Email] = true
		if u.Role == "" {
			out.Users[i].Role = "authenticated"
		}
	}
	if out.AutoApproveUser != "" && !seen[out.AutoApproveUser] {
		return out, fmt.Errorf("devissuer: AutoApproveUser %q is not one of the configured users", out.AutoApproveUser)
	}
	for _, r := range out.Resources {
		if err := checkResourceSyntax(r); err != nil {
			return out, fmt.Errorf("devissuer: resource allow-list: %w", err)
		}
	}
	if out.AccessTokenTTL <= 0 {
		out.AccessTokenTTL = DefaultAccessTokenTTL
	}
	if out.AuthCodeTTL <= 0 {
		out.AuthCodeTTL = DefaultAuthCodeTTL
	}
	if out.RefreshTokenTTL <= 0 {
		out.RefreshTokenTTL = DefaultRefreshTokenTTL
	}
	if out.KeyRetention <= 0 {
		out.KeyRetention = out.AccessTokenTTL + 5*time.Minute
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	if out.Logf == nil {
		out.Logf = func(string, ...any) {}
	}
	return out, nil
}

// LoadUsers reads a JSON array of [User] (id, email, password, optional
// role), the format of the dev-issuer's --users file.
func LoadUsers(r io.Reader) ([]User, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var users []User
	if err := dec.Decode(&users); err != nil {
		return nil, fmt.Errorf("devissuer: users file: want a JSON array of {id,email,password,role?}: %w", err)
	}
	return users, nil
}

// LoadUsersFile is [LoadUsers] on a file path.
func LoadUsersFile(path string) ([]User, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("devissuer: %w", err)
	}
	defer f.Close()
	return LoadUsers(f)
}

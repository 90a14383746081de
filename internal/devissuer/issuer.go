package devissuer

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
)

// IssuerPath is where Supabase Auth lives under a project URL; the issuer
// URL is BaseURL + IssuerPath.
const IssuerPath = "/auth/v1"

// Issuer is a running dev authorization server. Create it with [New], serve
// [Issuer.Handler], and [Issuer.Close] it when done. It is safe for
// concurrent use.
type Issuer struct {
	opts     Options
	issuer   string
	keys     *keyring
	store    *store
	persist  persister
	config   *fosite.Config
	provider fosite.OAuth2Provider
	users    []User
	handler  http.Handler

	mu      sync.Mutex
	pending map[string]*pendingAuth    // authorization_id -> authorize request
	browser map[string]*browserSession // cookie value -> signed-in user
}

// New builds an issuer. With Options.DBPath it opens (or creates) the
// SQLite file and loads the clients and keys already there.
func New(opts Options) (*Issuer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	iss := &Issuer{
		opts:    o,
		issuer:  o.BaseURL + IssuerPath,
		keys:    &keyring{retention: o.KeyRetention, now: o.Now},
		users:   o.Users,
		pending: map[string]*pendingAuth{},
		browser: map[string]*browserSession{},
	}

	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("devissuer: %w", err)
	}
	if o.DBPath != "" {
		db, err := openSQLite(ctx, o.DBPath)
		if err != nil {
			return nil, err
		}
		iss.persist = db
		if secret, err = db.secret(ctx, secret); err != nil {
			db.close()
			return nil, err
		}
	}
	iss.store = newStore(o, iss.persist)
	if err := iss.loadPersisted(ctx); err != nil {
		iss.Close()
		return nil, err
	}

	iss.config = &fosite.Config{
		AccessTokenLifespan:            o.AccessTokenTTL,
		AuthorizeCodeLifespan:          o.AuthCodeTTL,
		RefreshTokenLifespan:           o.RefreshTokenTTL,
		GlobalSecret:                   secret,
		EnforcePKCE:                    true,
		EnforcePKCEForPublicClients:    true,
		EnablePKCEPlainChallengeMethod: false,
		// Supabase issues a refresh token with every code exchange, whatever
		// the scopes; fosite by default wants "offline"/"offline_access".
		RefreshTokenScopes:         []string{},
		TokenURL:                   iss.issuer + "/oauth/token",
		AccessTokenIssuer:          iss.issuer,
		SendDebugMessagesToClients: true, // dev issuer: say why a request failed
		HashCost:                   8,    // bcrypt for confidential client secrets; dev speed
	}
	strategy := &tokenStrategy{HMACSHAStrategy: compose.NewOAuth2HMACStrategy(iss.config), iss: iss}
	iss.provider = compose.Compose(iss.config, iss.store, strategy,
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2ClientCredentialsGrantFactory,
		compose.OAuth2PKCEFactory, // after the code handler: it stores the challenge by code
		compose.OAuth2TokenRevocationFactory,
	)
	if err := iss.registerServiceClients(ctx); err != nil {
		iss.Close()
		return nil, err
	}
	iss.handler = iss.routes()
	return iss, nil
}

func (i *Issuer) loadPersisted(ctx context.Context) error {
	if i.persist != nil {
		clients, err := i.persist.loadClients(ctx)
		if err != nil {
			return err
		}
		for _, c := range clients {
			i.store.clients[c.ID] = c
		}
		keys, err := i.persist.loadKeys(ctx)
		if err != nil {
			return err
		}
		i.keys.keys = keys
		i.keys.published() // drop keys whose retention passed while we were down
	}
	if cur := i.keys.current(); cur != nil && cur.RetiredAt.IsZero() {
		return nil
	}
	_, err := i.rotate(ctx)
	return err
}

// IssuerURL is the issuer identifier, BaseURL + "/auth/v1": the exact iss
// of every token and the base of every endpoint.
func (i *Issuer) IssuerURL() string { return i.issuer }

// Handler serves every endpoint; mount it at "/" of Options.BaseURL.
func (i *Issuer) Handler() http.Handler { return i.handler }

// Close releases the SQLite file, if any. The handler must no longer be
// serving.
func (i *Issuer) Close() error {
	if i.persist != nil {
		return i.persist.close()
	}
	return nil
}

// RotateKey makes a new ES256 signing key current and returns its kid. The
// previous key stays in the JWKS for Options.KeyRetention, so tokens it
// signed keep verifying; new tokens carry the new kid.
func (i *Issuer) RotateKey() (string, error) {
	return i.rotate(context.Background())
}

func (i *Issuer) rotate(ctx context.Context) (string, error) {
	key, err := newSigningKey(i.opts.Now())
	if err != nil {
		return "", err
	}
	if i.persist != nil {
		if err := i.persist.saveKey(ctx, key); err != nil {
			return "", err
		}
	}
	retired := i.keys.add(key)
	if retired != nil && i.persist != nil {
		if err := i.persist.saveKey(ctx, retired); err != nil {
			return "", err
		}
	}
	if retired != nil {
		i.opts.Logf("devissuer: rotated signing key %s -> %s (old key published until %s)",
			retired.KID, key.KID, retired.RetiredAt.Add(i.opts.KeyRetention).Format(time.RFC3339))
	}
	return key.KID, nil
}

// CurrentKeyID is the kid new tokens are signed with.
func (i *Issuer) CurrentKeyID() string { return i.keys.current().KID }

// JWKS returns the published public keys, as served at
// /auth/v1/.well-known/jwks.json.
func (i *Issuer) JWKS() jose.JSONWebKeySet { return i.keys.jwks() }

// Users returns the configured dev users (DefaultUser when none were given).
func (i *Issuer) Users() []User { return append([]User(nil), i.users...) }

// Client returns a registered client by id.
func (i *Issuer) Client(id string) (Client, bool) {
	c, ok := i.store.client(id)
	if !ok {
		return Client{}, false
	}
	return *c, true
}

// TokenClaims describes a token for [Issuer.MintAccessToken]. Zero fields
// take the defaults a real flow would produce; the override fields exist to
// build broken tokens for resource-server tests.
type TokenClaims struct {
	Subject   string // default: the first user's ID
	Email     string // default: the first user's email when Subject is defaulted too
	Role      string // default: "authenticated"
	ClientID  string // default: "devissuer-test-client"; see Extra to drop it
	SessionID string // default: a fresh UUID
	// Resource is bound into aud; default: the first Options.Resources
	// entry, else none (aud is then just ["authenticated"]).
	Resource string
	// Audience, when non-nil, replaces ["authenticated", Resource].
	Audience []string
	// Issuer overrides iss (default IssuerURL()).
	Issuer string
	// IssuedAt and ExpiresAt default to now and now+AccessTokenTTL; set
	// ExpiresAt in the past for an expired token.
	IssuedAt  time.Time
	ExpiresAt time.Time
	// Scope is the space-separated scope claim (e.g. "rides:read
	// rides:handoff"); default: none.
	Scope string
	// Extra claims are merged last; a nil value deletes the claim (e.g.
	// {"client_id": nil} mimics a copied signInWithPassword session JWT).
	Extra map[string]any
	// KeyID overrides the header kid (e.g. one the JWKS does not have).
	KeyID string
	// SigningKey signs with a key the issuer does not publish, for
	// bad-signature tests. The header kid stays the current one unless
	// KeyID is set.
	SigningKey *ecdsa.PrivateKey
}

// MintAccessToken signs an access token without running the OAuth flow,
// with the same claims and key a real flow would use unless overridden.
func (i *Issuer) MintAccessToken(tc TokenClaims) (string, error) {
	now := i.opts.Now()
	u := i.users[0]
	if tc.Subject == "" {
		tc.Subject = u.ID
		if tc.Email == "" {
			tc.Email = u.Email
		}
	}
	if tc.Role == "" {
		tc.Role = "authenticated"
	}
	if tc.ClientID == "" {
		tc.ClientID = "devissuer-test-client"
	}
	if tc.SessionID == "" {
		tc.SessionID = uuid.NewString()
	}
	if tc.Resource == "" && len(i.opts.Resources) > 0 {
		tc.Resource = i.opts.Resources[0]
	}
	if tc.IssuedAt.IsZero() {
		tc.IssuedAt = now
	}
	if tc.ExpiresAt.IsZero() {
		tc.ExpiresAt = tc.IssuedAt.Add(i.opts.AccessTokenTTL)
	}
	claims := i.claims(&Session{
		Subject: tc.Subject, Email: tc.Email, Role: tc.Role, SessionID: tc.SessionID,
		ClientID: tc.ClientID, Resource: tc.Resource, AuthTime: tc.IssuedAt,
	}, tc.IssuedAt, tc.ExpiresAt)
	if tc.Audience != nil {
		claims["aud"] = tc.Audience
	}
	if tc.Scope != "" {
		claims["scope"] = tc.Scope
	}
	if tc.Issuer != "" {
		claims["iss"] = tc.Issuer
	}
	for k, v := range tc.Extra {
		if v == nil {
			delete(claims, k)
		} else {
			claims[k] = v
		}
	}
	return i.sign(claims, &tc)
}

// flowClaims are the claims of an access token issued by the token
// endpoint: iat now, exp now+AccessTokenTTL by the issuer's clock.
func (i *Issuer) flowClaims(sess *Session, clientID string, scopes []string) map[string]any {
	now := i.opts.Now()
	if sess.ClientID == "" {
		sess.ClientID = clientID
	}
	c := i.claims(sess, now, now.Add(i.opts.AccessTokenTTL))
	if len(scopes) > 0 {
		c["scope"] = strings.Join(scopes, " ")
	}
	return c
}

// claims builds Supabase's access-token claim set (see Supabase's "JWT
// claims reference"), plus client_id as its OAuth server adds.
func (i *Issuer) claims(s *Session, iat, exp time.Time) map[string]any {
	aud := []string{"authenticated"}
	if s.Resource != "" {
		aud = append(aud, s.Resource)
	}
	role := s.Role
	if role == "" {
		role = "authenticated"
	}
	authTime := s.AuthTime
	if authTime.IsZero() {
		authTime = iat
	}
	return map[string]any{
		"iss":          i.issuer,
		"sub":          s.Subject,
		"aud":          aud,
		"exp":          exp.Unix(),
		"iat":          iat.Unix(),
		"email":        s.Email,
		"phone":        "",
		"app_metadata": map[string]any{"provider": "email", "providers": []string{"email"}},
		"user_metadata": map[string]any{
			"email": s.Email, "email_verified": true, "sub": s.Subject,
		},
		"role":         role,
		"aal":          "aal1",
		"amr":          []map[string]any{{"method": "password", "timestamp": authTime.Unix()}},
		"session_id":   s.SessionID,
		"is_anonymous": false,
		"client_id":    s.ClientID,
	}
}

func (i *Issuer) sign(claims map[string]any, tc *TokenClaims) (string, error) {
	key := i.keys.current()
	if key == nil {
		return "", errors.New("devissuer: no signing key")
	}
	priv, kid := key.Private, key.KID
	if tc != nil && tc.SigningKey != nil {
		priv = tc.SigningKey
	}
	if tc != nil && tc.KeyID != "" {
		kid = tc.KeyID
	}
	return signJWT(priv, kid, claims)
}

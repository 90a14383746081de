package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// LoginConfig configures [Login].
type LoginConfig struct {
	// Endpoint is the MCP endpoint URL: the resource the token is bound to.
	Endpoint string
	// ResourceMetadataURL is the 401's resource_metadata, if known.
	ResourceMetadataURL string
	// HTTPClient is used for discovery, registration and the token
	// endpoint. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// ClientID of a pre-registered public client. Empty means dynamic client
	// registration (RFC 7591) with ClientName.
	ClientID   string
	ClientName string
	// Scopes to request. Nil requests none, as Supabase issues no scopes.
	Scopes []string
	// OpenURL shows the authorization URL to the user, typically by opening
	// a browser. Required.
	OpenURL func(authURL string) error
	// RedirectPort is the loopback port of the redirect URI. Zero picks a
	// free one (RFC 8252 §7.3 allows any port on loopback).
	RedirectPort int
	// Timeout bounds the wait for the user. Zero means 5 minutes.
	Timeout time.Duration
	// Store receives the tokens. Required.
	Store Store
}

// Login runs the authorization-code flow with PKCE S256 and the RFC 8707
// resource parameter through a loopback redirect, then saves the tokens to
// cfg.Store and returns them.
func Login(ctx context.Context, cfg LoginConfig) (*Record, error) {
	if cfg.OpenURL == nil || cfg.Store == nil {
		return nil, errors.New("oauth: Login needs OpenURL and Store")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	d, err := Discover(ctx, hc, cfg.Endpoint, cfg.ResourceMetadataURL)
	if err != nil {
		return nil, err
	}
	resource := d.Resource.Resource
	if resource == "" {
		resource = cfg.Endpoint
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.RedirectPort)))
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback listener: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"

	clientID := cfg.ClientID
	if clientID == "" {
		if d.Server.RegistrationEndpoint == "" {
			return nil, fmt.Errorf("oauth: issuer %s offers no dynamic client registration; pass a client id", d.Server.Issuer)
		}
		name := cfg.ClientName
		if name == "" {
			name = "trident"
		}
		reg, err := oauthex.RegisterClient(ctx, d.Server.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
			ClientName:              name,
			RedirectURIs:            []string{redirect},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}, hc)
		if err != nil {
			return nil, fmt.Errorf("oauth: registering the client: %w", err)
		}
		clientID = reg.ClientID
	}

	oc := &oauth2.Config{
		ClientID:    clientID,
		Endpoint:    oauth2.Endpoint{AuthURL: d.Server.AuthorizationEndpoint, TokenURL: d.Server.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: redirect,
		Scopes:      cfg.Scopes,
	}
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	authURL := oc.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))

	type answer struct {
		code string
		err  error
	}
	answers := make(chan answer, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		var a answer
		switch {
		case q.Get("state") != state:
			a.err = errors.New("oauth: the redirect's state does not match (possible CSRF)")
		case q.Get("error") != "":
			a.err = fmt.Errorf("oauth: authorization refused: %s %s", q.Get("error"), q.Get("error_description"))
		case q.Get("code") == "":
			a.err = errors.New("oauth: the redirect carries no code")
		default:
			a.code = q.Get("code")
		}
		if a.err != nil {
			http.Error(w, a.err.Error(), http.StatusBadRequest)
		} else {
			fmt.Fprintln(w, "Signed in. You can close this window and return to the terminal.")
		}
		select {
		case answers <- a:
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	if err := cfg.OpenURL(authURL); err != nil {
		return nil, fmt.Errorf("oauth: opening the authorization URL: %w", err)
	}
	var a answer
	select {
	case a = <-answers:
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the authorization redirect: %w", ctx.Err())
	}
	if a.err != nil {
		return nil, a.err
	}
	tok, err := oc.Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc), a.code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return nil, fmt.Errorf("oauth: exchanging the code: %w", err)
	}
	rec := &Record{
		Issuer: d.Server.Issuer, TokenEndpoint: d.Server.TokenEndpoint, ClientID: clientID, Resource: resource,
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry,
	}
	if err := cfg.Store.Save(ctx, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

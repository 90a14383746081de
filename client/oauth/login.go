package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Token endpoint authentication methods (RFC 7591 §2, RFC 8414 §2).
const (
	AuthMethodNone  = "none"                // public client: client_id only
	AuthMethodBasic = "client_secret_basic" // HTTP Basic with id and secret
	AuthMethodPost  = "client_secret_post"  // id and secret in the form body
)

// LoginConfig configures [Login] and [NewAuthorizer].
type LoginConfig struct {
	// Endpoint is the MCP endpoint URL: the resource the token is bound to.
	Endpoint string
	// ResourceMetadataURL is the 401's resource_metadata, if known.
	ResourceMetadataURL string
	// HTTPClient is used for discovery, registration and the token
	// endpoint. Nil means http.DefaultClient.
	HTTPClient *http.Client

	// ClientID of a pre-registered client. Empty means the client
	// registers itself: with ClientMetadataURL when the issuer supports
	// client ID metadata documents, else by dynamic client registration
	// (RFC 7591) as ClientName.
	ClientID string
	// ClientSecret of a pre-registered confidential client; empty for a
	// public one.
	ClientSecret string
	// TokenAuthMethod is how a pre-registered client authenticates at the
	// token endpoint (AuthMethodNone, AuthMethodBasic, AuthMethodPost).
	// Empty picks one: none without a secret, else the issuer's advertised
	// choice, client_secret_basic first (RFC 8414's default).
	TokenAuthMethod string
	// ClientMetadataURL is the https URL of this client's metadata
	// document, used as its client_id where the issuer advertises
	// client_id_metadata_document_supported (MCP 2025-11-25). Empty means
	// never.
	ClientMetadataURL string
	ClientName        string

	// Scopes to request. Nil follows the MCP scope selection strategy: the
	// challenge's scope, else the resource metadata's scopes_supported,
	// else none (the specification's Supabase issuer issues no scopes); plus
	// offline_access when the issuer lists it, since the client keeps
	// refresh tokens.
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
	return authorize(ctx, &cfg, cfg.ResourceMetadataURL, nil, nil)
}

// authorize is one run of the flow. challenged are the scopes a server's
// challenge named and granted those of the token it replaces: the request
// asks for their union, so that a step-up does not lose what was granted
// (MCP 2025-11-25 "scope challenge handling").
func authorize(ctx context.Context, cfg *LoginConfig, metadataURL string, challenged, granted []string) (*Record, error) {
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

	d, err := Discover(ctx, hc, cfg.Endpoint, metadataURL)
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

	reg, err := register(ctx, cfg, hc, d.Server, redirect)
	if err != nil {
		return nil, err
	}
	scopes := selectScopes(cfg.Scopes, challenged, granted, d)

	oc := &oauth2.Config{
		ClientID:     reg.id,
		ClientSecret: reg.secret,
		Endpoint:     oauth2.Endpoint{AuthURL: d.Server.AuthorizationEndpoint, TokenURL: d.Server.TokenEndpoint, AuthStyle: authStyle(reg.method)},
		RedirectURL:  redirect,
		Scopes:       scopes,
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
			a.code, a.err = q.Get("code"), checkIss(q.Get("iss"), d.Server)
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
		return nil, fmt.Errorf("oauth: exchanging the code at %s: %w", d.Server.TokenEndpoint, err)
	}
	if s, _ := tok.Extra("scope").(string); s != "" {
		scopes = strings.Fields(s) // RFC 6749 §5.1: the issuer says what it granted
	}
	rec := &Record{
		Issuer: d.Server.Issuer, TokenEndpoint: d.Server.TokenEndpoint,
		ClientID: reg.id, ClientSecret: reg.secret, TokenAuthMethod: reg.method, Resource: resource,
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry, Scopes: scopes,
	}
	if err := cfg.Store.Save(ctx, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// registration is the client as the token endpoint knows it.
type registration struct{ id, secret, method string }

// register picks the client identity, in the MCP 2025-11-25 order: a
// client ID metadata document where the issuer supports one, the
// pre-registered client, then dynamic client registration.
func register(ctx context.Context, cfg *LoginConfig, hc *http.Client, asm *oauthex.AuthServerMeta, redirect string) (registration, error) {
	switch {
	case cfg.ClientID == "" && cfg.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		return registration{id: cfg.ClientMetadataURL, method: AuthMethodNone}, nil
	case cfg.ClientID != "":
		m := cfg.TokenAuthMethod
		if m == "" {
			m = AuthMethodNone
			if cfg.ClientSecret != "" {
				m = secretMethod(asm.TokenEndpointAuthMethodsSupported)
			}
		}
		return registration{id: cfg.ClientID, secret: cfg.ClientSecret, method: m}, nil
	case asm.RegistrationEndpoint == "":
		return registration{}, fmt.Errorf("oauth: issuer %s offers no dynamic client registration; pass a client id", asm.Issuer)
	}
	name := cfg.ClientName
	if name == "" {
		name = "trident"
	}
	// A public client asks for "none" unless the issuer does not take it.
	want := AuthMethodNone
	if ms := asm.TokenEndpointAuthMethodsSupported; len(ms) > 0 && !slices.Contains(ms, AuthMethodNone) {
		want = secretMethod(ms)
	}
	reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
		ClientName:              name,
		RedirectURIs:            []string{redirect},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: want,
		ApplicationType:         "native",
	}, hc)
	if err != nil {
		return registration{}, fmt.Errorf("oauth: registering the client at %s: %w", asm.RegistrationEndpoint, err)
	}
	// The issuer's reply is what counts (RFC 7591 §3.2.1); a secret
	// without a method means the RFC's default, client_secret_basic.
	m := reg.TokenEndpointAuthMethod
	if m == "" {
		m = AuthMethodNone
		if reg.ClientSecret != "" {
			m = AuthMethodBasic
		}
	}
	return registration{id: reg.ClientID, secret: reg.ClientSecret, method: m}, nil
}

// secretMethod picks how to send a client secret: the first of
// client_secret_basic and client_secret_post that the issuer lists, and
// client_secret_basic when it lists neither (RFC 8414 §2's default).
func secretMethod(supported []string) string {
	for _, m := range []string{AuthMethodBasic, AuthMethodPost} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	return AuthMethodBasic
}

// authStyle maps a token endpoint auth method to x/oauth2's. "none" sends
// client_id in the body and, with no secret, nothing else.
func authStyle(method string) oauth2.AuthStyle {
	if method == AuthMethodBasic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// selectScopes applies the MCP 2025-11-25 scope selection strategy; see
// [LoginConfig.Scopes].
func selectScopes(configured, challenged, granted []string, d *Discovery) []string {
	var want []string
	switch {
	case len(configured) > 0:
		want = configured
	case len(challenged) > 0:
		want = challenged
	case d.Resource != nil && len(d.Resource.ScopesSupported) > 0:
		want = d.Resource.ScopesSupported
	}
	out := unionScopes(granted, want)
	if slices.Contains(d.Server.ScopesSupported, "offline_access") && !slices.Contains(out, "offline_access") {
		out = append(out, "offline_access")
	}
	return out
}

// unionScopes keeps a's order, then adds b's new scopes.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// checkIss applies RFC 9207: an issuer that promises the iss parameter
// must send its own issuer, and any iss sent must be the issuer's. The
// comparison is "simple string comparison" (RFC 9207 §2.4, RFC 3986
// §6.2.1): no case folding, no trailing slash trimmed, since an attacker's
// issuer may differ from the real one by exactly such a normalisation.
func checkIss(iss string, asm *oauthex.AuthServerMeta) error {
	switch {
	case iss == "" && asm.AuthorizationResponseIssParameterSupported:
		return fmt.Errorf("oauth: the redirect carries no iss although %s promises one (RFC 9207)", asm.Issuer)
	case iss != "" && iss != asm.Issuer:
		return fmt.Errorf("oauth: the redirect's iss %q is not the issuer %q (RFC 9207 mix-up defence)", iss, asm.Issuer)
	}
	return nil
}

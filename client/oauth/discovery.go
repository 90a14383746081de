package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Discovery is what a client learns before it can authorize: the protected
// resource's metadata (RFC 9728) and its authorization server's (RFC 8414).
type Discovery struct {
	Resource *oauthex.ProtectedResourceMetadata
	Server   *oauthex.AuthServerMeta
	// Legacy is set when the resource publishes no RFC 9728 metadata and
	// the authorization server was derived from the endpoint's origin, as
	// the MCP 2025-03-26 revision did: Resource is then synthesised, and
	// Server may be too (the default /authorize, /token and /register).
	Legacy bool
}

// ErrResourceMismatch is wrapped when a resource's metadata names another
// resource (RFC 9728 §3.3): authorizing would hand a token for one server to
// another, so discovery stops rather than trying other locations.
var ErrResourceMismatch = errors.New("oauth: protected resource metadata names another resource")

// Discover finds the authorization server for the MCP endpoint resource.
//
// Resource metadata: metadataURL is the resource_metadata of the 401's
// WWW-Authenticate (client.TransportError.ResourceMetadata); then the
// well-known locations of RFC 9728 are tried, path-inserted before the
// root, as the MCP authorization spec orders them. Metadata that is found
// but names another resource fails with [ErrResourceMismatch]. When no
// location has metadata, discovery falls back to the MCP 2025-03-26 rules
// ([Discovery.Legacy]).
//
// Issuer metadata is looked up the RFC 8414 and OpenID ways (path insertion
// and, for OpenID, path appending) and, failing those, at
// <issuer>/.well-known/oauth-authorization-server, where the specification says a
// Supabase issuer serves it. The server must support PKCE S256.
func Discover(ctx context.Context, hc *http.Client, resource, metadataURL string) (*Discovery, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	prm, origin, misses, err := resourceMetadata(ctx, hc, resource, metadataURL)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		return discoverLegacy(ctx, hc, resource, origin, misses)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("oauth: resource metadata for %s names no authorization server", resource)
	}
	issuer := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, hc)
	if err != nil {
		return nil, fmt.Errorf("oauth: issuer metadata for %s: %w", issuer, err)
	}
	if asm == nil {
		asm, err = oauthex.GetAuthServerMeta(ctx, strings.TrimSuffix(issuer, "/")+"/.well-known/oauth-authorization-server", issuer, hc)
		if err != nil {
			return nil, fmt.Errorf("oauth: issuer metadata for %s: %w", issuer, err)
		}
	}
	if asm == nil {
		return nil, fmt.Errorf("oauth: issuer %s publishes no RFC 8414 metadata", issuer)
	}
	if !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("oauth: issuer %s does not support PKCE S256", issuer)
	}
	return &Discovery{Resource: prm, Server: asm}, nil
}

// resourceMetadata fetches the protected resource's metadata (RFC 9728)
// for the endpoint resource, from metadataURL (a challenge's
// resource_metadata) and then the well-known locations, path-inserted
// before the root. It returns nil metadata, with the locations tried, when
// none publishes any; metadata naming another resource fails with
// [ErrResourceMismatch].
func resourceMetadata(ctx context.Context, hc *http.Client, resource, metadataURL string) (prm *oauthex.ProtectedResourceMetadata, origin string, misses []string, err error) {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return nil, "", nil, fmt.Errorf("oauth: resource %q is not an absolute URL", resource)
	}
	origin = u.Scheme + "://" + u.Host

	type candidate struct {
		url string
		// resources the metadata may name: the endpoint, and for the root
		// location also the origin (RFC 9728 §3.3 builds the root URL from
		// the origin, so a root document may name it).
		resources []string
	}
	var candidates []candidate
	if metadataURL != "" {
		candidates = append(candidates, candidate{metadataURL, []string{resource}})
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		candidates = append(candidates, candidate{origin + "/.well-known/oauth-protected-resource/" + p, []string{resource}})
	}
	candidates = append(candidates, candidate{origin + "/.well-known/oauth-protected-resource", []string{resource, origin}})

	for _, c := range candidates {
		m, status, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, hc, c.url)
		if err != nil {
			if status >= 400 && status < 500 {
				misses = append(misses, fmt.Sprintf("%s: HTTP %d", c.url, status))
				continue // not published here; try the next location
			}
			return nil, "", nil, fmt.Errorf("oauth: resource metadata at %s: %w", c.url, err)
		}
		if !slices.Contains(c.resources, m.Resource) {
			return nil, "", nil, fmt.Errorf("%w: %s names %q, want %q", ErrResourceMismatch, c.url, m.Resource, resource)
		}
		// Validation of the authorization server URLs (schemes, https or
		// loopback) is the go-sdk's; the document is fetched once more,
		// which is cheap next to a wrong token.
		if m, err = oauthex.GetProtectedResourceMetadata(ctx, c.url, m.Resource, hc); err != nil {
			return nil, "", nil, fmt.Errorf("oauth: %w", err)
		}
		return m, origin, misses, nil
	}
	return nil, origin, misses, nil
}

// discoverLegacy applies the MCP 2025-03-26 rules for a server without
// resource metadata: the authorization server's base URL is the endpoint's
// origin, its metadata is at <origin>/.well-known/oauth-authorization-server,
// and without metadata its endpoints are /authorize, /token and /register.
//
// That revision had no issuer to compare the metadata's issuer with (RFC
// 8414 §3.3 compares it with the URL the client started from, here the MCP
// server itself), so the document is accepted when its issuer and endpoints
// live on the same origin; this check is hand-written because the go-sdk's
// fetch insists on an exact issuer.
func discoverLegacy(ctx context.Context, hc *http.Client, resource, origin string, misses []string) (*Discovery, error) {
	d := &Discovery{Resource: &oauthex.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{origin}}, Legacy: true}
	metaURL := origin + "/.well-known/oauth-authorization-server"
	asm, status, err := getJSON[oauthex.AuthServerMeta](ctx, hc, metaURL)
	switch {
	case err == nil:
		for _, v := range []string{asm.Issuer, asm.AuthorizationEndpoint, asm.TokenEndpoint, asm.RegistrationEndpoint} {
			if v != "" && !sameOrigin(v, origin) {
				return nil, fmt.Errorf("oauth: %s (no resource metadata; %s) names %s outside %s", metaURL, strings.Join(misses, "; "), v, origin)
			}
		}
		if asm.Issuer == "" || asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" {
			return nil, fmt.Errorf("oauth: %s lacks issuer, authorization_endpoint or token_endpoint", metaURL)
		}
		if len(asm.CodeChallengeMethodsSupported) > 0 && !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
			return nil, fmt.Errorf("oauth: issuer %s does not support PKCE S256", asm.Issuer)
		}
		d.Server = asm
	case status >= 400 && status < 500:
		d.Server = &oauthex.AuthServerMeta{
			Issuer:                origin,
			AuthorizationEndpoint: origin + "/authorize",
			TokenEndpoint:         origin + "/token",
			RegistrationEndpoint:  origin + "/register",
		}
	default:
		return nil, fmt.Errorf("oauth: issuer metadata at %s: %w", metaURL, err)
	}
	d.Resource.AuthorizationServers = []string{d.Server.Issuer}
	return d, nil
}

func sameOrigin(raw, origin string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme+"://"+u.Host == origin
}

// getJSON fetches a metadata document, returning the HTTP status so that
// the caller can tell "not published here" (4xx) from a broken server.
func getJSON[T any](ctx context.Context, hc *http.Client, u string) (*T, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return nil, resp.StatusCode, fmt.Errorf("content type %q, want application/json", resp.Header.Get("Content-Type"))
	}
	var v T
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return nil, resp.StatusCode, fmt.Errorf("decoding %s: %w", u, err)
	}
	return &v, resp.StatusCode, nil
}

package oauth

import (
	"context"
	"fmt"
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
}

// Discover finds the authorization server for the MCP endpoint resource.
// metadataURL is the resource_metadata of the 401's WWW-Authenticate
// (client.TransportError.ResourceMetadata); when it is "", the well-known
// locations of RFC 9728 are tried (path-inserted, then the root). The
// issuer's metadata is looked up the RFC 8414 and OpenID ways and, failing
// those, at <issuer>/.well-known/oauth-authorization-server, where the seed
// says a Supabase issuer serves it. The server must support PKCE S256.
func Discover(ctx context.Context, hc *http.Client, resource, metadataURL string) (*Discovery, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	var candidates []string
	if metadataURL != "" {
		candidates = append(candidates, metadataURL)
	}
	if u, err := url.Parse(resource); err == nil && u.Host != "" {
		base := u.Scheme + "://" + u.Host
		if p := strings.Trim(u.Path, "/"); p != "" {
			candidates = append(candidates, base+"/.well-known/oauth-protected-resource/"+p)
		}
		candidates = append(candidates, base+"/.well-known/oauth-protected-resource")
	}
	var prm *oauthex.ProtectedResourceMetadata
	var errs []string
	for _, c := range candidates {
		m, err := oauthex.GetProtectedResourceMetadata(ctx, c, resource, hc)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		prm = m
		break
	}
	if prm == nil {
		return nil, fmt.Errorf("oauth: no protected resource metadata for %s: %s", resource, strings.Join(errs, "; "))
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

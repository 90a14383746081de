package conformance

import (
	"net/url"
	"strings"
)

// origin is scheme://host of u, or u itself when it does not parse.
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return strings.TrimRight(u, "/")
	}
	return p.Scheme + "://" + p.Host
}

// CatalogueURL is where the server of endpoint serves its tool catalogue
// over plain GET, as the specification names it: /.mcp/list-tools on the
// endpoint's own host.
func CatalogueURL(endpoint string) string { return origin(endpoint) + "/.mcp/list-tools" }

// ResourceMetadataURLs are the places a client that knows only the
// endpoint looks for its RFC 9728 metadata, in the order MCP clients try
// them: the path-suffixed document (section 3.1: /mcp's is at
// /.well-known/oauth-protected-resource/mcp), then the root one, which the
// specification shows.
func ResourceMetadataURLs(endpoint string) []string {
	root := ResourceMetadataURL(origin(endpoint))
	p, err := url.Parse(endpoint)
	if err != nil || strings.Trim(p.Path, "/") == "" {
		return []string{root}
	}
	return []string{root + "/" + strings.Trim(p.Path, "/"), root}
}

// AuthorizationServerMetadataURLs are the RFC 8414 places of issuer's
// metadata: section 3.1's (the well-known suffix between host and path),
// then the issuer URL with the suffix appended, as the specification's
// discovery step shows it (`$ISSUER/.well-known/oauth-authorization-server`).
// For an issuer without a path they are one URL.
func AuthorizationServerMetadataURLs(issuer string) []string {
	var out []string
	for _, u := range MetadataURLs(issuer) {
		if strings.Contains(u, "/.well-known/oauth-authorization-server") {
			out = append(out, u)
		}
	}
	return out
}

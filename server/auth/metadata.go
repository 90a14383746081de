package auth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// MetadataPath is the RFC 9728 well-known path at the host root, the URL the
// 401 challenge points at.
const MetadataPath = "/.well-known/oauth-protected-resource"

// MetadataPathFor returns the RFC 9728 section 3.1 well-known path of the
// resource served at endpointPath: the well-known prefix followed by the
// path ("/mcp/rides" gives /.well-known/oauth-protected-resource/mcp/rides),
// which MCP clients try first. Each endpoint has its own document there,
// naming its own resource; the root path (MetadataPath) is for one resource
// only.
func MetadataPathFor(endpointPath string) string {
	p := strings.Trim(endpointPath, "/")
	if p == "" {
		return MetadataPath
	}
	return MetadataPath + "/" + p
}

// MetadataConfig describes the protected resource for
// [ProtectedResourceMetadataHandler]. [Config.MetadataConfig] builds the
// OAuth-mode one from the verifier's own settings.
type MetadataConfig struct {
	// RequireOAuth is MCP_REQUIRE_OAUTH. False: the document says no
	// authorization is required.
	RequireOAuth bool
	// ResourceURL is the resource identifier (MCP_RESOURCE_URL). Required.
	ResourceURL string
	// Issuer is the one authorization server (OAUTH_ISSUER). Required when
	// RequireOAuth; ignored otherwise.
	Issuer string
	// ResourceDocumentation is <PUBLIC_BASE_URL>/mcp-docs. Zero: omitted.
	ResourceDocumentation string
	// ScopesSupported are the scopes the resource's tools require, listed
	// as RFC 9728 scopes_supported so a client knows what to ask the
	// issuer for. Zero: the member is omitted (the resource needs none).
	ScopesSupported []string
}

// metadataDoc is the document; the field order follows the published sample.
type metadataDoc struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	// AuthorizationRequired is an extra member (RFC 9728 section 2 lets
	// resources add their own), present only in public mode.
	AuthorizationRequired *bool `json:"authorization_required,omitempty"`
}

// ProtectedResourceMetadataHandler serves the RFC 9728 document for
// GET /.well-known/oauth-protected-resource: mount one per endpoint, at
// [MetadataPathFor] of its path (and at [MetadataPath] for the one resource
// the root document describes).
//
// OAuth mode, exactly the published sample:
//
//	{"resource":"<ResourceURL>","authorization_servers":["<Issuer>"],
//	 "bearer_methods_supported":["header"],"resource_documentation":"<...>/mcp-docs"}
//
// Public mode says plainly that nothing is needed, so one probe settles the
// mode: no authorization servers and authorization_required false. The
// bearer methods stay ["header"], as the specification shows the document:
// they say where a token would go (the Authorization header, never the
// query or the body), which holds in either mode:
//
//	{"resource":"<ResourceURL>","authorization_servers":[],
//	 "bearer_methods_supported":["header"],"resource_documentation":"<...>/mcp-docs",
//	 "authorization_required":false}
//
// Any origin may GET it (it is public by design); OPTIONS answers the CORS
// preflight; other methods get 405. It panics on a configuration that would
// serve a wrong document (no ResourceURL, or OAuth mode without Issuer), as
// that is a programming error caught at startup.
func ProtectedResourceMetadataHandler(cfg MetadataConfig) http.Handler {
	if cfg.ResourceURL == "" {
		panic("auth: MetadataConfig.ResourceURL is required")
	}
	doc := metadataDoc{
		Resource:               cfg.ResourceURL,
		BearerMethodsSupported: []string{"header"},
		ResourceDocumentation:  cfg.ResourceDocumentation,
		ScopesSupported:        cfg.ScopesSupported,
	}
	if cfg.RequireOAuth {
		if cfg.Issuer == "" {
			panic("auth: MetadataConfig.Issuer is required when RequireOAuth is set")
		}
		doc.AuthorizationServers = []string{cfg.Issuer}
	} else {
		no := false
		doc.AuthorizationServers = []string{}
		doc.AuthorizationRequired = &no
	}
	body, err := json.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("auth: encoding metadata: %v", err))
	}

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		// Short: the mode follows the operator's configuration, which can
		// change on restart.
		h.Set("Cache-Control", "public, max-age=300")
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}

package faultserver

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// IssuerPath is where [Start] mounts the issuer, Supabase's layout.
const IssuerPath = "/auth/v1"

// Env is a fault server, and in OAuth mode an issuer, on one loopback
// httptest server:
//
//	/mcp                                     the MCP endpoint
//	/.well-known/oauth-protected-resource    RFC 9728 metadata (OAuth mode)
//	/auth/v1/...                             the issuer (OAuth mode)
type Env struct {
	Server *Server
	Issuer *Issuer // nil in public mode
	HTTP   *httptest.Server
	// Endpoint is the MCP endpoint URL; IssuerURL and MetadataURL are ""
	// in public mode.
	Endpoint, IssuerURL, MetadataURL string
}

// Start serves opts until the test ends. With oauth, opts.Issuer and
// opts.ResourceMetadataURL are filled in.
func Start(tb testing.TB, opts Options, oauth bool) *Env {
	tb.Helper()
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	tb.Cleanup(hs.Close)
	env := &Env{HTTP: hs, Endpoint: hs.URL + "/mcp"}
	if oauth {
		is := NewIssuer()
		is.URL = hs.URL + IssuerPath
		is.Resource = env.Endpoint
		env.Issuer, env.IssuerURL = is, is.URL
		env.MetadataURL = hs.URL + "/.well-known/oauth-protected-resource"
		opts.Issuer, opts.ResourceMetadataURL = is, env.MetadataURL
		mux.Handle(IssuerPath+"/", is.Handler(IssuerPath))
		prm := func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{
				"resource":                 env.Endpoint,
				"authorization_servers":    []string{is.URL},
				"bearer_methods_supported": []string{"header"},
			})
		}
		mux.HandleFunc("GET /.well-known/oauth-protected-resource", prm)
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
	}
	env.Server = New(opts)
	mux.Handle("/mcp", env.Server)
	return env
}

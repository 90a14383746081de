package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server"
)

// One /mcp-docs documents every endpoint the host mounts, each with its own
// console and the metadata path its 401 names.
func TestDocsPageListsEveryEndpoint(t *testing.T) {
	ts := startHost(t, server.Options{})
	r := do(t, http.MethodGet, ts.URL+server.DocsPath, nil, "")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("%s: %d %q", server.DocsPath, r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{
		`<title>Trident Taxis MCP tools</title>`,
		`id="trident"`, `data-console="trident"`, `class="endpoint-url">` + ts.URL + `/mcp</pre>`,
		`id="echo"`, `data-console="echo"`, `class="endpoint-url">` + ts.URL + `/mcp/echo</pre>`,
		ts.URL + `/.well-known/oauth-protected-resource/mcp/echo`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("%s lacks %s", server.DocsPath, want)
		}
	}
	if a := do(t, http.MethodGet, ts.URL+server.DocsPath+"/assets/docs.js", nil, ""); a.status != 200 {
		t.Errorf("the page's script: %d", a.status)
	}
}

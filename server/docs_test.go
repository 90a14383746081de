package server_test

import (
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/servertest"
)

// One /mcp-docs documents every endpoint the host mounts that describes
// itself, each with its own console and the metadata path its 401 names,
// under the first one's title; with none that does, there is no page.
func TestDocsPageListsEveryEndpoint(t *testing.T) {
	url := startKits(t, nil)
	r := kit.Get(t, url+server.DocsPath)
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%s: %d %q", server.DocsPath, r.Status, r.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`<title>Test endpoint /mcp/kit</title>`,
		`id="kit"`, `data-console="kit"`, `class="endpoint-url">` + url + `/mcp/kit</pre>`,
		`id="other"`, `data-console="other"`, `class="endpoint-url">` + url + `/mcp/other</pre>`,
		url + `/.well-known/oauth-protected-resource/mcp/other`,
		`/healthz`, `/readyz`, `/metrics`,
	} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("%s lacks %s", server.DocsPath, want)
		}
	}
	if a := kit.Get(t, url+server.DocsPath+"/assets/docs.js"); a.Status != 200 {
		t.Errorf("the page's script: %d", a.Status)
	}

	silent := kit.New(kitPath)
	silent.Docs = nil
	if r := kit.Get(t, servertest.Start(t, nil, silent.Endpoint).URL+server.DocsPath); r.Status != 404 {
		t.Errorf("%s with no endpoint described: %d, want 404", server.DocsPath, r.Status)
	}
}

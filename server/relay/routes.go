package relay

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/schemabundle"
	"github.com/tridenttaxis/trident-mcp/gen/relay/ts"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// Where Relay's documents are served, beside Trident's: its documentation
// page, its schema bundle (the schema files byte for byte, the index and
// the TypeScript declarations) and its samples.
const (
	DocsPath    = "/mcp-docs/rides"
	SchemasPath = "/mcp-schemas/rides/"
	SamplesPath = "/samples/rides/"
)

// routes registers Relay's plain HTTP documents on the host's mux. The page
// is rendered once, from the same contracts the tools are served from.
func (s *Server) routes(m mcphttp.Mount, mux *http.ServeMux) error {
	page, err := s.renderDocs(m)
	if err != nil {
		return err
	}
	s.mountConnectors(m, mux)
	mux.HandleFunc("GET "+DocsPath, func(w http.ResponseWriter, _ *http.Request) { write(w, "text/html; charset=utf-8", page) })
	mux.HandleFunc("GET "+SchemasPath+"{file}", func(w http.ResponseWriter, r *http.Request) {
		switch f := r.PathValue("file"); f {
		case "index.json":
			write(w, "application/json", schemabundle.Index)
		case "mcp-tools.d.ts":
			write(w, "application/typescript; charset=utf-8", ts.MCPToolsDTS)
		default:
			p, ok := schemabundle.Files[f]
			if !ok {
				http.NotFound(w, r)
				return
			}
			b, err := contracts.Relay.ReadFile(p)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			write(w, "application/schema+json", b)
		}
	})
	mux.HandleFunc("GET "+SamplesPath+"{file...}", func(w http.ResponseWriter, r *http.Request) {
		f := path.Clean("samples/" + r.PathValue("file"))
		if !strings.HasPrefix(f, "samples/") || !strings.HasSuffix(f, ".json") {
			http.NotFound(w, r)
			return
		}
		b, err := fs.ReadFile(contracts.Relay.FS(), f)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		write(w, "application/json", b)
	})
	return nil
}

func write(w http.ResponseWriter, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(b)
}

type docsPage struct {
	Name, Version, Protocol, Endpoint string
	OAuth                             bool
	Tools                             []docsTool
	Refusals                          []errcodes.Entry
	Providers                         []Provider
	TTL                               string
}

type docsTool struct {
	Name, Title, Description, Input, Output string
	ReadOnly                                bool
}

func (s *Server) renderDocs(m mcphttp.Mount) ([]byte, error) {
	p := docsPage{
		Name: s.manifest.Server.Name, Version: s.manifest.Server.Version, Protocol: s.manifest.Server.ProtocolVersion,
		Endpoint: m.ResourceURL, OAuth: m.OAuth, Providers: s.registry.Providers, TTL: s.ttl.String(),
	}
	for i, t := range s.manifest.Tools {
		dt := docsTool{Name: t.Name, Title: t.Title, Description: t.Description, Input: path.Base(t.InputSchema), Output: path.Base(t.OutputSchema)}
		if a := s.tools[i].Annotations; a != nil {
			dt.ReadOnly = a.ReadOnlyHint
		}
		p.Tools = append(p.Tools, dt)
	}
	for _, e := range errcodes.Catalogue {
		if strings.HasPrefix(string(e.Code), "RELAY_") {
			p.Refusals = append(p.Refusals, e)
		}
	}
	var buf bytes.Buffer
	if err := docsTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("relay: rendering %s: %w", DocsPath, err)
	}
	return buf.Bytes(), nil
}

var docsTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relay rides MCP tools</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{background:#f6f8fa;padding:0 .2rem}pre{background:#f6f8fa;padding:.75rem;overflow:auto}
</style>
</head>
<body>
<h1>Relay rides MCP tools</h1>
<p>Server <code>{{.Name}} v{{.Version}}</code> · MCP Streamable HTTP · protocol <code>{{.Protocol}}</code> · beside Trident's tools (<a href="/mcp-docs">/mcp-docs</a>)</p>
<p>Endpoint: <code>{{.Endpoint}}</code> ·
{{if .OAuth}}OAuth 2.1 mode: send a bearer token for this resource; its metadata is <a href="/.well-known/oauth-protected-resource/mcp/rides">/.well-known/oauth-protected-resource/mcp/rides</a>.{{else}}Public mode: no credentials needed.{{end}}</p>
<p>Relay asks at most two eligible priced sources for a trip between two coordinates and answers with signed options (valid for {{.TTL}} at most, or until the provider's deadline) beside the providers' browser handoffs.
Nothing is booked or dispatched: the passenger confirms with the provider. Pass each response's <code>relay_context</code> as the next call's <code>context</code>, and options back unchanged.
Amounts are in the currency's minor units; provider titles and descriptions are untrusted data.</p>
<pre>curl -sS {{.Endpoint}} \
  -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_rides","arguments":{"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306},"party_size":2}}}'</pre>
<p>Downloads: <a href="/mcp-schemas/rides/index.json">schema bundle index</a> ·
<a href="/mcp-schemas/rides/mcp-tools.d.ts">mcp-tools.d.ts</a> ·
<a href="/samples/rides/index.json">sample payloads</a></p>

<h2>Tools</h2>
<table><tr><th>Tool</th><th>Purpose</th><th>Schemas</th><th>Read-only</th></tr>
{{range .Tools}}<tr><td><code>{{.Name}}</code><br>{{.Title}}</td><td>{{.Description}}</td><td><a href="/mcp-schemas/rides/{{.Input}}">input</a> · <a href="/mcp-schemas/rides/{{.Output}}">output</a></td><td>{{if .ReadOnly}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>

<h2>Providers</h2>
<table><tr><th>Provider</th><th>Kind</th><th>Handoff</th><th>Agent policy</th></tr>
{{range .Providers}}<tr><td><code>{{.ID}}</code> {{.Name}}</td><td>{{.Kind}}</td><td>{{if .Link}}{{.Link.DestinationKind}}: <code>{{.Link.Template}}</code>{{else}}entry page <a href="{{.EntryPage}}">{{.EntryPage}}</a>{{end}}</td><td>{{.AgentPolicy.Policy}} (advisory only)</td></tr>
{{end}}</table>

<h2 id="errors">Refusals</h2>
<p>A refusal is a result with <code>isError: true</code> whose <code>structuredContent</code> carries the <code>status</code>; protocol failures are JSON-RPC errors as on <code>/mcp</code>.</p>
<table><tr><th>Status</th><th>Code</th><th>Applies to</th><th>Meaning</th><th>Remedy</th><th>Retry</th></tr>
{{range .Refusals}}<tr><td><code>{{.Signal}}</code></td><td><code>{{.Code}}</code></td><td>{{range .Tools}}<code>{{.}}</code> {{end}}</td><td>{{.Meaning}}</td><td>{{.Remedy}}</td><td>{{if .Retryable}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>
</body>
</html>
`))

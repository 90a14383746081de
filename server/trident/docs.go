package trident

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// docField is one row of a tool's input or output table.
type docField struct {
	Name, Type, Constraints, Description string
	Required                             bool
}

type docTool struct {
	Name, Title, Description string
	Input, Output            []docField
	InputFile, OutputFile    string
	Samples                  []string
}

type docPage struct {
	Server    contracts.ServerInfo
	Endpoint  string
	OAuth     bool
	Tools     []docTool
	Errors    []errcodes.Entry
	Booking   string
	SampleAll string
}

// renderDocs builds /mcp-docs from the contracts once, at start-up: the
// page cannot drift from what the server serves because both read the same
// files.
func (e *endpoint) renderDocs(m mcphttp.Mount) ([]byte, error) {
	page := docPage{
		Server:   e.manifest.Server,
		Endpoint: m.ResourceURL,
		OAuth:    m.OAuth,
		Errors:   errcodes.Catalogue,
		Booking:  e.opts.BookingBaseURL,
	}
	samples, err := contracts.Trident.Samples()
	if err != nil {
		return nil, err
	}
	for _, ct := range e.manifest.Tools {
		in, err := ct.Input()
		if err != nil {
			return nil, err
		}
		out, err := ct.Output()
		if err != nil {
			return nil, err
		}
		dt := docTool{
			Name: ct.Name, Title: ct.Title, Description: ct.Description,
			Input: schemaFields(in), Output: schemaFields(out),
			InputFile:  strings.TrimPrefix(ct.InputSchema, "schemas/"),
			OutputFile: strings.TrimPrefix(ct.OutputSchema, "schemas/"),
		}
		for _, sm := range samples {
			if strings.HasPrefix(sm.Name, ct.Name+".") {
				dt.Samples = append(dt.Samples, sm.Name+".json")
			}
		}
		page.Tools = append(page.Tools, dt)
	}
	var buf bytes.Buffer
	if err := docsTemplate.Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("trident: rendering /mcp-docs: %w", err)
	}
	return buf.Bytes(), nil
}

// schemaFields lists an object schema's properties in schema order with
// their type and constraints in words.
func schemaFields(schema json.RawMessage) []docField {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	dec.Token() // {
	var out []docField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		var p map[string]any
		if dec.Decode(&p) != nil {
			break
		}
		f := docField{Name: t.(string), Required: req[t.(string)]}
		f.Description, _ = p["description"].(string)
		switch ty := p["type"].(type) {
		case string:
			f.Type = ty
		case []any:
			var parts []string
			for _, x := range ty {
				parts = append(parts, fmt.Sprint(x))
			}
			f.Type = strings.Join(parts, " | ")
		}
		if ref, ok := p["$ref"].(string); ok {
			f.Type = strings.TrimPrefix(ref, "#/$defs/")
		}
		if items, ok := p["items"].(map[string]any); ok {
			if it, ok := items["type"].(string); ok {
				f.Type = it + "[]"
			} else if ref, ok := items["$ref"].(string); ok {
				f.Type = strings.TrimPrefix(ref, "#/$defs/") + "[]"
			}
		}
		var cons []string
		if e, ok := p["enum"].([]any); ok {
			var vals []string
			for _, v := range e {
				vals = append(vals, fmt.Sprintf("%q", v))
			}
			cons = append(cons, "one of "+strings.Join(vals, ", "))
		}
		for _, k := range []string{"minLength", "maxLength", "minimum", "maximum", "format", "default", "const"} {
			if v, ok := p[k]; ok {
				cons = append(cons, fmt.Sprintf("%s %v", k, v))
			}
		}
		sort.Strings(cons[min(1, len(cons)):])
		f.Constraints = strings.Join(cons, "; ")
		out = append(out, f)
	}
	return out
}

var docsTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trident Taxis MCP tools</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{background:#f6f8fa;padding:0 .2rem}pre{background:#f6f8fa;padding:.75rem;overflow:auto}
.req{color:#cf222e}
</style>
</head>
<body>
<h1>Trident Taxis MCP tools</h1>
<p>Server <code>{{.Server.Name}} v{{.Server.Version}}</code> · MCP Streamable HTTP · protocol <code>{{.Server.ProtocolVersion}}</code></p>
<p>Endpoint: <code>{{.Endpoint}}</code> ·
{{if .OAuth}}OAuth 2.1 mode: send <code>Authorization: Bearer &lt;access_token&gt;</code>; discover the issuer at <a href="/.well-known/oauth-protected-resource">/.well-known/oauth-protected-resource</a>.{{else}}Public mode: no credentials needed.{{end}}</p>
<p>Every call sends <code>Content-Type: application/json</code> and <code>Accept: application/json, text/event-stream</code> (without both, HTTP 406).
Replies are <code>application/json</code>; a call with <code>params._meta.progressToken</code> gets <code>text/event-stream</code>: <code>notifications/progress</code> frames (geocoding pickup, geocoding dropoff, routing, pricing), then the response frame with the request's id.</p>
<pre>curl -sS {{.Endpoint}} \
  -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: {{.Server.ProtocolVersion}}' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_info","arguments":{}}}'</pre>
<p>Downloads: <a href="/mcp-schemas/index.json">schema bundle index</a> ·
<a href="/mcp-schemas/mcp-tools.d.ts">mcp-tools.d.ts</a> ·
<a href="/samples/index.json">sample payloads</a> ·
<a href="/mcp-schemas/collections/index.json">Postman &amp; Insomnia collections</a> ·
<a href="/.mcp/list-tools">tool catalogue</a></p>

<h2>Tools</h2>
{{range .Tools}}
<h3 id="{{.Name}}"><code>{{.Name}}</code> — {{.Title}}</h3>
<p>{{.Description}}</p>
<h4>Input (<a href="/mcp-schemas/{{.InputFile}}">{{.InputFile}}</a>)</h4>
{{if .Input}}<table><tr><th>Field</th><th>Type</th><th>Constraints</th><th>Description</th></tr>
{{range .Input}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{.Type}}</td><td>{{.Constraints}}</td><td>{{.Description}}</td></tr>
{{end}}</table>{{else}}<p>No parameters.</p>{{end}}
<h4>Structured output (<a href="/mcp-schemas/{{.OutputFile}}">{{.OutputFile}}</a>)</h4>
<table><tr><th>Field</th><th>Type</th><th>Constraints</th><th>Description</th></tr>
{{range .Output}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{.Type}}</td><td>{{.Constraints}}</td><td>{{.Description}}</td></tr>
{{end}}</table>
<p>Samples: {{range .Samples}}<a href="/samples/{{.}}">{{.}}</a> {{end}}</p>
{{end}}

<h2 id="errors">Error codes</h2>
<p>Tool refusals are results with <code>isError: true</code>; protocol failures are JSON-RPC error objects; some are HTTP statuses.
Match on the code or signal, not the wording.</p>
<table><tr><th>Code</th><th>Surface</th><th>JSON-RPC</th><th>HTTP</th><th>Applies to</th><th>Meaning</th><th>Remedy</th><th>Retry</th></tr>
{{range .Errors}}<tr><td><code>{{.Code}}</code></td><td>{{.Surface}}</td><td>{{if .JSONRPCCode}}{{.JSONRPCCode}}{{end}}</td><td>{{if .HTTPStatus}}{{.HTTPStatus}}{{end}}</td>
<td>{{range .Tools}}<code>{{.}}</code> {{end}}</td><td>{{.Meaning}}{{if .Message}}<br><code>{{.Message}}</code>{{end}}{{range $tool, $text := .Messages}}<br><code>{{$tool}}</code>: {{$text}}{{end}}</td><td>{{.Remedy}}</td><td>{{if .Retryable}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>

<h2>Bookings</h2>
<p><code>start_booking</code> never books: it returns <code>confirmed: false</code>, <code>requiresPassengerAction: true</code> and a prefilled link on <code>{{.Booking}}</code> that the passenger completes.</p>

<h2>Operations</h2>
<p><a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a> · <a href="/metrics">/metrics</a> (Prometheus)</p>
</body>
</html>
`))

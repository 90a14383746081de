package docspage

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Page is everything the docs page shows: one section per mounted MCP
// endpoint, built by each endpoint's package from its contracts.
type Page struct {
	// Title heads the page and names it in the browser tab. Required.
	Title string
	// Intro is the first paragraph. Zero: none.
	Intro string
	// Path is where the page is served ("/mcp-docs"); its assets are
	// served below Path + "/assets/". Required; it must start with "/".
	Path string
	// PublicBaseURL is where the host is reached (PUBLIC_BASE_URL), without
	// a trailing slash. The page's URLs use it, except that a request for
	// the page on a loopback Host sees its own origin: a browser on the
	// machine itself reached the server there, and the front door accepts
	// calls from it. Required.
	PublicBaseURL string
	// Endpoints are the mounted MCP endpoints, in the order the page shows
	// them. Required: at least one.
	Endpoints []Endpoint
	// Links are host-wide links shown at the end (health, metrics). Zero:
	// none.
	Links []Link
}

// Endpoint is one MCP endpoint as the docs page describes it.
type Endpoint struct {
	// ID is the endpoint's anchor on the page and its key in the console's
	// data ("trident"). Required; letters, digits and '-' only.
	ID string
	// Title names the endpoint ("Trident Taxis"). Required.
	Title string
	// Description is a paragraph under the title. Zero: none.
	Description string
	// Path is where the endpoint is served ("/mcp"). Required.
	Path string
	// ServerName, ServerVersion and ProtocolVersion are what initialize
	// says of the endpoint. ProtocolVersion is also the
	// MCP-Protocol-Version header the console and the snippets send.
	ServerName, ServerVersion, ProtocolVersion string
	// ProtocolVersions are every MCP revision the endpoint serves, newest
	// first, as the front door negotiates them; the header lists them all,
	// ProtocolVersion marked as the one the examples send. Zero:
	// ProtocolVersion alone.
	ProtocolVersions []string
	// ResourceURL is the endpoint's canonical resource URI: in OAuth mode
	// the audience its tokens must be bound to (RFC 8707). Zero: the page's
	// base URL + Path.
	ResourceURL string
	// OAuth is true when every call needs a bearer token.
	OAuth bool
	// MetadataPath is the path of the endpoint's protected-resource
	// metadata (RFC 9728) on this host, the one its 401 names. Zero: none
	// is shown.
	MetadataPath string
	// ClientName is the server's key in client configuration files
	// ("trident-taxis"). Zero: ID.
	ClientName string
	// Tools are the endpoint's tools in tools/list order. Required.
	Tools []Tool
	// Errors is the endpoint's error catalogue. Zero: no table.
	Errors []Error
	// Downloads are links to the endpoint's contract files (schema
	// bundle, samples, collections). Zero: none.
	Downloads []Link
}

// Tool is one tool of an [Endpoint].
type Tool struct {
	Name, Title, Description string
	// ReadOnly is the tool's readOnlyHint annotation.
	ReadOnly bool
	// Input and Output are the tool's JSON Schemas exactly as tools/list
	// serves them; the console validates arguments against Input.
	Input, Output json.RawMessage
	// InputURL and OutputURL are where the schemas can be downloaded.
	// Zero: no link.
	InputURL, OutputURL string
	// Samples are the tool's request/response pairs, success first. The
	// console offers each whose request calls this tool.
	Samples []Sample
}

// Sample is one request/response pair of the contracts.
type Sample struct {
	// Name identifies the sample ("estimate_fare.success").
	Name string
	// Description says what the pair shows.
	Description string
	// URL is where the sample file can be downloaded. Zero: no link.
	URL string
	// Status is the HTTP status of the response.
	Status int
	// Request and Response are the JSON-RPC bodies.
	Request, Response json.RawMessage
}

// Error is one row of an endpoint's error catalogue.
type Error struct {
	Code        string
	Surface     string // "jsonrpc", "tool" or "http"
	JSONRPCCode int    // 0: none
	HTTPStatus  int    // 0: none
	Tools       []string
	Meaning     string
	Remedy      string
	Retryable   bool
	Message     string // the message template, when the code has one
}

// Link is a titled URL; a URL starting with "/" is on this host.
type Link struct{ Title, URL string }

//go:embed assets page.html.tmpl
var files embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"json":       prettyJSON,
	"fields":     Fields,
	"counts":     counts,
	"rpc":        rpcCall,
	"curl":       curlSnippet,
	"structured": structured,
	"breakable":  breakable,
}).ParseFS(files, "page.html.tmpl"))

// breakable is name, escaped, with a line-break opportunity (<wbr>) after
// each underscore, so that a narrow column wraps get_ride_booking_handoff
// between its words and never inside one.
func breakable(name string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(name), "_", "_<wbr>"))
}

// Handler serves the page at [Page.Path] and its embedded assets below it.
type Handler struct {
	page   Page
	assets http.Handler
}

// New checks p and returns its handler. The page itself is rendered per
// request, because its URLs follow the request's origin on loopback.
func New(p Page) (*Handler, error) {
	if p.Title == "" || !strings.HasPrefix(p.Path, "/") || p.PublicBaseURL == "" {
		return nil, fmt.Errorf("docspage: Title, Path (starting with /) and PublicBaseURL are required")
	}
	if len(p.Endpoints) == 0 {
		return nil, fmt.Errorf("docspage: no endpoint to document")
	}
	p.PublicBaseURL = strings.TrimRight(p.PublicBaseURL, "/")
	seen := map[string]bool{}
	for i := range p.Endpoints {
		ep := &p.Endpoints[i]
		if ep.ID == "" || strings.Trim(ep.ID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
			return nil, fmt.Errorf("docspage: endpoint %q: ID %q must be letters, digits and '-'", ep.Path, ep.ID)
		}
		if seen[ep.ID] {
			return nil, fmt.Errorf("docspage: two endpoints with ID %q", ep.ID)
		}
		seen[ep.ID] = true
		if ep.Title == "" || !strings.HasPrefix(ep.Path, "/") || len(ep.Tools) == 0 {
			return nil, fmt.Errorf("docspage: endpoint %q: Title, Path and Tools are required", ep.ID)
		}
		if ep.ClientName == "" {
			ep.ClientName = ep.ID
		}
		for _, t := range ep.Tools {
			if !json.Valid(t.Input) || !json.Valid(t.Output) {
				return nil, fmt.Errorf("docspage: %s: tool %s: input and output schemas must be JSON", ep.ID, t.Name)
			}
		}
	}
	// A render now reports a template error at start-up, not on a request.
	if err := render(new(bytes.Buffer), p, p.PublicBaseURL); err != nil {
		return nil, err
	}
	sub, _ := fs.Sub(files, "assets") // the directory is embedded above
	return &Handler{page: p, assets: http.StripPrefix(p.Path+"/assets/", http.FileServerFS(sub))}, nil
}

// Register mounts the page and its assets on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.Handle("GET "+h.page.Path, h)
	mux.Handle("GET "+h.page.Path+"/assets/", h)
}

// contentSecurityPolicy lets the page load nothing but its own embedded
// assets and call nothing but its own host: no CDN, no inline script, no
// eval. The browser test fails on any violation (it is a console error).
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.URL.Path != h.page.Path {
		w.Header().Set("Cache-Control", "public, max-age=300")
		h.assets.ServeHTTP(w, r)
		return
	}
	var buf bytes.Buffer
	if err := render(&buf, h.page, h.baseURL(r)); err != nil {
		http.Error(w, "docs page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Add("Vary", "Host")
	w.Write(buf.Bytes())
}

// baseURL is the origin the page's URLs use for r: the request's own when
// its Host is a loopback name (what a browser on the server's machine
// typed, and what the front door's origin check accepts), otherwise the
// configured PublicBaseURL. A foreign Host is never reflected, so a
// forged Host header cannot put another origin into the page.
func (h *Handler) baseURL(r *http.Request) string {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, ""
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return h.page.PublicBaseURL
		}
	}
	if !isLoopback(strings.Trim(host, "[]")) {
		return h.page.PublicBaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: r.Host}
	return u.String()
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// view is what the template renders: the page with every URL resolved
// against one base.
type view struct {
	Page
	Base      string
	Endpoints []endpointView
	Data      consoleData
}

type endpointView struct {
	Endpoint
	URL         string // base + Path: where calls go
	ResourceURL string
	MetadataURL string
	Clients     []ClientSnippet
	Tools       []toolView
}

type toolView struct {
	Tool
	Example *Sample // the first sample that calls this tool successfully
}

// consoleData is the JSON the console script reads from the page.
type consoleData struct {
	Endpoints map[string]consoleEndpoint `json:"endpoints"`
}

type consoleEndpoint struct {
	Path            string        `json:"path"`
	ProtocolVersion string        `json:"protocolVersion"`
	OAuth           bool          `json:"oauth"`
	Tools           []consoleTool `json:"tools"`
}

type consoleTool struct {
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"inputSchema"`
	Examples []consoleSample `json:"examples"`
}

type consoleSample struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func render(buf *bytes.Buffer, p Page, base string) error {
	v := view{Page: p, Base: base, Data: consoleData{Endpoints: map[string]consoleEndpoint{}}}
	for _, ep := range p.Endpoints {
		ev := endpointView{Endpoint: ep, URL: base + ep.Path, ResourceURL: ep.ResourceURL}
		if ev.ResourceURL == "" {
			ev.ResourceURL = ev.URL
		}
		if ep.MetadataPath != "" {
			ev.MetadataURL = base + ep.MetadataPath
		}
		ev.Clients = ClientSnippets(ep.ClientName, ev.URL)
		ce := consoleEndpoint{Path: ep.Path, ProtocolVersion: ep.ProtocolVersion, OAuth: ep.OAuth}
		for _, t := range ep.Tools {
			tv := toolView{Tool: t}
			ct := consoleTool{Name: t.Name, Input: t.Input, Examples: []consoleSample{}}
			for i, s := range t.Samples {
				name, args, ok := callOf(s.Request)
				if !ok || name != t.Name {
					continue
				}
				ct.Examples = append(ct.Examples, consoleSample{Name: s.Name, Arguments: args})
				if tv.Example == nil && s.Status == http.StatusOK && isResult(s.Response) {
					tv.Example = &t.Samples[i]
				}
			}
			ev.Tools = append(ev.Tools, tv)
			ce.Tools = append(ce.Tools, ct)
		}
		v.Endpoints = append(v.Endpoints, ev)
		v.Data.Endpoints[ep.ID] = ce
	}
	if err := pageTemplate.Execute(buf, v); err != nil {
		return fmt.Errorf("docspage: rendering %s: %w", p.Path, err)
	}
	return nil
}

// callOf returns the tool name and arguments of a tools/call request.
func callOf(req json.RawMessage) (name string, args json.RawMessage, ok bool) {
	var r struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(req, &r) != nil || r.Method != "tools/call" {
		return "", nil, false
	}
	if len(r.Params.Arguments) == 0 {
		r.Params.Arguments = json.RawMessage("{}")
	}
	return r.Params.Name, r.Params.Arguments, true
}

// isResult reports whether a JSON-RPC response is a successful tool result.
func isResult(resp json.RawMessage) bool {
	var r struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	return json.Unmarshal(resp, &r) == nil && r.Result != nil && !r.Result.IsError
}

// prettyJSON indents JSON for a snippet; invalid JSON is shown as it is.
func prettyJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// structured returns a sample result's structuredContent, the example
// response of the tools section.
func structured(resp json.RawMessage) json.RawMessage {
	var r struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return nil
	}
	return r.Result.StructuredContent
}

// rpcCall is the compact JSON-RPC tools/call body of a sample's request.
func rpcCall(req json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, req) != nil {
		return string(req)
	}
	return buf.String()
}

// curlSnippet is the curl command for one JSON-RPC body against url.
func curlSnippet(url, protocolVersion, body string, oauth bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS %s \\\n", url)
	b.WriteString("  -H 'Content-Type: application/json' \\\n")
	b.WriteString("  -H 'Accept: application/json, text/event-stream' \\\n")
	if protocolVersion != "" {
		fmt.Fprintf(&b, "  -H 'MCP-Protocol-Version: %s' \\\n", protocolVersion)
	}
	if oauth {
		b.WriteString("  -H \"Authorization: Bearer $ACCESS_TOKEN\" \\\n")
	}
	fmt.Fprintf(&b, "  -d '%s'", strings.ReplaceAll(body, "'", `'\''`))
	return b.String()
}

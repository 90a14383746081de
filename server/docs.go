package server

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
)

// docsEndpoint describes /mcp for the docs page from the contracts, the
// same files tools/list, the samples and the error catalogue are served
// from, so the page cannot drift from what the server does.
func (s *Server) docsEndpoint() (docspage.Endpoint, error) {
	m := s.manifest
	ep := docspage.Endpoint{
		ID: "trident", Title: "Trident Taxis", Path: "/mcp", ClientName: "trident-taxis",
		Description: "Price taxi journeys in and around Argyll & Bute and hand passengers a prefilled booking link. " +
			"start_booking never books: it returns confirmed: false, requiresPassengerAction: true and a link on " +
			s.opts.BookingBaseURL + " that the passenger completes.",
		ServerName: m.Server.Name, ServerVersion: m.Server.Version, ProtocolVersion: m.Server.ProtocolVersion,
		ResourceURL: s.opts.ResourceURL, OAuth: s.verifier != nil,
		MetadataPath: "/.well-known/oauth-protected-resource",
		Downloads: []docspage.Link{
			{Title: "Schema bundle index (index.json)", URL: "/mcp-schemas/index.json"},
			{Title: "TypeScript declarations (mcp-tools.d.ts)", URL: "/mcp-schemas/mcp-tools.d.ts"},
			{Title: "Sample payloads (samples/index.json)", URL: "/samples/index.json"},
			{Title: "Postman & Insomnia collections", URL: "/mcp-schemas/collections/index.json"},
			{Title: "Tool catalogue (/.mcp/list-tools)", URL: "/.mcp/list-tools"},
		},
	}
	samples, err := contracts.LoadSamples()
	if err != nil {
		return ep, err
	}
	for _, ct := range m.Tools {
		in, err := ct.Input()
		if err != nil {
			return ep, err
		}
		out, err := ct.Output()
		if err != nil {
			return ep, err
		}
		var ann struct {
			ReadOnly bool `json:"readOnlyHint"`
		}
		_ = json.Unmarshal(ct.Annotations, &ann) // absent annotations: not read-only
		t := docspage.Tool{
			Name: ct.Name, Title: ct.Title, Description: ct.Description, ReadOnly: ann.ReadOnly,
			Input: in, Output: out,
			InputURL:  "/mcp-schemas/" + strings.TrimPrefix(ct.InputSchema, "schemas/"),
			OutputURL: "/mcp-schemas/" + strings.TrimPrefix(ct.OutputSchema, "schemas/"),
		}
		for _, sm := range samples {
			if strings.HasPrefix(sm.Name, ct.Name+".") {
				t.Samples = append(t.Samples, docspage.Sample{
					Name: sm.Name, Description: sm.Description, URL: "/samples/" + sm.Name + ".json",
					Status: sm.HTTP.Status, Request: sm.Request, Response: sm.Response,
				})
			}
		}
		// The success pair first: the console loads it when the tool is picked.
		sort.SliceStable(t.Samples, func(i, j int) bool {
			return strings.HasSuffix(t.Samples[i].Name, ".success") && !strings.HasSuffix(t.Samples[j].Name, ".success")
		})
		ep.Tools = append(ep.Tools, t)
	}
	for _, e := range errcodes.Catalogue {
		ep.Errors = append(ep.Errors, docspage.Error{
			Code: string(e.Code), Surface: string(e.Surface), JSONRPCCode: e.JSONRPCCode, HTTPStatus: e.HTTPStatus,
			Tools: e.Tools, Meaning: e.Meaning, Remedy: e.Remedy, Retryable: e.Retryable, Message: e.Message,
		})
	}
	return ep, nil
}

// docsPage builds the /mcp-docs handler for the endpoints this server mounts.
func (s *Server) docsPage() (*docspage.Handler, error) {
	ep, err := s.docsEndpoint()
	if err != nil {
		return nil, err
	}
	return docspage.New(docspage.Page{
		Title: "Trident Taxis MCP tools",
		Intro: "MCP endpoints that let AI assistants (Claude, ChatGPT, Cursor, VS Code and any other MCP client) " +
			"price taxi journeys and hand passengers a prefilled booking link.",
		Path: "/mcp-docs", PublicBaseURL: s.opts.PublicBaseURL,
		Endpoints: []docspage.Endpoint{ep},
		Links: []docspage.Link{
			{Title: "/healthz", URL: "/healthz"}, {Title: "/readyz", URL: "/readyz"},
			{Title: "/metrics (Prometheus)", URL: "/metrics"},
		},
	})
}

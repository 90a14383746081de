package trident

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// docs describes the endpoint for the host's /mcp-docs from its contracts:
// the tools with their schemas exactly as tools/list serves them, the
// samples and the error catalogue, so the page cannot drift from what the
// endpoint does.
func (e *endpoint) docs(m mcphttp.Mount) (docspage.Endpoint, error) {
	ep := docspage.Endpoint{
		ID: "trident", Title: "Trident Taxis", Path: Path, ClientName: "trident-taxis",
		Description: "Price taxi journeys in and around Argyll & Bute and hand passengers a prefilled booking link. " +
			"start_booking never books: it returns confirmed: false, requiresPassengerAction: true and a link on " +
			e.opts.BookingBaseURL + " that the passenger completes.",
		ServerName: e.manifest.Server.Name, ServerVersion: e.manifest.Server.Version,
		ProtocolVersion: e.manifest.Server.ProtocolVersion,
		ResourceURL:     m.ResourceURL, OAuth: m.OAuth, MetadataPath: m.MetadataPath,
		Downloads: []docspage.Link{
			{Title: "Schema bundle index (index.json)", URL: "/mcp-schemas/index.json"},
			{Title: "TypeScript declarations (mcp-tools.d.ts)", URL: "/mcp-schemas/mcp-tools.d.ts"},
			{Title: "Sample payloads (samples/index.json)", URL: "/samples/index.json"},
			{Title: "Postman & Insomnia collections", URL: "/mcp-schemas/collections/index.json"},
			{Title: "Tool catalogue (/.mcp/list-tools)", URL: "/.mcp/list-tools"},
		},
	}
	samples, err := contracts.Trident.Samples()
	if err != nil {
		return ep, err
	}
	for _, ct := range e.manifest.Tools {
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
		_ = json.Unmarshal(ct.Annotations, &ann) // checked by buildTools
		dt := docspage.Tool{
			Name: ct.Name, Title: ct.Title, Description: ct.Description, ReadOnly: ann.ReadOnly,
			Input: in, Output: out,
			InputURL:  "/mcp-schemas/" + strings.TrimPrefix(ct.InputSchema, "schemas/"),
			OutputURL: "/mcp-schemas/" + strings.TrimPrefix(ct.OutputSchema, "schemas/"),
		}
		for _, sm := range samples {
			if strings.HasPrefix(sm.Name, ct.Name+".") {
				dt.Samples = append(dt.Samples, docspage.Sample{
					Name: sm.Name, Description: sm.Description, URL: "/samples/" + sm.Name + ".json",
					Status: sm.HTTP.Status, Request: sm.Request, Response: sm.Response,
				})
			}
		}
		// The success pair first: the console loads it when the tool is picked.
		sort.SliceStable(dt.Samples, func(i, j int) bool {
			return strings.HasSuffix(dt.Samples[i].Name, ".success") && !strings.HasSuffix(dt.Samples[j].Name, ".success")
		})
		ep.Tools = append(ep.Tools, dt)
	}
	rows, err := contracts.Trident.Errors()
	if err != nil {
		return ep, err
	}
	for _, r := range rows {
		ep.Errors = append(ep.Errors, docspage.Error{
			Code: r.Name, Surface: r.Surface, JSONRPCCode: r.JSONRPCCode, HTTPStatus: r.HTTPStatus,
			Tools: r.Tools, Meaning: r.Meaning, Remedy: r.Remedy, Retryable: r.Retryable, Message: r.Message,
		})
	}
	return ep, nil
}

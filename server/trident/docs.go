package trident

import (
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// docs describes the endpoint for the host's /mcp-docs from its contracts
// (the same files tools/list, the downloads and the error replies come
// from, so the page cannot drift from what the endpoint does) and from
// where the host mounted it.
func (e *endpoint) docs(m mcphttp.Mount) (docspage.Endpoint, error) {
	tools, errs, err := docspage.FromContracts(tridentcontracts.Set, "/mcp-schemas/", "/samples/")
	if err != nil {
		return docspage.Endpoint{}, err
	}
	return docspage.Endpoint{
		ID: "trident", Title: "Trident Taxis", Path: Path, ClientName: "trident-taxis",
		Description: "Price taxi journeys in and around Argyll & Bute and hand passengers a prefilled booking link. " +
			"start_booking never books: it returns confirmed: false, requiresPassengerAction: true and a link on " +
			e.opts.BookingBaseURL + " that the passenger completes.",
		ServerName: e.manifest.Server.Name, ServerVersion: e.manifest.Server.Version,
		ProtocolVersion: e.manifest.Server.ProtocolVersion,
		ResourceURL:     m.ResourceURL, OAuth: m.OAuth, MetadataPath: m.MetadataPath,
		Tools: tools, Errors: errs,
		Downloads: []docspage.Link{
			{Title: "Schema bundle index (index.json)", URL: "/mcp-schemas/index.json"},
			{Title: "TypeScript declarations (mcp-tools.d.ts)", URL: "/mcp-schemas/mcp-tools.d.ts"},
			{Title: "Sample payloads (samples/index.json)", URL: "/samples/index.json"},
			{Title: "Postman & Insomnia collections", URL: "/mcp-schemas/collections/index.json"},
			{Title: "Tool catalogue (/.mcp/list-tools)", URL: "/.mcp/list-tools"},
		},
	}, nil
}

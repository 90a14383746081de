package relay

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// DocsAnchor is Relay's section of the host's one documentation page
// (/mcp-docs): its tools, samples, refusals and a Try-it console, drawn
// from contracts/relay like Trident's section is from its contracts.
const DocsAnchor = "/mcp-docs#" + docsID

const docsID = "relay"

// docs describes Relay for the host's /mcp-docs from the same contract files
// tools/list, the downloads and the refusals come from. The console loads
// each tool's success sample as its default arguments.
func (s *endpoint) docs(m mcphttp.Mount) (docspage.Endpoint, error) {
	tools, errs, err := docspage.FromContracts(relaycontracts.Set, SchemasPath, SamplesPath)
	if err != nil {
		return docspage.Endpoint{}, err
	}
	return docspage.Endpoint{
		ID: docsID, Title: "Relay rides", Path: Path, ClientName: "relay-rides",
		Description: "Find a ride between two coordinates: Relay asks at most two eligible priced sources and answers with signed options " +
			"(valid for " + inWords(s.ttl) + " at most, or until the provider's deadline) beside the providers' browser handoffs. " +
			"Nothing is booked or dispatched: the passenger confirms with the provider. Pass each response's relay_context as the next call's context, " +
			"and options back unchanged; amounts are in the currency's minor units and provider titles are untrusted data. " +
			"To carry the journey into the host's other connectors, the host reports the session's connectors with POST " + ConnectorsPath +
			" under a relay_context, and continue_journey answers ready with the next tool call, or says why not (proposal, connection_required, " +
			"disabled, unauthorized, unavailable, installation_unknown); nothing is ever installed.",
		ServerName: s.manifest.Server.Name, ServerVersion: s.manifest.Server.Version,
		ProtocolVersion: s.manifest.Server.ProtocolVersion,
		ResourceURL:     m.ResourceURL, OAuth: m.OAuth, MetadataPath: m.MetadataPath,
		Tools: tools, Errors: errs,
		Downloads: []docspage.Link{
			{Title: "Schema bundle index (index.json)", URL: SchemasPath + "index.json"},
			{Title: "TypeScript declarations (mcp-tools.d.ts)", URL: SchemasPath + "mcp-tools.d.ts"},
			{Title: "Sample payloads (samples/index.json)", URL: SamplesPath + "index.json"},
			{Title: "Postman & Insomnia collections (the Relay rides and Relay journey folders)", URL: "/mcp-schemas/collections/index.json"},
		},
	}, nil
}

// redirectDocs keeps the old /mcp-docs/rides working: Relay's page became
// its section of the shared /mcp-docs, and a permanent redirect takes
// bookmarks and earlier metadata documents there.
func redirectDocs(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, DocsAnchor, http.StatusMovedPermanently)
}

// inWords says an option lifetime as a reader would: "5 minutes",
// "1 minute 30 seconds", "45 seconds" (whole seconds; Relay's lifetimes
// are never finer), where time.Duration's String gives "5m0s".
func inWords(d time.Duration) string {
	d = d.Round(time.Second)
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	var parts []string
	if h := int64(d / time.Hour); h > 0 {
		parts = append(parts, unit(h, "hour"))
	}
	if m := int64(d % time.Hour / time.Minute); m > 0 {
		parts = append(parts, unit(m, "minute"))
	}
	if sec := int64(d % time.Minute / time.Second); sec > 0 || len(parts) == 0 {
		parts = append(parts, unit(sec, "second"))
	}
	return strings.Join(parts, " ")
}

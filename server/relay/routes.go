package relay

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/schemabundle"
	"github.com/tridenttaxis/trident-mcp/gen/relay/ts"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// Where Relay's documents are served, beside Trident's: its schema bundle
// (the schema files byte for byte, the index and the TypeScript
// declarations) and its samples. DocsPath was Relay's own page and now
// redirects to its section of the shared page ([DocsAnchor]).
const (
	DocsPath    = "/mcp-docs/rides"
	SchemasPath = "/mcp-schemas/rides/"
	SamplesPath = "/samples/rides/"
)

// routes registers Relay's plain HTTP documents and its connector reports
// on the host's mux.
func (s *endpoint) routes(m mcphttp.Mount, mux *http.ServeMux) error {
	if err := s.mountConnectors(m, mux); err != nil {
		return err
	}
	mux.HandleFunc("GET "+DocsPath, redirectDocs)
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
			b, err := relaycontracts.Set.ReadFile(p)
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
		b, err := fs.ReadFile(relaycontracts.Set.FS(), f)
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

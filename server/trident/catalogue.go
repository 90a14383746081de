package trident

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/collections"
	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/trident/schemabundle"
	"github.com/tridenttaxis/trident-mcp/gen/trident/ts"
)

// serveListTools answers GET /.mcp/list-tools with what tools/list returns,
// for clients that want the catalogue without an MCP session (the
// specification's troubleshooting table fetches it at start-up).
func (e *endpoint) serveListTools(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, struct {
		Tools []*mcp.Tool `json:"tools"`
	}{e.toolDefs})
}

// serveSchemas serves /mcp-schemas/: index.json, each tool schema exactly
// as written in contracts/, mcp-tools.d.ts, and collections/... (Postman and
// Insomnia exports with their index).
func serveSchemas(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	switch {
	case name == "" || name == "index.json":
		writeBytes(w, "application/json", schemabundle.Index)
	case name == "mcp-tools.d.ts":
		writeBytes(w, "application/typescript; charset=utf-8", ts.MCPToolsDTS)
	case name == "collections" || name == "collections/":
		serveFile(w, collections.FS, "index.json")
	case strings.HasPrefix(name, "collections/"):
		serveFile(w, collections.FS, strings.TrimPrefix(name, "collections/"))
	default:
		p, ok := schemabundle.Files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		serveFile(w, contracts.Trident.FS(), p)
	}
}

// serveSamples serves contracts/trident/samples/ (index.json and every pair), the
// specification's "Sample payloads" downloads.
func serveSamples(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "" {
		name = "index.json"
	}
	serveFile(w, contracts.Trident.FS(), "samples/"+name)
}

// serveFile writes one file of fsys as JSON (or the type its extension
// says), 404 for anything else; path.Clean keeps requests inside fsys.
func serveFile(w http.ResponseWriter, fsys fs.FS, name string) {
	name = path.Clean(name)
	if strings.HasPrefix(name, "../") || name == ".." {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	ct := "application/json"
	if !strings.HasSuffix(name, ".json") {
		ct = "text/plain; charset=utf-8"
	}
	writeBytes(w, ct, b)
}

func writeBytes(w http.ResponseWriter, contentType string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Access-Control-Allow-Origin", "*") // public reference documents
	w.Write(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeBytes(w, "application/json", append(b, '\n'))
}

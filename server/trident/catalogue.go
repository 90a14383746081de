package trident

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/collections"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/api"
	"github.com/tridenttaxis/trident-mcp/gen/trident/schemabundle"
	"github.com/tridenttaxis/trident-mcp/gen/trident/ts"
)

// catalogue serves the endpoint's plain HTTP surface (the catalogue and the
// schema and sample downloads; the documentation page is the host's) as
// contracts/openapi.yaml describes it: the routes, their path parameters
// and the operations are oapi-codegen's strict server (gen/trident/api),
// and this type answers each operation.
type catalogue struct {
	toolList []byte // /.mcp/list-tools, what tools/list returns
}

var _ api.StrictServerInterface = (*catalogue)(nil)

// newCatalogue builds the surface's documents once, from the tools/list
// definitions.
func newCatalogue(tools []*mcp.Tool) (*catalogue, error) {
	b, err := json.MarshalIndent(struct {
		Tools []*mcp.Tool `json:"tools"`
	}{tools}, "", "  ")
	if err != nil {
		return nil, err
	}
	return &catalogue{toolList: append(b, '\n')}, nil
}

// mount registers the generated routes on mux, and the bare folder paths
// (/mcp-schemas/, /samples/, /mcp-schemas/collections[/]) as their index,
// as they were served before the OpenAPI document drove the routes.
func (c *catalogue) mount(mux *http.ServeMux) {
	si := api.NewStrictHandler(c, nil)
	api.HandlerFromMux(si, mux)
	mux.HandleFunc("GET /mcp-schemas/{$}", si.GetSchemaIndex)
	mux.HandleFunc("GET /samples/{$}", si.GetSampleIndex)
	mux.HandleFunc("GET /mcp-schemas/collections", si.GetCollectionIndex)
	mux.HandleFunc("GET /mcp-schemas/collections/{$}", si.GetCollectionIndex)
}

// ListTools answers GET /.mcp/list-tools with what tools/list returns, for
// clients that want the catalogue without an MCP session (the
// specification's troubleshooting table fetches it at start-up).
func (c *catalogue) ListTools(context.Context, api.ListToolsRequestObject) (api.ListToolsResponseObject, error) {
	return document{"application/json", c.toolList}, nil
}

// GetSchemaIndex answers GET /mcp-schemas/index.json, the bundle index.
func (c *catalogue) GetSchemaIndex(context.Context, api.GetSchemaIndexRequestObject) (api.GetSchemaIndexResponseObject, error) {
	return document{"application/json", schemabundle.Index}, nil
}

// GetToolTypes answers GET /mcp-schemas/mcp-tools.d.ts.
func (c *catalogue) GetToolTypes(context.Context, api.GetToolTypesRequestObject) (api.GetToolTypesResponseObject, error) {
	return document{"application/typescript; charset=utf-8", ts.MCPToolsDTS}, nil
}

// GetToolSchema answers GET /mcp-schemas/{schemaFile}: each tool schema
// exactly as written in contracts/trident/schemas.
func (c *catalogue) GetToolSchema(_ context.Context, r api.GetToolSchemaRequestObject) (api.GetToolSchemaResponseObject, error) {
	p, ok := schemabundle.Files[r.SchemaFile]
	if !ok {
		return notFound{}, nil
	}
	return file(tridentcontracts.Set.FS(), p), nil
}

// GetCollectionIndex answers GET /mcp-schemas/collections/index.json.
func (c *catalogue) GetCollectionIndex(context.Context, api.GetCollectionIndexRequestObject) (api.GetCollectionIndexResponseObject, error) {
	return file(collections.FS, "index.json"), nil
}

// GetCollection answers GET /mcp-schemas/collections/{collectionFile}: the
// Postman and Insomnia exports.
func (c *catalogue) GetCollection(_ context.Context, r api.GetCollectionRequestObject) (api.GetCollectionResponseObject, error) {
	return file(collections.FS, r.CollectionFile), nil
}

// GetSampleIndex answers GET /samples/index.json.
func (c *catalogue) GetSampleIndex(context.Context, api.GetSampleIndexRequestObject) (api.GetSampleIndexResponseObject, error) {
	return file(tridentcontracts.Set.FS(), "samples/index.json"), nil
}

// GetSample answers GET /samples/{sampleFile}, the specification's "Sample
// payloads" downloads.
func (c *catalogue) GetSample(_ context.Context, r api.GetSampleRequestObject) (api.GetSampleResponseObject, error) {
	return file(tridentcontracts.Set.FS(), "samples/"+r.SampleFile), nil
}

// GetErrorSample answers GET /samples/errors/{sampleFile}.
func (c *catalogue) GetErrorSample(_ context.Context, r api.GetErrorSampleRequestObject) (api.GetErrorSampleResponseObject, error) {
	return file(tridentcontracts.Set.FS(), "samples/errors/"+r.SampleFile), nil
}

// file is the reply for one file of fsys: the file as JSON (or the type its
// extension says), or 404 for anything else; path.Clean keeps requests
// inside fsys.
func file(fsys fs.FS, name string) reply {
	name = path.Clean(name)
	if strings.HasPrefix(name, "../") || name == ".." {
		return notFound{}
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return notFound{}
	}
	ct := "application/json"
	if !strings.HasSuffix(name, ".json") {
		ct = "text/plain; charset=utf-8"
	}
	return document{ct, b}
}

// reply is what every operation of the surface answers: a document or 404.
// Both implement every generated response interface, so that the bytes of
// a contract file are served exactly as stored (the generated JSON
// responses would re-encode them) with the headers of a reference
// document.
type reply interface {
	api.ListToolsResponseObject
	api.GetSchemaIndexResponseObject
	api.GetToolTypesResponseObject
	api.GetToolSchemaResponseObject
	api.GetCollectionIndexResponseObject
	api.GetCollectionResponseObject
	api.GetSampleIndexResponseObject
	api.GetSampleResponseObject
	api.GetErrorSampleResponseObject
}

// document is a reference document, served byte for byte. Every one but
// the HTML page is public to any origin (CORS *), for browser clients.
type document struct {
	contentType string
	body        []byte
}

func (d document) write(w http.ResponseWriter) error {
	h := w.Header()
	h.Set("Content-Type", d.contentType)
	h.Set("Cache-Control", "public, max-age=300")
	if !strings.HasPrefix(d.contentType, "text/html") {
		h.Set("Access-Control-Allow-Origin", "*")
	}
	_, err := w.Write(d.body)
	return err
}

// notFound is net/http's 404, as the surface answered before.
type notFound struct{}

func (notFound) write(w http.ResponseWriter) error {
	http.Error(w, "404 page not found", http.StatusNotFound)
	return nil
}

// The generated response interfaces, one per operation.
func (r document) VisitListToolsResponse(w http.ResponseWriter) error          { return r.write(w) }
func (r document) VisitGetSchemaIndexResponse(w http.ResponseWriter) error     { return r.write(w) }
func (r document) VisitGetToolTypesResponse(w http.ResponseWriter) error       { return r.write(w) }
func (r document) VisitGetToolSchemaResponse(w http.ResponseWriter) error      { return r.write(w) }
func (r document) VisitGetCollectionIndexResponse(w http.ResponseWriter) error { return r.write(w) }
func (r document) VisitGetCollectionResponse(w http.ResponseWriter) error      { return r.write(w) }
func (r document) VisitGetSampleIndexResponse(w http.ResponseWriter) error     { return r.write(w) }
func (r document) VisitGetSampleResponse(w http.ResponseWriter) error          { return r.write(w) }
func (r document) VisitGetErrorSampleResponse(w http.ResponseWriter) error     { return r.write(w) }

func (r notFound) VisitListToolsResponse(w http.ResponseWriter) error          { return r.write(w) }
func (r notFound) VisitGetSchemaIndexResponse(w http.ResponseWriter) error     { return r.write(w) }
func (r notFound) VisitGetToolTypesResponse(w http.ResponseWriter) error       { return r.write(w) }
func (r notFound) VisitGetToolSchemaResponse(w http.ResponseWriter) error      { return r.write(w) }
func (r notFound) VisitGetCollectionIndexResponse(w http.ResponseWriter) error { return r.write(w) }
func (r notFound) VisitGetCollectionResponse(w http.ResponseWriter) error      { return r.write(w) }
func (r notFound) VisitGetSampleIndexResponse(w http.ResponseWriter) error     { return r.write(w) }
func (r notFound) VisitGetSampleResponse(w http.ResponseWriter) error          { return r.write(w) }
func (r notFound) VisitGetErrorSampleResponse(w http.ResponseWriter) error     { return r.write(w) }

package conformancefixtures

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// The fixtures' resources: the resources-* scenarios read them,
// resources-subscribe subscribes to the watched one, caching reads the
// first listed.
const (
	templateURI = "test://template/{id}/data"
	watchedURI  = "test://watched-resource"
)

func (f *fixtures) resources() []mcphttp.Resource {
	textOf := func(uri, mime, s string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: s}}}
	}
	return []mcphttp.Resource{
		{
			Def: &mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
			Handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return textOf(req.Params.URI, "text/plain", "This is the content of the static text resource."), nil
			},
		},
		{
			Def: &mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (a PNG)", MIMEType: "image/png"},
			Handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: redPixel()}}}, nil
			},
		},
		{
			Def: &mcp.Resource{URI: watchedURI, Name: "watched-resource", Description: "A resource clients may subscribe to", MIMEType: "text/plain"},
			Handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return textOf(req.Params.URI, "text/plain", "Watched resource content"), nil
			},
		},
	}
}

func (f *fixtures) resourceTemplates() []mcphttp.ResourceTemplate {
	return []mcphttp.ResourceTemplate{{
		Def: &mcp.ResourceTemplate{URITemplate: templateURI, Name: "template", Description: "Data for an id, substituted into the URI", MIMEType: "application/json"},
		Handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			id, ok := strings.CutPrefix(uri, "test://template/")
			id, ok2 := strings.CutSuffix(id, "/data")
			if !ok || !ok2 || id == "" || strings.Contains(id, "/") {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			body, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(body)}}}, nil
		},
	}}
}

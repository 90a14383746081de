package mcphttp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is one resource of an [Endpoint], listed by resources/list and
// read by resources/read of its URI.
//
// A handler answers a URI it cannot serve with [mcp.ResourceNotFoundError],
// which the go-sdk sends as -32602 with the URI as data (SEP-2164); a URI
// no resource or template names is answered so without calling any.
type Resource struct {
	Def     *mcp.Resource
	Handler mcp.ResourceHandler
}

// ResourceTemplate is a family of resources of an [Endpoint] whose URIs
// match an RFC 6570 template (test://items/{id}), listed by
// resources/templates/list; resources/read of a matching URI calls its
// handler with that URI.
type ResourceTemplate struct {
	Def     *mcp.ResourceTemplate
	Handler mcp.ResourceHandler
}

const methodReadResource = "resources/read"

// guardResource wraps a resource handler with the requestState integrity
// check (requeststate.go): a resource read may ask for input like a tool
// call (SEP-2322). The state is bound to the URI read.
func (d *door) guardResource(h mcp.ResourceHandler) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if req.Params == nil {
			return h(ctx, req)
		}
		return withState(d, methodReadResource+" "+req.Params.URI, &req.Params.RequestState,
			func() (*mcp.ReadResourceResult, error) { return h(ctx, req) },
			func(r *mcp.ReadResourceResult) *string {
				if r == nil {
					return nil
				}
				return &r.RequestState
			})
	}
}

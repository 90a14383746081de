package mcphttp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CompletionHandler answers completion/complete: values for the argument of
// a prompt (ref/prompt) or resource template (ref/resource) the client is
// filling in, best first. The go-sdk has checked that the request names a
// reference and an argument.
type CompletionHandler func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error)

// completion is the endpoint's completion handler, or one that completes
// nothing: the capability is declared for every endpoint, so that generic
// clients probing completion/complete get a well-formed empty answer
// instead of an error.
func (d *door) completion() CompletionHandler {
	if d.ep.Complete != nil {
		return d.ep.Complete
	}
	return func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
}

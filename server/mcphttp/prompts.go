package mcphttp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is one prompt of an [Endpoint]: its definition as prompts/list
// shows it and its handler, which prompts/get calls with the client's
// arguments. Like a tool's, the handler may answer with input requests
// (GetPromptResult.InputRequests, SEP-2322): a 2026-07-28 client gets an
// input_required result and retries with the answers, a 2025-11-25 session
// is asked by the go-sdk itself. An unknown prompt is -32602, as the go-sdk
// answers it.
type Prompt struct {
	Def     *mcp.Prompt
	Handler mcp.PromptHandler
}

// guardPrompt wraps a prompt's handler with the requestState integrity
// check (requeststate.go). A panic in it is the receiving middleware's
// -32603, as for any method.
func (d *door) guardPrompt(name string, h mcp.PromptHandler) mcp.PromptHandler {
	scope := methodGetPrompt + " " + name
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		var in *string
		if req.Params != nil {
			in = &req.Params.RequestState
		}
		return withState(d, scope, in, func() (*mcp.GetPromptResult, error) { return h(ctx, req) },
			func(r *mcp.GetPromptResult) *string {
				if r == nil {
					return nil
				}
				return &r.RequestState
			})
	}
}

const methodGetPrompt = "prompts/get"

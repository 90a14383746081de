package conformancefixtures

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// step is the pause between the notifications of the logging and progress
// fixtures: the scenarios check that a client receives several during one
// call, so they are spread out a little.
const step = 50 * time.Millisecond

// behaviourTools do something besides answering: log, report progress,
// break their stream, need a capability, change the lists.
func (f *fixtures) behaviourTools() []mcphttp.Tool {
	return []mcphttp.Tool{
		{
			Def: &mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three info log messages while it runs", InputSchema: objectSchema},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
					if i > 0 && !pause(ctx, step) {
						return nil, stopped(ctx)
					}
					logInfo(ctx, req, msg)
				}
				return text("Tool with logging executed successfully"), nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100 to a call that gives a progress token", InputSchema: objectSchema},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				token := req.Params.GetProgressToken()
				for i, p := range []float64{0, 50, 100} {
					if i > 0 && !pause(ctx, step) {
						return nil, stopped(ctx)
					}
					if token != nil && req.Session != nil {
						req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
							ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("step %.0f of 100", p),
						})
					}
				}
				return text(fmt.Sprint(token)), nil
			},
		},
		{
			// SEP-1699: in a session, the call's stream is closed with a
			// retry hint before the result, which the client gets by
			// resuming the stream with Last-Event-ID.
			Def: &mcp.Tool{Name: "test_reconnection", Description: "Closes its event stream before answering, so the client resumes it (SEP-1699)", InputSchema: objectSchema},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if req.Extra != nil && req.Extra.CloseSSEStream != nil {
					req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
				}
				if !pause(ctx, 2*step) { // the result is sent once the client is back
					return nil, stopped(ctx)
				}
				return text("Reconnection test completed: the result arrived on the resumed stream."), nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability: -32021 without it (SEP-2575)", InputSchema: objectSchema},
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
					return nil, missingCapability("sampling")
				}
				return text("The client declared sampling."), nil
			},
		},
		{
			// SEP-2575: a response stream carries the call's notifications
			// and result, never a request of the server's own.
			Def: &mcp.Tool{Name: "test_streaming_elicitation", Description: "Answers on its stream with frames of its own call only (SEP-2575)", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("Only this call's frames are on its stream."), nil
			},
		},
		{
			// SEP-2575: no notifications/message for a request that set no
			// _meta log level; the go-sdk drops it.
			Def: &mcp.Tool{Name: "test_logging_tool", Description: "Logs one message, which a request without a log level does not get (SEP-2575)", InputSchema: objectSchema},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				logInfo(ctx, req, "test_logging_tool executed")
				return text("Logged one message at info."), nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_trigger_tool_change", Description: "Adds (or replaces) the tool test_transient_tool, which changes the tool list", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				err := f.changes.AddTool(mcphttp.Tool{
					Def: &mcp.Tool{Name: "test_transient_tool", Description: "Added by test_trigger_tool_change", InputSchema: objectSchema},
					Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return text("transient"), nil
					},
				})
				if err != nil {
					return nil, err
				}
				return text("The tool list changed."), nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_trigger_prompt_change", Description: "Adds (or replaces) the prompt test_transient_prompt, which changes the prompt list", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				err := f.changes.AddPrompt(mcphttp.Prompt{
					Def: &mcp.Prompt{Name: "test_transient_prompt", Description: "Added by test_trigger_prompt_change"},
					Handler: func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "transient"}}}}, nil
					},
				})
				if err != nil {
					return nil, err
				}
				return text("The prompt list changed."), nil
			},
		},
	}
}

// logInfo sends msg to the client at info, if the request came with a
// session that may log (the fast path's calls have none) and the client's
// level lets it through.
func logInfo(ctx context.Context, req *mcp.CallToolRequest, msg string) {
	if req.Session != nil {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: msg})
	}
}

// pause waits d, or less if ctx ends first; it reports whether d passed.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stopped is the answer of a fixture whose call or task ended before it
// was done (a client that went away, tasks/cancel): a refusal, not a fault
// worth an error in the log.
func stopped(ctx context.Context) error {
	return &mcphttp.ToolError{Code: "STOPPED", Text: "Stopped before it was done: " + context.Cause(ctx).Error()}
}

// missingCapability is the -32021 of a call that needs a client capability
// the client did not declare (SEP-2575), its data naming it as a
// ClientCapabilities object ({"sampling": {}}).
func missingCapability(name string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{name: map[string]any{}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability: " + name, Data: data}
}

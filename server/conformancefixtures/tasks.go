package conformancefixtures

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// taskTools are the fixtures of the tasks extension's scenarios
// (tasks-*, SEP-2663): one tool that never runs as a task, and tools that
// do, hand their work to mcphttp.RunAsTask, and end every way a task can.
func (f *fixtures) taskTools() []mcphttp.Tool {
	return []mcphttp.Tool{
		{
			Def: &mcp.Tool{Name: "greet", Description: "Greets at once: never a task",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct {
					Name string `json:"name"`
				}
				if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Name == "" {
					return nil, &mcphttp.ArgumentError{Field: "name", Reason: "Required"}
				}
				return text("Hello, " + in.Name + "!"), nil
			},
		},
		{
			Def: &mcp.Tool{Name: "slow_compute", Description: "Works for the seconds given, as a task for a client of the tasks extension; cancellable",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}},"required":["seconds"]}`)},
			Task:    mcphttp.TaskOptional,
			Handler: f.slowCompute,
		},
		{
			Def:  &mcp.Tool{Name: "failing_job", Description: "Runs only as a task, and fails as a tool after a second (an isError result)", InputSchema: objectSchema},
			Task: mcphttp.TaskRequired,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcphttp.RunAsTask(ctx, req, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if !pause(ctx, f.opts.Second) {
						return nil, stopped(ctx)
					}
					return nil, &mcphttp.ToolError{Code: "JOB_FAILED", Text: "failing_job failed, as it always does"}
				})
			},
		},
		{
			Def:  &mcp.Tool{Name: "protocol_error_job", Description: "Runs as a task that crashes: a protocol error, the task failed", InputSchema: objectSchema},
			Task: mcphttp.TaskOptional,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcphttp.RunAsTask(ctx, req, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					panic("protocol_error_job crashes on purpose") // the front door's -32603
				})
			},
		},
		{
			Def: &mcp.Tool{Name: "confirm_delete", Description: "Runs as a task that asks the user to confirm before it answers",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`)},
			Task: mcphttp.TaskOptional,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct {
					Filename string `json:"filename"`
				}
				json.Unmarshal(req.Params.Arguments, &in) // a missing name is asked about all the same
				return mcphttp.RunAsTask(ctx, req, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if r, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult); ok && r != nil {
						if yes, _ := r.Content["confirm"].(bool); r.Action == "accept" && yes {
							return text("Deleted " + in.Filename + " (nothing was deleted: this is a fixture)"), nil
						}
						return text("Kept " + in.Filename), nil
					}
					return needs(mcp.InputRequestMap{"confirm": elicit("Delete "+in.Filename+"?",
						`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)}, ""), nil
				})
			},
		},
		{
			Def:  &mcp.Tool{Name: "multi_input", Description: "Runs as a task that asks two questions at once", InputSchema: objectSchema},
			Task: mcphttp.TaskOptional,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcphttp.RunAsTask(ctx, req, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					first, second := accepted(req.Params.InputResponses, "first"), accepted(req.Params.InputResponses, "second")
					if first != nil && second != nil {
						return text(fmt.Sprintf("Both answered: %v and %v", first["name"], second["name"])), nil
					}
					return needs(mcp.InputRequestMap{
						"first":  elicit("First question: a name?", nameSchema),
						"second": elicit("Second question: another name?", nameSchema),
					}, ""), nil
				})
			},
		},
		{
			// SEP-2663 with SEP-2322: input first, in the call itself; the
			// retry that brings it becomes the task.
			Def:  &mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name in the call, then greets as a task", InputSchema: objectSchema},
			Task: mcphttp.TaskRequired, NeedsInput: true,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				name, _ := accepted(req.Params.InputResponses, "user_name")["name"].(string)
				if name == "" {
					return needs(mcp.InputRequestMap{"user_name": elicit("What is your name?", nameSchema)}, "awaiting_name"), nil
				}
				return mcphttp.RunAsTask(ctx, req, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("Hello, " + name + ", from the task."), nil
				})
			},
		},
	}
}

// slowCompute works for its seconds (a task's are cut short by
// tasks/cancel, after which the task stays cancelled).
func (f *fixtures) slowCompute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Seconds < 0 {
		return nil, &mcphttp.ArgumentError{Field: "seconds", Reason: "Expected a number of seconds, 0 or more"}
	}
	return mcphttp.RunAsTask(ctx, req, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !pause(ctx, time.Duration(in.Seconds*float64(f.opts.Second))) {
			return nil, stopped(ctx)
		}
		return text(fmt.Sprintf("Computed %q after %g second(s)", in.Label, in.Seconds)), nil
	})
}

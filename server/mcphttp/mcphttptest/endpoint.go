package mcphttptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// The tools of [New]'s endpoint: one for each way a tool can answer.
const (
	// ToolEcho answers its "text" argument (a string, required) as its
	// text content and every argument as its structuredContent; arguments
	// that break that rule are an [mcphttp.ArgumentError].
	ToolEcho = "echo"
	// ToolRefuse refuses: an [mcphttp.ToolError] of code [RefusedCode],
	// text [RefusedText], structuredContent {"code":"test_refused"} and a
	// cause ([SecretCause]) that the front door logs and never sends.
	ToolRefuse = "refuse"
	// ToolFail fails with a plain error carrying [SecretCause], which the
	// front door answers -32603 "Internal error".
	ToolFail = "fail"
	// ToolPanic panics.
	ToolPanic = "panic"
	// ToolSlow waits until the test calls [Endpoint.Release] (or the call
	// is cancelled), then answers "released"; [Endpoint.AwaitSlow] waits
	// for a call to begin.
	ToolSlow = "slow"
	// ToolProgress reports each of [ProgressSteps] as
	// notifications/progress when the call carries a progress token, then
	// answers "done".
	ToolProgress = "progress"
	// ToolStructured answers structuredContent only, no content: the SDK
	// sends an empty content list.
	ToolStructured = "structured"
)

// Tools are the names of the endpoint's tools, in the order of its
// [mcphttp.Endpoint.Tools] (tools/list sorts them by name).
var Tools = []string{ToolEcho, ToolRefuse, ToolFail, ToolPanic, ToolSlow, ToolProgress, ToolStructured}

const (
	// RefusedCode is the code of [ToolRefuse]'s refusal; its outcome label
	// is "test_refused".
	RefusedCode = "TEST_REFUSED"
	// RefusedText is the text a client reads of [ToolRefuse]'s refusal.
	RefusedText = "Refused: this tool always refuses."
	// SecretCause is the cause of [ToolRefuse]'s refusal and
	// [ToolFail]'s error: it may reach the log, never a reply.
	SecretCause = "the cause only the operator sees"
)

// ProgressSteps are the messages [ToolProgress] reports, in order;
// progress counts the steps already done, out of len(ProgressSteps).
var ProgressSteps = []string{"Reading", "Thinking", "Writing"}

// inputSchema is the schema every tool declares: the shape [ToolEcho]
// checks (the front door does not validate arguments; each tool does).
var inputSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"what to echo"}},"required":["text"]}`)

// Endpoint is a small MCP endpoint for the tests of the front door and the
// host: everything an endpoint package provides, with tools that answer in
// each way a tool can ([Tools]) and counters the tests read. Its
// [mcphttp.Endpoint] is embedded, so a test sets RateLimit, ToolScopes,
// Ready and the rest before mounting it.
type Endpoint struct {
	*mcphttp.Endpoint

	calls   atomic.Int64 // tool handler runs, any tool
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

// New returns the endpoint served at path. Its docs section's ID is the
// path's last element ("/mcp/kit" → "kit").
func New(path string) *Endpoint {
	e := &Endpoint{entered: make(chan struct{}, 64), release: make(chan struct{})}
	id := path[strings.LastIndex(path, "/")+1:]
	e.Endpoint = &mcphttp.Endpoint{
		Path:           path,
		Implementation: &mcp.Implementation{Name: "kit-" + id, Title: "Test endpoint " + path, Version: "1.0.0"},
		Docs: func(m mcphttp.Mount) (docspage.Endpoint, error) {
			d := docspage.Endpoint{ID: id, Title: "Test endpoint " + path, Path: path, ResourceURL: m.ResourceURL,
				OAuth: m.OAuth, MetadataPath: m.MetadataPath, ServerName: "kit-" + id, ServerVersion: "1.0.0",
				ProtocolVersion: mcphttp.Revision20250618}
			for _, name := range Tools {
				d.Tools = append(d.Tools, docspage.Tool{Name: name, Input: inputSchema, Output: json.RawMessage(`{}`)})
			}
			return d, nil
		},
	}
	handlers := map[string]mcp.ToolHandler{
		ToolEcho: e.echo, ToolRefuse: e.refuse, ToolFail: e.fail, ToolPanic: e.panic,
		ToolSlow: e.slow, ToolProgress: e.progress, ToolStructured: e.structured,
	}
	for _, name := range Tools {
		e.Tools = append(e.Tools, mcphttp.Tool{
			Def:     &mcp.Tool{Name: name, Description: "The " + name + " tool of the test endpoint.", InputSchema: inputSchema},
			Handler: e.count(handlers[name]),
		})
	}
	return e
}

// Calls is the number of tool handler runs so far, any tool: a request the
// front door refuses runs none.
func (e *Endpoint) Calls() int64 { return e.calls.Load() }

// AwaitSlow waits until a call of [ToolSlow] has begun (one per call),
// failing t after ten seconds: a guard against hanging, not a timing.
func (e *Endpoint) AwaitSlow(t testing.TB) {
	t.Helper()
	select {
	case <-e.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no call of the slow tool began")
	}
}

// Release lets every call of [ToolSlow], in flight and to come, answer.
// It may be called more than once.
func (e *Endpoint) Release() { e.once.Do(func() { close(e.release) }) }

func (e *Endpoint) count(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		e.calls.Add(1)
		return h(ctx, req)
	}
}

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

// echo checks its arguments as its schema says: the front door validates
// none; a tool answers what fails its schema with an ArgumentError.
func (e *Endpoint) echo(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.Params.Arguments
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, &mcphttp.ArgumentError{Field: "arguments", Reason: "Expected object"}
	}
	v, ok := args["text"]
	if !ok {
		return nil, &mcphttp.ArgumentError{Field: "text", Reason: "Required", Structured: map[string]any{"code": "invalid_arguments"}}
	}
	s, ok := v.(string)
	if !ok {
		return nil, &mcphttp.ArgumentError{Field: "text", Reason: "Expected string"}
	}
	return &mcp.CallToolResult{Content: text(s), StructuredContent: args}, nil
}

func (e *Endpoint) refuse(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, &mcphttp.ToolError{Code: RefusedCode, Text: RefusedText,
		Structured: map[string]any{"code": "test_refused"}, Cause: errors.New(SecretCause)}
}

func (e *Endpoint) fail(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, fmt.Errorf("fail: %s", SecretCause)
}

func (e *Endpoint) panic(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	panic("the panic tool panicked")
}

func (e *Endpoint) slow(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	select { // a signal for AwaitSlow; a run with none waiting (a fuzzer's) must not block on it
	case e.entered <- struct{}{}:
	default:
	}
	select {
	case <-e.release:
		return &mcp.CallToolResult{Content: text("released")}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (e *Endpoint) progress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		for i, step := range ProgressSteps {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i), Total: float64(len(ProgressSteps)), Message: step,
			}); err != nil {
				return nil, err
			}
		}
	}
	return &mcp.CallToolResult{Content: text("done")}, nil
}

func (e *Endpoint) structured(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{StructuredContent: map[string]any{"url": "https://example.test/a?b=1&c=<2>", "n": 62.4}}, nil
}

package conformancefixtures

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// Path is where the fixtures endpoint is served.
const Path = "/mcp/conformance"

// Options configures the fixtures endpoint. A nil *Options, and every zero
// field, means the documented default, which is what the conformance suite
// expects.
type Options struct {
	// Second is how long one of the "seconds" of slow_compute lasts, and
	// the delay before failing_job fails. Zero: a second, as the suite's
	// task scenarios time them.
	Second time.Duration
}

func (o *Options) resolve() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Second <= 0 {
		r.Second = time.Second
	}
	return r
}

// fixtures is what the fixtures' handlers share.
type fixtures struct {
	opts    Options
	changes *mcphttp.Changes
}

// New builds the fixtures endpoint from opts (nil means every default), for
// a host to mount ([github.com/tridenttaxis/trident-mcp/server.New]).
//
// It keeps sessions for clients that initialize (2025-11-25), so that its
// sampling and elicitation fixtures can ask them; several replicas would
// need session affinity, which is why it is a test endpoint only.
func New(opts *Options) (*mcphttp.Endpoint, error) {
	f := &fixtures{opts: opts.resolve(), changes: new(mcphttp.Changes)}
	ep := &mcphttp.Endpoint{
		Path: Path,
		Implementation: &mcp.Implementation{
			Name:    "trident-mcp-conformance-fixtures",
			Title:   "MCP conformance fixtures (tests only)",
			Version: "1.0.0",
		},
		Tools:             f.tools(),
		Prompts:           f.prompts(),
		Resources:         f.resources(),
		ResourceTemplates: f.resourceTemplates(),
		Complete:          complete,
		Changes:           f.changes,
		Sessions:          mcphttp.SessionsForHandshake,
	}
	return ep, nil
}

// tools are every fixture tool, in tools/list order.
func (f *fixtures) tools() []mcphttp.Tool {
	var out []mcphttp.Tool
	out = append(out, contentTools()...)
	out = append(out, f.behaviourTools()...)
	out = append(out, inputTools()...)
	out = append(out, f.taskTools()...)
	return out
}

// objectSchema is the input schema of a tool without arguments.
var objectSchema = map[string]any{"type": "object"}

// text is a result of one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

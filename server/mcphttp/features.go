package mcphttp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The features an endpoint may serve beside its tools, wired into the
// go-sdk server and the front door in one place: prompts (prompts.go),
// resources (resources.go), completion (completion.go), requestState
// integrity (requeststate.go), list changes and subscriptions
// (subscriptions.go), sessions (sessions.go) and tasks (tasks.go).

// serverOptions are the go-sdk options of the endpoint's server: the
// revisions served and the capabilities its features call for.
//
// Prompts, resources and completion are declared even for an endpoint that
// has none, because their methods answer (with empty lists, for generic
// clients that list them anyway): SEP-2575 asks a server to declare what
// it answers. listChanged and subscribe are declared only for an endpoint
// with [Endpoint.Changes], the one way its lists change and the one source
// of resource updates.
func (d *door) serverOptions(versions []string) *mcp.ServerOptions {
	caps := &mcp.ServerCapabilities{
		Tools:       &mcp.ToolCapabilities{},
		Logging:     &mcp.LoggingCapabilities{},
		Completions: &mcp.CompletionCapabilities{},
		Prompts:     &mcp.PromptCapabilities{},
		Resources:   &mcp.ResourceCapabilities{},
	}
	opts := &mcp.ServerOptions{
		Logger:                    sdkLogger(d.cfg.Logger),
		SupportedProtocolVersions: versions,
		Capabilities:              caps,
		CompletionHandler:         d.completion(),
	}
	if d.ep.Changes != nil {
		caps.Tools.ListChanged, caps.Prompts.ListChanged = true, true
		caps.Resources.Subscribe = true
		// The go-sdk keeps the subscriptions itself; these only let it.
		opts.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		opts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	if d.hasTaskTools() {
		caps.AddExtension(TasksExtension, nil)
	}
	return opts
}

// addFeatures adds the endpoint's prompts, resources and resource templates
// to srv, and sets up what its tasks and changes need.
func (d *door) addFeatures(srv *mcp.Server) error {
	d.states = newStateSealer(d.cfg.RequestStateKeys)
	for _, p := range d.ep.Prompts {
		if p.Def == nil || p.Handler == nil {
			return fmt.Errorf("every prompt needs a definition and a handler")
		}
		srv.AddPrompt(p.Def, d.guardPrompt(p.Def.Name, p.Handler))
	}
	for _, r := range d.ep.Resources {
		if r.Def == nil || r.Handler == nil {
			return fmt.Errorf("every resource needs a definition and a handler")
		}
		srv.AddResource(r.Def, d.guardResource(r.Handler))
	}
	for _, t := range d.ep.ResourceTemplates {
		if t.Def == nil || t.Handler == nil {
			return fmt.Errorf("every resource template needs a definition and a handler")
		}
		srv.AddResourceTemplate(t.Def, d.guardResource(t.Handler))
	}
	if d.hasTaskTools() {
		d.tasks = newTaskStore()
		if err := addTaskMethods(srv, d); err != nil {
			return err
		}
	}
	if c := d.ep.Changes; c != nil {
		c.bind(d, srv)
	}
	return nil
}

// serves reports whether the endpoint has a tool of that name: one of
// [Endpoint.Tools] or one added through [Endpoint.Changes].
func (d *door) serves(name string) bool {
	if d.tools[name] {
		return true
	}
	m := d.dynamic.Load()
	return m != nil && (*m)[name]
}

// fastHandlers are the tools the fast path may answer: all but those whose
// handler may ask for input, which need the go-sdk (Tool.NeedsInput).
func (d *door) fastHandlers() map[string]mcp.ToolHandler {
	out := make(map[string]mcp.ToolHandler, len(d.handlers))
	for _, t := range d.ep.Tools {
		if !t.NeedsInput {
			out[t.Def.Name] = d.handlers[t.Def.Name]
		}
	}
	return out
}

// Methods the front door passes on only for an endpoint whose features
// answer them, and only at the revisions that have them.
const (
	methodSubscribe           = "resources/subscribe"
	methodUnsubscribe         = "resources/unsubscribe"
	methodSubscriptionsListen = "subscriptions/listen"
)

// knows reports whether the endpoint answers method for r: every endpoint
// answers knownMethods; the subscription methods are an endpoint's with
// [Endpoint.Changes] (resources/subscribe within a session, whose client
// is told of updates; subscriptions/listen from 2026-07-28, SEP-2575, which
// removed resources/subscribe); the tasks methods are an endpoint's with a
// task tool.
func (d *door) knows(r *http.Request, method string) bool {
	if knownMethods[method] {
		return true
	}
	switch method {
	case methodSubscribe, methodUnsubscribe:
		return d.ep.Changes != nil && d.sessionMCP != nil && r.Header.Get(headerSessionID) != ""
	case methodSubscriptionsListen:
		return d.ep.Changes != nil && isStatelessRevision(r.Header.Get(headerProtocolVersion))
	case methodTasksGet, methodTasksUpdate, methodTasksCancel:
		return d.tasks != nil
	}
	return false
}

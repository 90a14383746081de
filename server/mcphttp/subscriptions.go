package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Changes lets an endpoint change its tools and prompts while it runs, and
// tells the clients that asked to hear of it: of a list change, those
// listening on a subscriptions/listen stream (2026-07-28, SEP-2575) that
// asked for it and every session's client (2025-11-25); of a resource
// update ([Changes.ResourceUpdated]), the listen streams that named the
// resource and the sessions that subscribed to it (resources/subscribe).
// An endpoint with Changes declares listChanged for tools and prompts and
// subscribe for resources; one without declares none of them, and its
// clients are never told anything.
//
// The notifications reach the clients connected to this process: several
// replicas each tell their own. The zero value is ready to use; set it as
// [Endpoint.Changes] before the host mounts the endpoint:
//
//	changes := new(mcphttp.Changes)
//	ep := &mcphttp.Endpoint{..., Changes: changes}
//	// later, from a handler or anywhere:
//	changes.AddTool(mcphttp.Tool{Def: def, Handler: h})
//	changes.ResourceUpdated(ctx, "test://watched-resource")
type Changes struct {
	mu      sync.Mutex
	servers []changedServer   // every server of the endpoint (HTTP, stdio)
	tools   map[string]Tool   // added here, by name
	prompts map[string]Prompt // added here, by name
}

type changedServer struct {
	d   *door
	srv *mcp.Server
}

// bind adds srv, the server of door d, to those c changes, with what was
// added to c before.
func (c *Changes) bind(d *door, srv *mcp.Server) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := changedServer{d, srv}
	c.servers = append(c.servers, s)
	for _, t := range c.tools {
		s.addTool(t)
	}
	for _, p := range c.prompts {
		srv.AddPrompt(p.Def, d.guardPrompt(p.Def.Name, p.Handler))
	}
}

// AddTool adds a tool to the endpoint, or replaces one added here before,
// and tells the listening clients that the tool list changed. It is
// answered like the endpoint's own tools, always through the go-sdk. A
// tool of [Endpoint.Tools] cannot be replaced, and one added here cannot
// run as a task.
func (c *Changes) AddTool(t Tool) error {
	if t.Def == nil || t.Handler == nil {
		return errors.New("mcphttp: Changes.AddTool: the tool needs a definition and a handler")
	}
	if t.Task != TaskForbidden {
		return fmt.Errorf("mcphttp: Changes.AddTool: %s: a tool added while the endpoint runs cannot run as a task", t.Def.Name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.servers {
		if s.d.tools[t.Def.Name] {
			return fmt.Errorf("mcphttp: Changes.AddTool: %s is one of the endpoint's own tools", t.Def.Name)
		}
	}
	if c.tools == nil {
		c.tools = map[string]Tool{}
	}
	c.tools[t.Def.Name] = t
	for _, s := range c.servers {
		s.addTool(t)
	}
	return nil
}

// RemoveTools removes tools added with [Changes.AddTool] and tells the
// listening clients; other names are ignored.
func (c *Changes) RemoveTools(names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gone := takeOut(c.tools, names); len(gone) > 0 {
		for _, s := range c.servers {
			s.setDynamic(c.tools)
			s.srv.RemoveTools(gone...)
		}
	}
}

// AddPrompt adds a prompt to the endpoint, or replaces one of that name,
// and tells the listening clients that the prompt list changed.
func (c *Changes) AddPrompt(p Prompt) error {
	if p.Def == nil || p.Handler == nil {
		return errors.New("mcphttp: Changes.AddPrompt: the prompt needs a definition and a handler")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prompts == nil {
		c.prompts = map[string]Prompt{}
	}
	c.prompts[p.Def.Name] = p
	for _, s := range c.servers {
		s.srv.AddPrompt(p.Def, s.d.guardPrompt(p.Def.Name, p.Handler))
	}
	return nil
}

// RemovePrompts removes prompts added with [Changes.AddPrompt] and tells
// the listening clients; other names are ignored.
func (c *Changes) RemovePrompts(names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gone := takeOut(c.prompts, names); len(gone) > 0 {
		for _, s := range c.servers {
			s.srv.RemovePrompts(gone...)
		}
	}
}

// takeOut deletes names from m and returns those it held.
func takeOut[V any](m map[string]V, names []string) []string {
	var gone []string
	for _, n := range names {
		if _, ok := m[n]; ok {
			delete(m, n)
			gone = append(gone, n)
		}
	}
	return gone
}

// ResourceUpdated tells the clients subscribed to uri that it changed
// (notifications/resources/updated), so that they read it again.
func (c *Changes) ResourceUpdated(ctx context.Context, uri string) error {
	c.mu.Lock()
	servers := c.servers
	c.mu.Unlock()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}))
	}
	return errors.Join(errs...)
}

// addTool serves t on s: the front door admits its name, and the go-sdk
// lists it and notifies the change. Called with the Changes' lock held.
func (s changedServer) addTool(t Tool) {
	name := t.Def.Name
	h := s.d.observeTool(name, s.d.guardState(methodCallTool, name, t.Handler))
	set := map[string]bool{name: true}
	if m := s.d.dynamic.Load(); m != nil {
		maps.Copy(set, *m)
	}
	s.d.dynamic.Store(&set)
	s.srv.AddTool(t.Def, h)
}

// setDynamic makes the tools the front door admits beside its own those
// of tools. Called with the Changes' lock held.
func (s changedServer) setDynamic(tools map[string]Tool) {
	set := make(map[string]bool, len(tools))
	for n := range tools {
		set[n] = true
	}
	s.d.dynamic.Store(&set)
}

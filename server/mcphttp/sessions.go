package mcphttp

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionPolicy says whether an endpoint keeps sessions (the Mcp-Session-Id
// of the Streamable HTTP transport up to 2025-11-25) for the clients that
// initialize.
//
// A session is what lets a server ask its client something in the middle
// of a call, the way 2025-11-25 does it: the tool's sampling/createMessage,
// elicitation/create or roots/list request goes out on the call's event
// stream and the client POSTs its answer back, which must reach the process
// waiting for it. 2026-07-28 made that stateless (an input_required result
// the client retries, SEP-2322), which is why an endpoint writes its
// handlers that way only once ([Tool.NeedsInput]): for a session's client
// the go-sdk turns the input requests into those server-to-client requests
// and calls the handler again with the answers.
type SessionPolicy int

const (
	// SessionsOff (the zero value) keeps no session: every request is
	// answered on its own, clients that initialize get no Mcp-Session-Id,
	// and any replica behind a balancer can answer any request. A handler's
	// input requests reach only 2026-07-28 clients.
	SessionsOff SessionPolicy = iota

	// SessionsForHandshake gives a client that initializes at a handshake
	// revision (2025-11-25 and older) a session this process holds: its
	// server-to-client requests, its log level (logging/setLevel), its
	// resource subscriptions, a GET stream for notifications, resumable
	// event streams (Last-Event-ID, SEP-1699) and its end (DELETE; a
	// request naming an ended or unknown session is 404). A session idle for
	// 30 minutes ends. Clients that never initialize, and every 2026-07-28
	// request, stay stateless as with SessionsOff. Several replicas need a
	// balancer that sends a session's requests to the replica that opened it
	// (affinity on the Mcp-Session-Id header).
	SessionsForHandshake
)

const (
	headerSessionID    = "Mcp-Session-Id"
	sessionIdleTimeout = 30 * time.Minute
	methodInitialize   = "initialize"
)

// newSessionHandler is the go-sdk's stateful handler of the endpoint's
// sessions, or nil when the endpoint keeps none. Its replies stream
// (text/event-stream), so that what a call sends its client before the
// result (progress, log messages, requests) reaches it, and its events are
// kept for a client that resumes a broken stream.
func (d *door) newSessionHandler(getServer func(*http.Request) *mcp.Server, base mcp.StreamableHTTPOptions) http.Handler {
	if d.ep.Sessions != SessionsForHandshake {
		return nil
	}
	opts := base
	opts.Stateless = false
	opts.JSONResponse = false
	opts.EventStore = mcp.NewMemoryEventStore(nil) // bounded: the go-sdk purges the oldest events above 10 MiB
	opts.SessionTimeout = sessionIdleTimeout
	return mcp.NewStreamableHTTPHandler(getServer, &opts)
}

// serveSessionStream answers the GET (the session's notification stream,
// or a broken stream resumed with Last-Event-ID) and DELETE (the end of
// the session) of a request that names a session, and reports whether it
// did. Every other request, and every request to an endpoint without
// sessions, is the front door's as before (405 for GET and DELETE).
func (d *door) serveSessionStream(w http.ResponseWriter, r *http.Request) bool {
	if d.sessionMCP == nil || (r.Method != http.MethodGet && r.Method != http.MethodDelete) || r.Header.Get(headerSessionID) == "" {
		return false
	}
	d.sessionMCP.ServeHTTP(&htmlUnescaper{ResponseWriter: w}, r)
	return true
}

// sessionFor is the handler of a POST the front door has checked: the
// session handler for one that names a session (404 when it is unknown or
// ended) or opens one (initialize at a handshake revision), nil for every
// other, which stays stateless.
func (d *door) sessionFor(r *http.Request, method string) http.Handler {
	if d.sessionMCP == nil {
		return nil
	}
	if r.Header.Get(headerSessionID) != "" {
		return d.sessionMCP
	}
	if method == methodInitialize && !isStatelessRevision(r.Header.Get(headerProtocolVersion)) {
		return d.sessionMCP
	}
	return nil
}

// allowed is the endpoint's Allow header (and CORS Allow-Methods): POST,
// and GET and DELETE too for an endpoint with sessions, which serves them
// for a session's stream and end.
func (d *door) allowed() string {
	if d.sessionMCP != nil {
		return "GET, POST, DELETE, OPTIONS"
	}
	return allowedMethods
}

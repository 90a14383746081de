package mcphttp

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/tridenttaxis/trident-mcp/server/docspage"
	"github.com/tridenttaxis/trident-mcp/server/limits"
)

// Endpoint is one MCP endpoint: what its package builds and the host mounts.
// The front door serves any Endpoint the same way; only the fields below
// differ from one to the next.
type Endpoint struct {
	// Path is where the endpoint is served ("/mcp", "/mcp/rides"), the
	// value of its endpoint label in /metrics, and the suffix of its
	// RFC 9728 metadata path. Required; it must start with "/".
	Path string

	// ResourceURL is the endpoint's canonical resource URI: the RFC 9728
	// "resource" of its metadata and, in OAuth mode, the RFC 8707 audience
	// its tokens must carry. Zero: the host's public base URL + Path.
	ResourceURL string

	// RootMetadata also serves the endpoint's protected-resource metadata
	// at the host root (/.well-known/oauth-protected-resource) and points
	// its 401 challenge there, as the Trident specification shows for /mcp.
	// At most one endpoint of a host may set it. Zero: only the
	// path-suffixed document (RFC 9728 section 3.1), which the 401 names.
	RootMetadata bool

	// DocsPath is the endpoint's human documentation on this host (for
	// example "/mcp-docs"), named as resource_documentation in its metadata.
	// Zero: the member is omitted.
	DocsPath string

	// Implementation names the endpoint in the initialize result.
	// Required.
	Implementation *mcp.Implementation

	// Tools are the endpoint's tools, each with a name of its own;
	// tools/list lists them by name (the go-sdk sorts them). Required: an
	// endpoint with no tool serves nothing.
	Tools []Tool

	// ArgumentErrors says how a tool's [*ArgumentError] (arguments that
	// fail its input schema) is answered. Zero: by the request's revision,
	// -32602 up to 2025-06-18 and an isError result from 2025-11-25.
	ArgumentErrors ArgumentErrorPolicy

	// ToolScopes names, per tool, the OAuth scope a caller's token must
	// carry to call it. In OAuth mode the front door checks it after the
	// verifier and answers a token without it 403 insufficient_scope (RFC
	// 6750 section 3.1); the scopes are listed as scopes_supported in the
	// endpoint's metadata. Public mode ignores it. Zero: no tool needs a
	// scope.
	ToolScopes map[string]string

	// RouteScopes are the scopes the endpoint's plain HTTP routes require
	// (through [Mount.Protect]), listed in its metadata beside ToolScopes'.
	// Zero: none.
	RouteScopes []string

	// RateLimit caps calls of the endpoint's tools per client; tools
	// without a rule are not limited. Zero (nil): no limit.
	RateLimit *limits.Policy

	// Docs describes the endpoint for the host's documentation page
	// (/mcp-docs, one section and one Try-it console per endpoint), given
	// where it is mounted. The host calls it once, at mount. Zero: the page
	// leaves the endpoint out.
	Docs func(m Mount) (docspage.Endpoint, error)

	// Routes registers the endpoint's plain HTTP routes (catalogues,
	// documents) on the host's mux, once, when the host mounts it. The
	// host's access log and metrics cover them. Zero: none.
	Routes func(m Mount, mux *http.ServeMux) error

	// Ready reports why the endpoint cannot serve yet (nil when it can);
	// the host's /readyz is 503 until every endpoint is ready. Zero: always
	// ready.
	Ready func() error

	// Close releases what the endpoint started; the host calls it on
	// Close. Zero: nothing to release.
	Close func() error

	// Collectors are the endpoint's own metrics (its back ends' counters),
	// registered on the host's registry with an endpoint label holding
	// Path. Zero: none.
	Collectors []prometheus.Collector

	// What an endpoint serves beside its tools, and how: each is described
	// in the file of its feature (prompts.go, resources.go, completion.go,
	// subscriptions.go, sessions.go). Every zero value keeps the endpoint
	// tools-only and stateless, as Trident's and Relay's are.

	// Prompts are the endpoint's prompts in prompts/list order. Zero: none
	// (prompts/list answers an empty list).
	Prompts []Prompt

	// Resources and ResourceTemplates are the endpoint's resources, read
	// with resources/read. Zero: none (the lists are empty, and reading any
	// URI is -32602 with the URI as data, as SEP-2164 has it).
	Resources         []Resource
	ResourceTemplates []ResourceTemplate

	// Complete answers completion/complete for the arguments of the
	// endpoint's prompts and resource templates. Zero: an empty list of
	// values for any argument.
	Complete CompletionHandler

	// Changes, when set, lets the endpoint change its tools and prompts
	// while it runs and tell subscribed clients of that and of resource
	// updates (subscriptions/listen, and resources/subscribe in a session).
	// Zero: the lists never change and no subscription is offered.
	Changes *Changes

	// Sessions says whether a client that initializes gets a session.
	// Zero: [SessionsOff], every request stateless.
	Sessions SessionPolicy
}

// Tool is one tool of an [Endpoint]: its definition as tools/list shows it
// (schemas exactly as written in the endpoint's contracts) and its handler.
//
// The handler validates its own arguments. It answers arguments that fail
// the input schema with an [*ArgumentError], which the front door answers as
// the endpoint's [ArgumentErrorPolicy] says; a refusal the client should
// read (a result with isError: true) by returning a [*ToolError], which
// carries the catalogue code the metrics count it under; a JSON-RPC error
// (such as [RPCError]) for a protocol failure;
// any other error is logged and answered -32603. A panic is -32603 too, and
// the process keeps serving.
type Tool struct {
	Def     *mcp.Tool
	Handler mcp.ToolHandler

	// NeedsInput says the handler may answer with input requests
	// (CallToolResult.InputRequests, SEP-2322) rather than a result. Such
	// calls always go through the go-sdk, which asks a 2025-11-25 session's
	// client for the input itself and calls the handler again with the
	// answers; a 2026-07-28 client gets the input_required result. Zero:
	// the handler always answers with a result.
	NeedsInput bool

	// Task says whether the tool may run as a task of the tasks extension
	// (tasks.go). Zero: [TaskForbidden].
	Task TaskSupport
}

// ToolError is a tool's refusal: the front door answers it as a result with
// isError: true, Text as its content and Structured (when set) as its
// structuredContent, and counts the call under Code.
type ToolError struct {
	// Code is the error catalogue code ("GEOCODE_FAILED"); it becomes the
	// call's outcome label in lower case.
	Code string
	// Text is what the client reads in content[0].text.
	Text string
	// Structured is the result's structuredContent. Zero: none.
	Structured any
	// Cause is logged, never sent.
	Cause error
}

func (e *ToolError) Error() string {
	if e.Cause != nil {
		return e.Code + ": " + e.Cause.Error()
	}
	return e.Code + ": " + e.Text
}

func (e *ToolError) Unwrap() error { return e.Cause }

func (e *ToolError) result() *mcp.CallToolResult {
	r := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: e.Text}}}
	if e.Structured != nil {
		r.StructuredContent = e.Structured
	}
	return r
}

// Mount is what the host tells an endpoint's [Endpoint.Routes] about where
// it is mounted.
type Mount struct {
	// PublicBaseURL is where the host is reached, without a trailing slash.
	PublicBaseURL string
	// ResourceURL is the endpoint's resolved resource URI.
	ResourceURL string
	// MetadataPath is the path of the endpoint's protected-resource
	// metadata on this host, as its 401 challenge names it.
	MetadataPath string
	// OAuth is true when the endpoint requires a bearer token.
	OAuth bool
	// Protect gives a route the endpoint's access: in OAuth mode its
	// verifier and the scope named, in public mode nothing. Never nil.
	Protect Protect
}

// CallInfo is what the front door learnt of one request, for the host's
// access log: the JSON-RPC method, the tool of a tools/call, whether the
// reply streams, and whether the fast path answered it (no SDK session).
type CallInfo struct {
	Method string
	Tool   string
	Stream bool
	Fast   bool
	// Trace is the request's span when tracing is on (tracing.go), for
	// the access log's trace_id and span_id; nil otherwise (a pointer: an
	// untraced request's CallInfo stays the size it was).
	Trace *trace.SpanContext
	// remoteHost is [RemoteHost]'s answer, set by the front door.
	remoteHost string
}

type callInfoKey struct{}

// WithCallInfo returns a context in which the front door fills info.
func WithCallInfo(ctx context.Context, info *CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, info)
}

// callInfoFrom returns the request's CallInfo, or a scratch one when the
// host attached none.
func callInfoFrom(ctx context.Context) *CallInfo {
	if c, ok := ctx.Value(callInfoKey{}).(*CallInfo); ok {
		return c
	}
	return &CallInfo{}
}

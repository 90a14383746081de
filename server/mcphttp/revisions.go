package mcphttp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// The MCP revisions the front door serves, by name, so a behaviour that
// changed between two of them is tied to the revision that changed it.
const (
	// Revision20260728 is the stateless revision (SEP-2575): no
	// initialize, every request carries its protocol version, client
	// capabilities and client info in params._meta, and server/discover
	// replaces the handshake.
	Revision20260728 = "2026-07-28"
	// Revision20251125 made input validation errors tool execution errors
	// (SEP-1303): an isError result the model can read, not -32602.
	Revision20251125 = "2025-11-25"
	// Revision20250618 is the revision the specification documents.
	Revision20250618 = "2025-06-18"
	// revision20250326 is what a request without an MCP-Protocol-Version
	// header is taken to speak, as the 2025-06-18 transport says.
	revision20250326 = "2025-03-26"
	revision20241105 = "2024-11-05"
)

// supportedProtocolVersions are the MCP revisions the front door speaks,
// newest first: the go-sdk's own list, named here so that an SDK upgrade
// that adds one does not start serving it unreviewed. A client asking for
// another at initialize is answered with the newest handshake revision
// served (2025-11-25 unless [Config.ProtocolVersions] narrows them), as the
// lifecycle says; an MCP-Protocol-Version header naming another gets 400.
var supportedProtocolVersions = []string{Revision20260728, Revision20251125, Revision20250618, revision20250326, revision20241105}

// ProtocolVersions returns the MCP revisions the front door speaks, newest
// first (for a -version line or a docs page); every endpoint serves them
// all unless [Config.ProtocolVersions] narrows them.
func ProtocolVersions() []string { return slices.Clone(supportedProtocolVersions) }

// ArgumentErrorPolicy says how an endpoint answers a tool call whose
// arguments fail the tool's input schema (a handler's [*ArgumentError]).
// The 2025-06-18 revision, which the Trident specification documents,
// answers them with JSON-RPC -32602; 2025-11-25 and later answer them with
// a tool result with isError: true, so that the model sees the reason and
// can correct its call (SEP-1303).
type ArgumentErrorPolicy int

const (
	// ArgumentErrorsByRevision (the zero value) follows the revision of
	// the request: -32602 "Invalid params: <field>: <reason>" for
	// 2025-06-18 and older (and for a request that names no revision,
	// which is taken as 2025-03-26), an isError result with that text for
	// 2025-11-25 and 2026-07-28.
	ArgumentErrorsByRevision ArgumentErrorPolicy = iota
	// ArgumentErrorsAsResult always answers with the isError result,
	// whatever the revision: for an endpoint whose own specification says
	// so (Relay's invalid_arguments result).
	ArgumentErrorsAsResult
)

// ArgumentError is a tool handler's refusal of arguments that fail the
// tool's input schema. The front door answers it as the endpoint's
// [ArgumentErrorPolicy] and the request's revision say, and counts the call
// under INVALID_ARGUMENTS either way.
type ArgumentError struct {
	// Field is the offending argument, or the root name when the arguments
	// as a whole are wrong (not an object).
	Field string
	// Reason is why, in the wording clients match on ("Required").
	Reason string
	// Structured is the structuredContent of the result form. Zero: none.
	Structured any
}

func (e *ArgumentError) Error() string { return e.message() }

// message is the catalogue's INVALID_ARGUMENTS text:
// "Invalid params: <field>: <reason>".
func (e *ArgumentError) message() string {
	return Message(errcodes.InvalidArguments, "field", e.Field, "reason", e.Reason)
}

// answer is the reply to a call that drew e, given the request's revision:
// a JSON-RPC error or an isError result.
func (e *ArgumentError) answer(policy ArgumentErrorPolicy, revision string) (*mcp.CallToolResult, error) {
	if policy == ArgumentErrorsByRevision && !argumentErrorsAreResults(revision) {
		return nil, RPCError(errcodes.InvalidArguments, e.message())
	}
	te := &ToolError{Code: string(errcodes.InvalidArguments), Text: e.message(), Structured: e.Structured}
	return te.result(), nil
}

// requestRevision is the revision a tool call speaks: the SDK's reading
// (per-request _meta, else the session's), else the MCP-Protocol-Version
// header. The fast path serves stateless calls without an SDK session, so
// only the header tells it the revision; the SDK's stateless sessions are
// made from that same header, so both paths read the same revision.
func requestRevision(req *mcp.CallToolRequest) string {
	if v := req.ProtocolVersion(); v != "" {
		return v
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return req.Extra.Header.Get(headerProtocolVersion)
	}
	return ""
}

// argumentErrorsAreResults reports whether revision answers input
// validation errors as tool results (SEP-1303, 2025-11-25 and later). The
// revisions are dates, so they order as strings; "" (none named) is the
// oldest.
func argumentErrorsAreResults(revision string) bool { return revision >= Revision20251125 }

// isStatelessRevision reports whether revision is 2026-07-28 or later, the
// revisions of SEP-2575.
func isStatelessRevision(revision string) bool { return revision >= Revision20260728 }

// unsupportedVersionData is the data of the answer to an unsupported
// MCP-Protocol-Version: the versions this server serves and the one asked
// for, as SEP-2575 has it, so that a client can pick one and retry.
func unsupportedVersionData(supported []string, requested string) json.RawMessage {
	b, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: supported, Requested: requested})
	return b
}

// servedVersions is the list of revisions a Config asks for, newest first:
// every one when it names none, else those it names, each of which must be
// one the front door speaks.
func servedVersions(want []string) ([]string, error) {
	if len(want) == 0 {
		return supportedProtocolVersions, nil
	}
	var out []string
	for _, v := range supportedProtocolVersions {
		if slices.Contains(want, v) {
			out = append(out, v)
		}
	}
	for _, v := range want {
		if !slices.Contains(supportedProtocolVersions, v) {
			return nil, fmt.Errorf("protocol version %q is not one this server speaks (%s)", v, strings.Join(supportedProtocolVersions, ", "))
		}
	}
	return out, nil
}

// refuseVersion answers a request whose MCP-Protocol-Version header names
// a revision this server does not serve: the catalogue's 400 and text, with
// the supported revisions and the requested one as data, which a client can
// pick from. A request of the stateless era (its params._meta names a
// protocol version, or its header a dated revision from 2026-07-28 on) is
// answered as SEP-2575 asks: with its own id and code -32022, on which its
// SDK renegotiates, so the body is read for both. Any other keeps what
// 2025-06-18 clients have always had: the catalogue's -32600 and, as for
// every refusal before the request is read as a call, a null id.
func (d *door) refuseVersion(w http.ResponseWriter, r *http.Request, version string) {
	body, ok := d.readBody(w, r)
	if !ok {
		return
	}
	var req struct {
		envelope
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_, dated := time.Parse(time.DateOnly, version)
	stateless := dated == nil && isStatelessRevision(version)
	parsed := json.Unmarshal(body, &req) == nil
	if _, inMeta := req.Params.Meta[mcp.MetaKeyProtocolVersion]; parsed && inMeta {
		stateless = true
	}
	e := entry(errcodes.UnsupportedProtocolVersion)
	code, id := e.JSONRPCCode, json.RawMessage(nil)
	if stateless {
		code = mcp.CodeUnsupportedProtocolVersion
		if parsed {
			id, _ = checkEnvelope(&req.envelope)
		}
	}
	writeRPCErrorData(w, e.HTTPStatus, id, errorObject{
		Code: code, Message: Message(errcodes.UnsupportedProtocolVersion, "version", version), Data: unsupportedVersionData(d.versions, version),
	})
}

// methodNotFoundStatus is the HTTP status of a -32601 for an unknown
// method: 404 in the stateless revisions (SEP-2575), 200 before them, as
// the specification's 2025-06-18 samples show.
func methodNotFoundStatus(r *http.Request) int {
	if isStatelessRevision(r.Header.Get(headerProtocolVersion)) {
		return http.StatusNotFound
	}
	return http.StatusOK
}

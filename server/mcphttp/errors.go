package mcphttp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// catalogue indexes gen/errcodes by code, so every text the front door
// sends is the catalogue's (contracts/errors.json), not a literal repeated
// here.
var catalogue = func() map[errcodes.Code]errcodes.Entry {
	m := make(map[errcodes.Code]errcodes.Entry, len(errcodes.Catalogue))
	for _, e := range errcodes.Catalogue {
		m[e.Code] = e
	}
	return m
}()

// entry returns the catalogue row of code. Every code the front door and
// the endpoints use is in the generated catalogue, so a missing one is a
// build defect.
func entry(code errcodes.Code) errcodes.Entry {
	e, ok := catalogue[code]
	if !ok {
		panic("mcphttp: error code " + string(code) + " is not in gen/errcodes")
	}
	return e
}

// Message fills the {placeholders} of code's message template in the error
// catalogue, given as name, value pairs.
func Message(code errcodes.Code, kv ...string) string {
	msg := entry(code).Message
	for i := 0; i+1 < len(kv); i += 2 {
		msg = strings.ReplaceAll(msg, "{"+kv[i]+"}", kv[i+1])
	}
	return msg
}

// ToolText is the per-tool text of a tool-level error of the catalogue:
// its text for tool, else its meaning.
func ToolText(code errcodes.Code, tool string) string {
	if t, ok := entry(code).Messages[tool]; ok {
		return t
	}
	return entry(code).Meaning
}

// RPCError is a JSON-RPC error for a tool handler to return (for example
// INVALID_ARGUMENTS with [Message]'s text); the SDK writes it as the
// response's error object unchanged.
func RPCError(code errcodes.Code, msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: int64(entry(code).JSONRPCCode), Message: msg}
}

// errorBody is a JSON-RPC error response written by the HTTP layer, before
// or instead of the SDK.
type errorBody struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   errorObject     `json:"error"`
}

type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var nullID = json.RawMessage("null")

// writeError answers with the catalogue's HTTP status for code (or status,
// when non-zero) and a JSON-RPC error body. id is the request's id when
// known; HTTP-level refusals (406, 413, 403, 429) answer with a null id, as
// the specification's 401 and 406 samples do, since the request was refused before
// it was read as a call.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code errcodes.Code, msg string) {
	e := entry(code)
	if status == 0 {
		status = e.HTTPStatus
	}
	if status == 0 {
		status = http.StatusOK
	}
	writeRPCError(w, status, id, e.JSONRPCCode, msg)
}

// writeRPCError writes a JSON-RPC error response with any code: writeError
// for the catalogue's rows, directly for the few answers outside them (405,
// an unknown JSON-RPC method).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = nullID
	}
	b, err := json.Marshal(errorBody{JSONRPC: "2.0", ID: id, Error: errorObject{Code: code, Message: msg}})
	if err != nil { // id is raw JSON the front door checked; cannot happen
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
}

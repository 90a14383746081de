package client

import (
	"strings"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// Code is a catalogue name from contracts/errors.json, such as
// errcodes.GeocodeFailed. It is the same type as [errcodes.Code], so callers
// compare against the generated constants directly.
type Code = errcodes.Code

// The lookups below read the generated catalogue rather than a copy of it, so
// that a new row in contracts/errors.json reaches the client with
// `make generate` and no edit here.

// codeForRPC names a JSON-RPC error object. Rows whose surface is the
// JSON-RPC error object win over HTTP rows that share a code (-32600 names
// both INVALID_REQUEST and UNSUPPORTED_PROTOCOL_VERSION).
func codeForRPC(code int) Code {
	e, _ := errcodes.ByJSONRPC(code)
	return e.Code
}

// codeForHTTP names a non-2xx reply. rpcCode and msg come from a JSON-RPC
// error body when the server sent one (0 and "" otherwise); they separate
// rows that share an HTTP status, such as the 400s.
func codeForHTTP(status, rpcCode int, msg string) Code {
	var matches []errcodes.Entry
	for _, e := range errcodes.Catalogue {
		if e.HTTPStatus == status && (rpcCode == 0 || e.JSONRPCCode == rpcCode) {
			matches = append(matches, e)
		}
	}
	if len(matches) == 0 && rpcCode != 0 {
		return codeForRPC(rpcCode)
	}
	if len(matches) == 0 {
		return ""
	}
	if len(matches) > 1 && strings.Contains(strings.ToLower(msg), "protocol version") {
		for _, e := range matches {
			if e.Code == errcodes.UnsupportedProtocolVersion {
				return e.Code
			}
		}
	}
	for _, e := range matches {
		if e.Surface == errcodes.SurfaceHTTP {
			return e.Code
		}
	}
	return matches[0].Code
}

// codeForTool names a tool refusal by the catalogue's text signal, the
// documented way to recognise one ("match on the error signal, not the
// human-readable text"). From 2025-11-25 on, failed argument validation
// is a tool result too, carrying the INVALID_ARGUMENTS message
// ("Invalid params: {field}: {reason}") that the -32602 error of older
// revisions carries (SEP-1303); the text before the first placeholder is
// its signal.
func codeForTool(text string) (Code, bool) {
	if e, ok := errcodes.ByToolText(text); ok {
		return e.Code, e.Retryable
	}
	e := errcodes.MustLookup(errcodes.InvalidArguments)
	if prefix, _, _ := strings.Cut(e.Message, "{"); prefix != "" && strings.HasPrefix(text, prefix) {
		return e.Code, e.Retryable
	}
	return "", false
}

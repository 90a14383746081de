package client

import (
	"encoding/json"
	"errors"
	"slices"
)

// The MCP revisions the client speaks, by name, so that a behaviour that
// changed between two of them is tied to the revision that changed it.
const (
	// LatestProtocolVersion is the stateless revision (SEP-2575): no
	// initialize, every request carries its revision, client info and
	// capabilities in params._meta, server/discover tells the client what
	// the server speaks. The client offers it first.
	LatestProtocolVersion = "2026-07-28"
	// Revision20251125 is the newest revision with the initialize
	// handshake; the client offers it in initialize when the server does not
	// speak the stateless revision.
	Revision20251125 = "2025-11-25"
	// DocumentedProtocolVersion is the revision the Trident specification
	// documents. A stateless call to a server of the handshake revisions
	// that never said which it speaks carries it.
	DocumentedProtocolVersion = "2025-06-18"
	revision20250326          = "2025-03-26"
	revision20241105          = "2024-11-05"
)

// supportedVersions are the revisions the client speaks, newest first.
var supportedVersions = []string{LatestProtocolVersion, Revision20251125, DocumentedProtocolVersion, revision20250326, revision20241105}

// SupportedProtocolVersions returns the MCP revisions the client speaks,
// newest first.
func SupportedProtocolVersions() []string { return slices.Clone(supportedVersions) }

// isStateless reports whether revision is 2026-07-28 or later, the
// revisions of SEP-2575. The revisions are dates, so they order as strings.
func isStateless(revision string) bool { return revision >= LatestProtocolVersion }

// newestShared is the newest revision both the client and a server that
// lists offered speak, "" when they share none.
func newestShared(offered []string) string {
	for _, v := range supportedVersions {
		if slices.Contains(offered, v) {
			return v
		}
	}
	return ""
}

// newestSharedHandshake is [newestShared] among the handshake revisions.
func newestSharedHandshake(offered []string) string {
	for _, v := range supportedVersions {
		if !isStateless(v) && slices.Contains(offered, v) {
			return v
		}
	}
	return ""
}

// codeUnsupportedVersion is SEP-2575's UnsupportedProtocolVersionError: the
// server does not speak the revision a request named, and says in data
// which it does.
const codeUnsupportedVersion = -32022

// offeredVersions reads the revisions a refusal of the request's revision
// lists (SEP-2575's data.supported, which this project's server also sends
// with its 400 for an unknown MCP-Protocol-Version); nil when err is no such
// refusal.
func offeredVersions(err error) []string {
	var re *RPCError
	var tr *TransportError
	switch {
	case errors.As(err, &re):
	case errors.As(err, &tr) && tr.StatusCode == 400 && tr.RPC != nil:
		re = tr.RPC
	default:
		return nil
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if len(re.Data) == 0 || json.Unmarshal(re.Data, &data) != nil {
		return nil
	}
	return data.Supported
}

package mcphttp

import "slices"

// ProtocolVersions returns the MCP protocol revisions the front door
// speaks, newest first: what an MCP-Protocol-Version header may name, and
// what a client may ask for at initialize. The binary prints them for
// -version.
func ProtocolVersions() []string { return slices.Clone(supportedProtocolVersions) }

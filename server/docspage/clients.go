package docspage

import (
	"encoding/json"
	"net/url"
	"strings"
)

// ClientSnippet is how one MCP client is told about an endpoint: the file
// (or command) and what goes in it.
type ClientSnippet struct {
	// ID names the client in the page and in tests: "claude-desktop",
	// "claude-code", "cursor" or "vscode".
	ID string
	// Client is the client's name as its users know it.
	Client string
	// Where says where the snippet goes.
	Where string
	// Format is "json" for a configuration file, "shell" for a command.
	Format string
	// Text is the snippet itself.
	Text string
}

// ClientSnippets returns the connection snippets of an endpoint at
// endpointURL, registered under name, in each client's documented format:
//
//   - Claude Desktop launches local (stdio) servers from
//     claude_desktop_config.json's "mcpServers"; mcp-remote bridges one to
//     a Streamable HTTP URL and runs the OAuth flow itself when the server
//     answers 401. It refuses plain http:// except on localhost unless
//     given --allow-http.
//   - Claude Code adds a remote server with
//     `claude mcp add --transport http <name> <url>` (options before the
//     name).
//   - Cursor reads "mcpServers" from .cursor/mcp.json; a remote server is
//     an entry with a "url".
//   - VS Code reads "servers" from .vscode/mcp.json; a remote server has
//     "type": "http" and a "url".
//
// In OAuth mode none needs a token in its configuration: each client finds
// the authorization server from the endpoint's 401 and runs the flow.
func ClientSnippets(name, endpointURL string) []ClientSnippet {
	bridge := []string{"-y", "mcp-remote", endpointURL}
	if u, err := url.Parse(endpointURL); err == nil && u.Scheme == "http" && !isLocalName(u.Hostname()) {
		bridge = append(bridge, "--allow-http")
	}
	return []ClientSnippet{
		{
			ID: "claude-desktop", Client: "Claude Desktop", Format: "json",
			Where: "claude_desktop_config.json (Settings → Developer → Edit Config), through mcp-remote (needs Node.js)",
			Text: indentJSON(map[string]any{"mcpServers": map[string]any{name: struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}{"npx", bridge}}}),
		},
		{
			ID: "claude-code", Client: "Claude Code", Format: "shell",
			Where: "a terminal (add --scope project to share it through .mcp.json)",
			Text:  "claude mcp add --transport http " + shellQuote(name) + " " + shellQuote(endpointURL),
		},
		{
			ID: "cursor", Client: "Cursor", Format: "json",
			Where: ".cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)",
			Text:  indentJSON(map[string]any{"mcpServers": map[string]any{name: map[string]any{"url": endpointURL}}}),
		},
		{
			ID: "vscode", Client: "VS Code", Format: "json",
			Where: ".vscode/mcp.json in the workspace",
			Text: indentJSON(map[string]any{"servers": map[string]any{name: struct {
				Type string `json:"type"`
				URL  string `json:"url"`
			}{"http", endpointURL}}}),
		},
	}
}

// isLocalName is mcp-remote's exception to its HTTPS rule.
func isLocalName(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// indentJSON writes a configuration file's JSON with its URLs as they are
// (no \u0026 for a query's &).
func indentJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic("docspage: " + err.Error()) // maps of strings always marshal
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	relaytypes "github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// endpoints are the routes the binary serves, as -h lists them
// (TestUsageEndpointsAreServed holds the list to the server).
var endpoints = [][2]string{
	{"POST /mcp", "the MCP endpoint: tools/list, tools/call (MCP Streamable HTTP, stateless)"},
	{"POST /mcp/rides", "Relay rides, the ride aggregator beside it: " + strings.Join(relaytypes.ToolNames, ", ")},
	{"POST /v1/session/connectors", "the host reports a Relay session's connectors (for continue_journey)"},
	{"GET  /.well-known/oauth-protected-resource", "protected-resource metadata (RFC 9728): names the issuer in OAuth mode; also at .../mcp"},
	{"GET  /.well-known/oauth-protected-resource/mcp/rides", "Relay's own protected-resource metadata (its own resource and scopes)"},
	{"GET  /.mcp/list-tools", "the tools and their schemas, without a JSON-RPC session"},
	{"GET  /mcp-schemas/index.json", "JSON Schemas of every tool, mcp-tools.d.ts, collections/ (Postman, Insomnia)"},
	{"GET  /samples/index.json", "the documented request/response pairs"},
	{"GET  /mcp-docs", "the documentation page"},
	{"GET  /healthz", "liveness"},
	{"GET  /readyz", "readiness (503 until OAuth signing keys are in, and while shutting down)"},
	{"GET  /metrics", "Prometheus metrics"},
}

// usage writes -h: what the server is, its endpoints, every setting's flag
// by group with its type and default (its environment variable too, and the
// variable's value when it is set, never a secret's), the flags that are no
// setting, and two examples.
func usage(w io.Writer, fs *flag.FlagSet, env environ) {
	fmt.Fprintf(w, `trident-mcp serves the Trident Taxis MCP tools over MCP Streamable HTTP:
  %s
Fares follow the Argyll & Bute tariff; bookings are prefilled links the passenger
completes. Beside them, at /mcp/rides, Relay rides compares ride providers with
signed, expiring options and carries a journey into the host's other connectors.
It is public by default; with MCP_REQUIRE_OAUTH=true every call needs an OAuth 2.1
bearer token from OAUTH_ISSUER. Logs are JSON on stderr; SIGTERM or
SIGINT shuts it down gracefully.

Usage:
  trident-mcp [flags]

Endpoints (under PUBLIC_BASE_URL):
`, strings.Join(mcptypes.ToolNames, ", "))
	width := 0
	for _, e := range endpoints {
		width = max(width, len(e[0]))
	}
	for _, e := range endpoints {
		fmt.Fprintf(w, "  %-*s  %s\n", width, e[0], e[1])
	}
	fmt.Fprint(w, `
Flags (each also read from the environment variable it names; a flag wins):
`)
	for _, g := range groups {
		fmt.Fprintf(w, "\n %s:\n", g.title)
		for _, d := range settings {
			if d.group != g.id {
				continue
			}
			fmt.Fprintf(w, "  -%s %s\n    \t%s ($%s)", flagName(d.env), d.kind.name(), d.help, d.env)
			switch {
			case d.def != "":
				fmt.Fprintf(w, " (default %s)", quoteIfString(d.kind, d.def))
			case d.shown != "":
				fmt.Fprintf(w, " (default %s)", d.shown)
			}
			e, _ := env(d.env)
			switch {
			case e == "":
			case d.secret:
				fmt.Fprintf(w, "\n    \tnow set, from $%s", d.env)
			case d.kind == kindCredentialURL:
				fmt.Fprintf(w, "\n    \tnow %s, from $%s", strconv.Quote(redactURL(e)), d.env)
			default:
				fmt.Fprintf(w, "\n    \tnow %s, from $%s", quoteIfString(d.kind, e), d.env)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprint(w, "\n Other flags:\n")
	// Flags that are no setting (-version), in name order.
	fs.VisitAll(func(f *flag.Flag) {
		if _, isSetting := f.Value.(*setting); isSetting {
			return
		}
		typ, help := flag.UnquoteUsage(f)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			typ = "" // given alone, as -version
		}
		fmt.Fprintf(w, "  -%s", f.Name)
		if typ != "" {
			fmt.Fprintf(w, " %s", typ)
		}
		fmt.Fprintf(w, "\n    \t%s\n", help)
	})
	fmt.Fprint(w, `  -h, -help
    	print this help, and exit

Examples:
  # Public mode on 127.0.0.1:9000, quoting calls without departAt at a fixed
  # weekday morning (the documented samples' figures):
  trident-mcp -addr 127.0.0.1:9000 -fare-clock 2025-06-18T09:00:00Z

  # OAuth 2.1 mode behind a TLS proxy at https://mcp.example.com, tokens from a
  # Supabase project, the specification's suggested rate limits:
  MCP_REQUIRE_OAUTH=true OAUTH_ISSUER=https://<project-ref>.supabase.co/auth/v1 \
    trident-mcp -addr 127.0.0.1:8080 -public-base-url https://mcp.example.com -rate-limit seed
`)
}

// quoteIfString quotes a string setting's value, as Go's flag package shows
// string defaults; numbers, booleans and durations go bare.
func quoteIfString(k kind, v string) string {
	if k == kindString || k == kindTime || k == kindCredentialURL {
		return strconv.Quote(v)
	}
	return v
}

// printVersion writes -version: the server's version (what initialize
// reports), the build, and the MCP protocol revisions it speaks.
func printVersion(w io.Writer) {
	build := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		build = bi.Main.Version
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(12, len(s.Value))]
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
		if rev != "" {
			build += ", commit " + rev + dirty
		}
	}
	fmt.Fprintf(w, "trident-mcp %s (%s v%s; build %s; %s)\n", mcptypes.ServerVersion, mcptypes.ServerName, mcptypes.ServerVersion, build, runtime.Version())
	fmt.Fprintf(w, "MCP protocol revisions: %s\n", strings.Join(mcphttp.ProtocolVersions(), ", "))
}

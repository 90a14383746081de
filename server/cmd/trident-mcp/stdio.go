package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// stdioHelp is the -stdio flag's help line.
const stdioHelp = "serve one endpoint's tools over stdio (MCP's stdio transport: JSON-RPC on stdin and stdout, logs on stderr) instead of HTTP, for clients that launch a local server: -stdio alone serves " + trident.Path + ", -stdio=" + relay.Path + " Relay rides"

// stdioEndpoints are the paths -stdio serves.
var stdioEndpoints = []string{trident.Path, relay.Path}

// stdioFlag is -stdio: a boolean flag (given alone it serves Trident) that
// also takes an endpoint's path (-stdio=/mcp/rides).
type stdioFlag struct{ path string }

func (f *stdioFlag) String() string   { return f.path }
func (f *stdioFlag) IsBoolFlag() bool { return true }

func (f *stdioFlag) Set(v string) error {
	switch v {
	case "true":
		f.path = trident.Path
	case "false":
		f.path = ""
	default:
		for _, p := range stdioEndpoints {
			if v == p {
				f.path = v
				return nil
			}
		}
		return fmt.Errorf("want an endpoint's path: %s", strings.Join(stdioEndpoints, " or "))
	}
	return nil
}

// serveStdio serves the endpoint -stdio names to the client that launched
// the process, on stdin and stdout, until it closes stdin or the process is
// signalled. The HTTP settings (ADDR, PUBLIC_BASE_URL, origins, limits) do
// not apply; OAuth is refused rather than ignored, since a stdio server has
// no bearer token to check and an operator who asked for OAuth should not
// get an open server by surprise.
//
// Relay prices with Trident over MCP Streamable HTTP, so for -stdio=/mcp/rides
// Trident alone is served on a loopback port of its own (127.0.0.1, a port
// the kernel picks, never advertised), unless RELAY_TRIDENT_URL names
// another Trident.
func serveStdio(ctx context.Context, c *config, logger *slog.Logger) error {
	if c.host.Auth != nil {
		return errors.New("-stdio takes no OAuth (MCP authorization is for HTTP; a stdio server is the user's own process): unset MCP_REQUIRE_OAUTH")
	}
	tridentEP, err := trident.New(&c.trident)
	if err != nil {
		return err
	}
	ep := tridentEP
	if c.stdio == relay.Path {
		h := relayHost{logger: logger}
		if !c.settings.isGiven("RELAY_TRIDENT_URL") {
			self, stop, err := serveTridentOnLoopback(c, tridentEP, logger)
			if err != nil {
				return err
			}
			defer stop()
			h.selfMCP, h.internalToken, h.publicBaseURL = self, c.host.InternalToken, strings.TrimSuffix(self, trident.Path)
		}
		o, err := relayOptions(c.settings, h)
		if err != nil {
			return err
		}
		if ep, err = relay.New(o); err != nil {
			return err
		}
	}
	if ep.Close != nil {
		defer ep.Close()
	}
	logger.Info("trident-mcp serving on stdio", slog.String("endpoint", ep.Path))
	return mcphttp.ServeStdio(ctx, ep, mcphttp.Config{Logger: logger, ProtocolVersions: c.host.ProtocolVersions}, &mcp.StdioTransport{})
}

// serveTridentOnLoopback serves ep (Trident) through the host on
// 127.0.0.1 at a port the kernel picks, for Relay's calls only: it returns
// the endpoint's URL and the function that stops it.
func serveTridentOnLoopback(c *config, ep *mcphttp.Endpoint, logger *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	c.host.InternalToken = internalToken()
	opts := c.host
	opts.PublicBaseURL = "http://" + ln.Addr().String()
	opts.Logger = logger
	srv, err := server.New(&opts, ep)
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: c.host.ReadHeaderTimeout}
	go hs.Serve(ln) //nolint:errcheck // ends with ErrServerClosed at stop
	return opts.PublicBaseURL + trident.Path, func() { hs.Close(); srv.Close() }, nil
}

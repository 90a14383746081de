// Command trident-mcp runs the Trident Taxis MCP server: Trident at /mcp and
// Relay rides at /mcp/rides behind one front door.
//
// Configuration comes from the environment; each variable has a flag of the
// same name in lower case with dashes (ADDR is -addr, BOOKING_BASE_URL is
// -booking-base-url), and a flag given on the command line wins over the
// variable. Every setting is described once, in the table of settings.go:
// the flags, -h, the reading of the environment and the README's
// configuration tables come from it, and options.go turns the values into
// each package's options (no package outside this command reads the
// environment).
//
// It logs JSON to stderr and shuts down gracefully on SIGTERM or SIGINT:
// it reports not ready and keeps serving for SHUTDOWN_DELAY, then lets
// calls in flight finish. -h prints the endpoints, every flag with
// its type and default, and examples; -version the version and the MCP
// protocol revisions. A mistake on the command line (an unknown flag, a
// value of the wrong type, a positional argument) exits 2.
// With -stdio it serves one endpoint's tools (Trident's unless it names
// another, -stdio=/mcp/rides) over MCP's stdio transport instead, for
// clients that launch a local binary: JSON-RPC on stdin and stdout, logs on
// stderr only.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/telemetry"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "trident-mcp:", err)
		if errors.As(err, new(usageError)) {
			fmt.Fprintln(os.Stderr, "Run 'trident-mcp -h' for the flags.")
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// config is the parsed command line and environment.
type config struct {
	version   bool   // -version: print it and exit
	stdio     string // -stdio: the endpoint to serve on stdin/stdout instead of HTTP (stdio.go); "" for HTTP
	fixtures  bool   // CONFORMANCE_FIXTURES: mount the conformance fixtures endpoint too (fixtures.go)
	addr      string
	logLevel  slog.Level
	gcPercent int             // GOGC: debug.SetGCPercent's argument (-1: off)
	host      server.Options  // what every endpoint shares
	trident   trident.Options // the Trident endpoint at /mcp
	geo       geo.Config      // Trident's back ends, built in run with the server's logger

	redisURL, redisPrefix string        // REDIS_URL, REDIS_KEY_PREFIX: the one Redis client (limiter.go)
	redisTimeout          time.Duration // REDIS_TIMEOUT: the budget of each of its calls

	tracing tracingSettings // OTEL_*: tracing.go

	// settings are every setting's value, for the options built once the
	// server listens (Relay's: relayOptions).
	settings values
}

// parseConfig reads the environment through env, then the flags in args.
// It returns a helpRequest for -h, and a usageError for a mistake on the
// command line; -version returns a config that says only that.
func parseConfig(args []string, env environ) (*config, error) {
	fs := flag.NewFlagSet("trident-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run prints -h and the errors itself
	v, err := defineSettings(fs, env)
	if err != nil {
		return nil, err
	}
	version := fs.Bool("version", false, "print the version and the MCP protocol revisions, and exit")
	stdio := &stdioFlag{}
	fs.Var(stdio, "stdio", stdioHelp)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, helpRequest{fs}
		}
		return nil, usageError{err}
	}
	// The flag package stops at the first argument that is not a flag, so
	// every flag after it would be silently ignored.
	if fs.NArg() > 0 {
		return nil, usageErrorf("unexpected argument %q: trident-mcp takes flags only (flags after it would be ignored)", fs.Arg(0))
	}
	if *version {
		return &config{version: true}, nil
	}
	v.markGiven(fs)
	c := &config{addr: v.get("ADDR"), stdio: stdio.path, fixtures: v.boolean("CONFORMANCE_FIXTURES"), settings: v,
		redisURL: v.get("REDIS_URL"), redisPrefix: v.get("REDIS_KEY_PREFIX"), redisTimeout: v.duration("REDIS_TIMEOUT")}
	if err := c.logLevel.UnmarshalText([]byte(v.get("LOG_LEVEL"))); err != nil {
		return nil, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", v.get("LOG_LEVEL"))
	}
	if c.gcPercent, err = gcPercent(v.get("GOGC")); err != nil {
		return nil, err
	}
	if c.redisTimeout <= 0 {
		return nil, fmt.Errorf("REDIS_TIMEOUT=%q: want a positive duration such as 250ms", v.get("REDIS_TIMEOUT"))
	}
	if c.host, err = hostOptions(v); err != nil {
		return nil, err
	}
	if c.trident, err = tridentOptions(v); err != nil {
		return nil, err
	}
	if c.geo, err = geoConfig(v); err != nil {
		return nil, err
	}
	if c.tracing, err = tracingConfig(v); err != nil {
		return nil, err
	}
	return c, nil
}

// gcPercent reads GOGC as the Go runtime does: a whole number of percent
// (a negative one, like off, turns the collector off), or off.
func gcPercent(v string) (int, error) {
	if v == "off" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("GOGC=%q: want a percent such as %d, or off", v, server.DefaultGCPercent)
	}
	return n, nil
}

func run(ctx context.Context, args []string, env environ, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, env)
	var help helpRequest
	switch {
	case errors.As(err, &help):
		usage(stdout, help.fs, env)
		return nil
	case err != nil:
		return err
	case c.version:
		printVersion(stdout)
		return nil
	}
	// The runtime has read GOGC itself at start; the setting's default
	// applies when it was not set ([server.DefaultGCPercent] says why it
	// is not Go's).
	debug.SetGCPercent(c.gcPercent)
	var logHandler slog.Handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: c.logLevel})
	if c.tracing.on {
		logHandler = telemetry.LogHandler(logHandler) // a traced call's lines carry trace_id and span_id
	}
	logger := slog.New(logHandler)
	// Before anything is built: the HTTP clients of the geo back ends and of
	// Relay's sources take the tracing transport as they are made.
	stopTracing, err := startTracing(ctx, c.tracing, logger)
	if err != nil {
		return err
	}
	defer stopTracing(context.WithoutCancel(ctx)) // last: flushes what the shutdown traced
	c.host.Logger, c.trident.Logger, c.geo.Logger = logger, logger, logger
	if c.trident.Geocoder, c.trident.Router, err = c.geo.Build(); err != nil {
		return err
	}
	if c.stdio != "" {
		return serveStdio(ctx, c, logger)
	}
	redisClient, closeRedis, err := openRedis(ctx, c)
	if err != nil {
		return err
	}
	defer closeRedis() // after srv.Close: the endpoints are done with it
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers a failed start
	if c.host.PublicBaseURL == "" {
		c.host.PublicBaseURL = listenBaseURL(c.addr, ln.Addr())
	}
	tridentEP, err := trident.New(&c.trident)
	if err != nil {
		return err
	}
	// Each MCP endpoint is one package; mounting another is one more
	// argument here.
	// Relay prices through this server's own /mcp; its calls there carry
	// a secret of this process and skip Trident's per-client rate limit.
	// Those calls are served in process by the host's handler (the same
	// front door, without a loopback socket each), bound once it exists.
	c.host.InternalToken = internalToken()
	var srv *server.Server
	self := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if srv == nil { // no call reaches Relay before Serve
			http.Error(w, "the host is still starting", http.StatusServiceUnavailable)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	})
	relayOpts, err := relayOptions(c.settings, relayHost{selfMCP: selfMCPURL(c.addr), internalToken: c.host.InternalToken, selfHandler: self,
		publicBaseURL: c.host.PublicBaseURL, redis: redisClient, redisPrefix: c.redisPrefix, logger: logger})
	if err != nil {
		return err
	}
	relayEP, err := relay.New(relayOpts)
	if err != nil {
		return err
	}
	endpoints, err := c.withFixtures(logger, tridentEP, relayEP)
	if err != nil {
		return err
	}
	if srv, err = server.New(&c.host, endpoints...); err != nil {
		return err
	}
	defer srv.Close()
	logger.Info("trident-mcp listening", slog.String("addr", ln.Addr().String()),
		slog.String("public_base_url", c.host.PublicBaseURL), slog.Bool("oauth", c.host.Auth != nil),
		slog.String("rate_limit", c.trident.RateLimit))
	return srv.Serve(ctx, ln)
}

// internalToken is a fresh secret for the host's own loopback calls
// (server.Options.InternalToken): 256 random bits, never written anywhere.
func internalToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("trident-mcp: no randomness for the internal token: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Command trident tries the Trident Taxis MCP service from a terminal, with
// the typed client underneath (retries, streaming, OAuth refresh):
//
//	trident tools [-v|-json] URL
//	trident call [-arg key=value]... [-json '{...}'|@file|-] TOOL URL
//	trident login [-client-id ID] [-port N] URL
//	trident conformance URL    (the MCP conformance suite's client mode)
//
// The endpoint URL is always the last argument besides flags (which may come
// anywhere), so scripts (and the MCP conformance runner, which appends the
// URL) can drive it. `trident -h` explains the flags, with examples. Tokens from login are kept in
// the token file (-tokens, default $XDG_CONFIG_HOME/trident/tokens.json)
// and used, and refreshed, by later commands at the same endpoint; they are
// never sent to another one.
//
// Exit status: 0 success, 1 failure, 2 usage error, 3 tool refusal
// (isError), 4 login needed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
)

const usage = `trident tries a Trident Taxis MCP endpoint from a terminal: it lists the
tools, calls them (with retries, progress and OAuth refresh), and signs in
when the server runs in OAuth mode.

usage:
  trident tools [flags] URL                 list the tools (-v: with their schemas)
  trident call  [flags] TOOL URL            call a tool, print its structured result
  trident login [flags] URL                 sign in (OAuth 2.1, PKCE) and keep the tokens
  trident conformance [flags] URL           run the MCP conformance scenario named in
                                            MCP_CONFORMANCE_SCENARIO (see trident conformance -h)

URL is the MCP endpoint, e.g. http://localhost:8080/mcp (make run) or
https://tridenttaxis.online/mcp. Flags may come before or after TOOL and URL.

common flags:
  -tokens FILE     token file (default: %s)
  -initialize      send initialize before the first call (default: only if the server asks)
  -timeout D       overall timeout (default 60s; 5m for login, which waits for you)
tools flags:
  -v               show each tool's description, hints, and input and output schemas
  -json            print the tools/list result as JSON
call flags:
  -arg key=value   an argument; value is JSON if it parses (6, true), else a string; repeatable
  -json J          arguments as a JSON object, @FILE, or - for stdin
  -progress=false  do not ask the server to stream progress
  -raw             print the whole result, not just structuredContent
login flags:
  -client-id ID    a pre-registered client (default: dynamic registration)
  -port N          loopback port for the redirect (default: any free port)
  -no-browser      only print the authorization URL

examples:
  trident tools http://localhost:8080/mcp
  trident tools http://localhost:8080/mcp -v
  trident call estimate_fare -arg pickup="Helensburgh Central Station" \
      -arg dropoff="Glasgow Airport" http://localhost:8080/mcp
  trident call start_booking -json @trip.json http://localhost:8080/mcp
  trident login https://tridenttaxis.online/mcp

exit status: 0 success, 1 failure, 2 usage error, 3 the tool refused the
input (isError), 4 sign-in needed (run trident login URL).
`

// version is sent as clientInfo.version in initialize.
const version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type argList []string

func (a *argList) String() string     { return strings.Join(*a, ",") }
func (a *argList) Set(v string) error { *a = append(*a, v); return nil }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defPath, _ := oauth.DefaultPath()
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, defPath)
		return 2
	}
	cmd := args[0]
	switch cmd {
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(stdout, usage, defPath)
		return 0
	case "conformance":
		return runConformance(args[1:], os.Getenv, stdout, stderr)
	case "tools", "call", "login":
	default:
		fmt.Fprintf(stderr, "trident: unknown command %q; the commands are tools, call, login and conformance (trident -h)\n", cmd)
		return 2
	}
	fs := flag.NewFlagSet("trident "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // errors are reported below; -h prints the usage to stdout
	tokens := fs.String("tokens", defPath, "token file")
	initialize := fs.Bool("initialize", false, "initialize first")
	timeout := fs.Duration("timeout", 60*time.Second, "overall timeout")
	var kv argList
	fs.Var(&kv, "arg", "key=value argument")
	// -json is the arguments of call, and for tools a switch to JSON output.
	jsonArgs, jsonOut, verbose := new(string), new(bool), new(bool)
	if cmd == "tools" {
		fs.BoolVar(jsonOut, "json", false, "print the tools/list result as JSON")
		fs.BoolVar(verbose, "v", false, "show each tool's schemas")
	} else {
		fs.StringVar(jsonArgs, "json", "", "arguments as JSON")
	}
	progress := fs.Bool("progress", true, "stream progress")
	raw := fs.Bool("raw", false, "print the whole result")
	clientID := fs.String("client-id", "", "pre-registered client id")
	port := fs.Int("port", 0, "redirect port")
	noBrowser := fs.Bool("no-browser", false, "do not open a browser")
	pos, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, usage, defPath)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "(trident -h lists the flags)\n")
		return 2
	}
	want := map[string]string{"tools": "URL", "call": "TOOL URL", "login": "URL"}[cmd]
	if len(pos) != len(strings.Fields(want)) {
		fmt.Fprintf(stderr, "usage: trident %s [flags] %s (got %d arguments besides flags: %q; trident -h for more)\n", cmd, want, len(pos), pos)
		return 2
	}
	endpoint := pos[len(pos)-1]
	if _, err := client.New(endpoint); err != nil {
		fmt.Fprintf(stderr, "trident: %v; the endpoint is a URL such as http://localhost:8080/mcp\n", err)
		return 2
	}
	if cmd == "login" && !flagSet(fs, "timeout") {
		*timeout = 5 * time.Minute // the user signs in in a browser meanwhile
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	store := oauth.NewFileStore(*tokens)
	opts := []client.Option{}
	if *initialize {
		opts = append(opts, client.WithHandshake(client.HandshakeAlways))
	}
	if cmd != "login" {
		rec, err := store.Load(ctx)
		switch {
		case errors.Is(err, oauth.ErrNoTokens):
		case err != nil:
			fmt.Fprintf(stderr, "trident: not using the saved tokens: %v\n", err)
		case !boundTo(rec.Resource, endpoint):
			// A token is bound to one resource (RFC 8707); sending it to
			// another server would hand that server the user's credentials.
			fmt.Fprintf(stderr, "trident: the saved tokens are for %s, not %s; calling without them\n", rec.Resource, endpoint)
		default:
			opts = append(opts, client.WithTokenSource(oauth.NewSource(store)))
		}
	}

	switch cmd {
	case "login":
		rec, err := oauth.Login(ctx, oauth.LoginConfig{
			Endpoint: endpoint, ClientID: *clientID, ClientName: "trident CLI", RedirectPort: *port, Store: store,
			OpenURL: func(u string) error {
				fmt.Fprintf(stderr, "Open this URL to sign in:\n\n  %s\n\n", u)
				if !*noBrowser {
					openBrowser(u)
				}
				return nil
			},
		})
		if err != nil {
			return report(stderr, err, endpoint, *timeout)
		}
		fmt.Fprintf(stderr, "Signed in; tokens saved to %s (access token expires %s).\n", store.Path(), rec.Expiry.Format(time.RFC3339))
		return 0
	case "tools":
		c, err := client.New(endpoint, opts...)
		if err != nil {
			fmt.Fprintln(stderr, "trident:", err)
			return 2
		}
		tools, err := c.ListTools(ctx)
		if err != nil {
			return report(stderr, err, endpoint, *timeout)
		}
		printTools(stdout, tools, *verbose, *jsonOut)
		return 0
	default: // call
		callArgs, err := buildArgs(*jsonArgs, kv, stdin)
		if err != nil {
			fmt.Fprintln(stderr, "trident:", err)
			return 2
		}
		c, err := client.New(endpoint, opts...)
		if err != nil {
			fmt.Fprintln(stderr, "trident:", err)
			return 2
		}
		var callOpts []client.CallOption
		if *progress {
			callOpts = append(callOpts, client.WithProgress(func(p client.Progress) {
				pct := ""
				if p.Total != nil && *p.Total > 0 {
					pct = fmt.Sprintf("%3.0f%% ", 100*p.Progress / *p.Total)
				}
				fmt.Fprintf(stderr, "… %s%s\n", pct, p.Message)
			}))
		}
		res, err := c.Call(ctx, pos[0], callArgs, nil, callOpts...)
		if err != nil {
			return report(stderr, err, endpoint, *timeout)
		}
		switch {
		case *raw:
			printJSON(stdout, res)
		case len(res.StructuredContent) == 0:
			fmt.Fprintln(stdout, res.Text())
		default:
			if t := res.Text(); t != "" {
				fmt.Fprintln(stderr, t)
			}
			printJSON(stdout, res.StructuredContent)
		}
		return 0
	}
}

// parseInterleaved parses flags wherever they stand among the positional
// arguments, which it returns in order: people type
// "trident call estimate_fare -arg pickup=... URL" as often as the flags
// first.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// boundTo reports whether tokens issued for resource may be sent to
// endpoint: the same URL, or the endpoint's origin when the server's root
// metadata named the origin as the resource (RFC 9728 §3.3).
func boundTo(resource, endpoint string) bool {
	norm := func(s string) string { return strings.TrimSuffix(s, "/") }
	if resource == "" {
		return false
	}
	if norm(resource) == norm(endpoint) {
		return true
	}
	u, err := url.Parse(endpoint)
	return err == nil && norm(resource) == u.Scheme+"://"+u.Host
}

// buildArgs merges -json and -arg: -arg values override keys of -json.
func buildArgs(jsonArg string, kv []string, stdin io.Reader) (map[string]any, error) {
	args := map[string]any{}
	if jsonArg != "" {
		var b []byte
		var err error
		switch {
		case jsonArg == "-":
			b, err = io.ReadAll(stdin)
		case strings.HasPrefix(jsonArg, "@"):
			b, err = os.ReadFile(jsonArg[1:])
		default:
			b = []byte(jsonArg)
		}
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &args); err != nil {
			return nil, fmt.Errorf("-json is not a JSON object: %w", err)
		}
	}
	for _, p := range kv {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-arg %q is not key=value", p)
		}
		var val any
		if json.Unmarshal([]byte(v), &val) != nil {
			val = v
		}
		args[k] = val
	}
	return args, nil
}

// report prints err for a person, with what to do about it, and picks the
// exit status.
func report(w io.Writer, err error, endpoint string, timeout time.Duration) int {
	var te *client.ToolError
	if errors.As(err, &te) {
		fmt.Fprintf(w, "%s refused: %s\n", te.Tool, te.Text)
		switch {
		case te.Retryable:
			fmt.Fprintf(w, "(%s: a service the tool needs is down; the same call may work in a minute)\n", te.Code)
		case te.Code != "":
			fmt.Fprintf(w, "(%s: change the input; sending it again gets the same answer)\n", te.Code)
		}
		return 3
	}
	fmt.Fprintln(w, "trident:", err)
	var tr *client.TransportError
	var re *client.RPCError
	switch {
	case errors.Is(err, oauth.ErrReconsentRequired) || errors.Is(err, oauth.ErrNoTokens) || errors.As(err, &tr) && tr.StatusCode == 401:
		fmt.Fprintf(w, "The server wants you signed in: trident login %s\n", endpoint)
		return 4
	case errors.As(err, &tr) && tr.StatusCode == 0 && tr.Err != nil && !errors.Is(tr.Err, context.DeadlineExceeded):
		// The last attempt could not connect (a deadline may have ended
		// the backoff after it): the server is the problem, not the wait.
		fmt.Fprintf(w, "Nothing answered at %s: is the server running (make run serves http://localhost:8080/mcp)?\n", endpoint)
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(w, "No answer within %s; a longer -timeout may help.\n", timeout)
	case errors.As(err, &re) && re.Code == -32601:
		fmt.Fprintf(w, "trident tools %s lists the tools this server has.\n", endpoint)
	case errors.As(err, &re) && re.Code == -32602:
		fmt.Fprintln(w, "Fix the argument named above (-arg key=value, or -json); the message says what the server expects.")
	case errors.As(err, &tr) && (tr.StatusCode == 404 || tr.StatusCode == 405):
		fmt.Fprintf(w, "No MCP endpoint at %s: check the path (it usually ends in /mcp).\n", endpoint)
	}
	return 1
}

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if raw, ok := v.(json.RawMessage); ok {
		var x any
		if json.Unmarshal(raw, &x) == nil {
			v = x
		}
	}
	enc.Encode(v)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// openBrowser tries the platform's opener; failure is fine, the URL is
// printed anyway.
func openBrowser(u string) {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	if _, err := exec.LookPath(name); err != nil {
		return
	}
	cmd := exec.Command(name, append(args, u)...)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

// Command trident tries the Trident Taxis MCP service from a terminal, with
// the typed client underneath (retries, streaming, OAuth refresh):
//
//	trident tools URL
//	trident call [-arg key=value]... [-json '{...}'|@file|-] TOOL URL
//	trident login [-client-id ID] [-port N] URL
//	trident conformance URL    (the MCP conformance suite's client mode)
//
// The endpoint URL always comes last, so scripts (and the MCP conformance
// runner, which appends the URL) can drive it. Tokens from login are kept in
// the token file (-tokens, default $XDG_CONFIG_HOME/trident/tokens.json)
// and used, and refreshed, by later commands.
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
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
)

const usage = `usage:
  trident tools [flags] URL                 list the tools
  trident call  [flags] TOOL URL            call a tool
  trident login [flags] URL                 sign in (OAuth 2.1, PKCE) and keep the tokens
  trident conformance [flags] URL           run the MCP conformance scenario named in
                                            MCP_CONFORMANCE_SCENARIO (see trident conformance -h)

common flags:
  -tokens FILE     token file (default: %s)
  -initialize      send initialize before the first call (default: only if the server asks)
  -timeout D       overall timeout (default 60s)
call flags:
  -arg key=value   an argument; value is JSON if it parses (6, true), else a string; repeatable
  -json J          arguments as a JSON object, @FILE, or - for stdin
  -progress=false  do not ask the server to stream progress
  -raw             print the whole result, not just structuredContent
login flags:
  -client-id ID    a pre-registered client (default: dynamic registration)
  -port N          loopback port for the redirect (default: any free port)
  -no-browser      only print the authorization URL
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" || args[0] == "--help" {
		fmt.Fprintf(stderr, usage, defPath)
		return 2
	}
	cmd := args[0]
	if cmd == "conformance" {
		return runConformance(args[1:], os.Getenv, stdout, stderr)
	}
	fs := flag.NewFlagSet("trident "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, usage, defPath) }
	tokens := fs.String("tokens", defPath, "token file")
	initialize := fs.Bool("initialize", false, "initialize first")
	timeout := fs.Duration("timeout", 60*time.Second, "overall timeout")
	var kv argList
	fs.Var(&kv, "arg", "key=value argument")
	jsonArgs := fs.String("json", "", "arguments as JSON")
	progress := fs.Bool("progress", true, "stream progress")
	raw := fs.Bool("raw", false, "print the whole result")
	clientID := fs.String("client-id", "", "pre-registered client id")
	port := fs.Int("port", 0, "redirect port")
	noBrowser := fs.Bool("no-browser", false, "do not open a browser")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	pos := fs.Args()
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "trident: the endpoint URL must be the last argument")
		return 2
	}
	endpoint := pos[len(pos)-1]

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	store := oauth.NewFileStore(*tokens)
	opts := []client.Option{}
	if *initialize {
		opts = append(opts, client.WithHandshake(client.HandshakeAlways))
	}
	if _, err := store.Load(ctx); err == nil {
		opts = append(opts, client.WithTokenSource(oauth.NewSource(store)))
	}

	switch cmd {
	case "login":
		if len(pos) != 1 {
			fmt.Fprintln(stderr, "usage: trident login [flags] URL")
			return 2
		}
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
			fmt.Fprintln(stderr, "trident:", err)
			return 1
		}
		fmt.Fprintf(stderr, "Signed in; tokens saved to %s (access token expires %s).\n", store.Path(), rec.Expiry.Format(time.RFC3339))
		return 0
	case "tools":
		if len(pos) != 1 {
			fmt.Fprintln(stderr, "usage: trident tools [flags] URL")
			return 2
		}
		c, err := client.New(endpoint, opts...)
		if err != nil {
			fmt.Fprintln(stderr, "trident:", err)
			return 2
		}
		tools, err := c.ListTools(ctx)
		if err != nil {
			return report(stderr, err, endpoint)
		}
		for _, t := range tools {
			fmt.Fprintf(stdout, "%-18s %s\n", t.Name, firstNonEmpty(t.Title, t.Description))
		}
		return 0
	case "call":
		if len(pos) != 2 {
			fmt.Fprintln(stderr, "usage: trident call [flags] TOOL URL")
			return 2
		}
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
			return report(stderr, err, endpoint)
		}
		if *raw || len(res.StructuredContent) == 0 {
			if len(res.StructuredContent) == 0 && !*raw {
				fmt.Fprintln(stdout, res.Text())
				return 0
			}
			printJSON(stdout, res)
			return 0
		}
		if t := res.Text(); t != "" {
			fmt.Fprintln(stderr, t)
		}
		printJSON(stdout, res.StructuredContent)
		return 0
	default:
		fmt.Fprintf(stderr, "trident: unknown command %q\n", cmd)
		fmt.Fprintf(stderr, usage, defPath)
		return 2
	}
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

// report prints err for a person and picks the exit status.
func report(w io.Writer, err error, endpoint string) int {
	var te *client.ToolError
	if errors.As(err, &te) {
		fmt.Fprintf(w, "%s refused: %s\n", te.Tool, te.Text)
		if te.Code != "" {
			fmt.Fprintf(w, "(%s)\n", te.Code)
		}
		return 3
	}
	fmt.Fprintln(w, "trident:", err)
	var tr *client.TransportError
	if errors.Is(err, oauth.ErrReconsentRequired) || errors.Is(err, oauth.ErrNoTokens) || errors.As(err, &tr) && tr.StatusCode == 401 {
		fmt.Fprintf(w, "The server wants you signed in: trident login %s\n", endpoint)
		return 4
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

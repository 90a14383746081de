package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
)

// conformanceUsage documents the entry point of the official MCP
// conformance suite's client mode (@modelcontextprotocol/conformance): the
// runner appends the test server's URL, names the scenario in
// MCP_CONFORMANCE_SCENARIO and passes credentials, when a scenario has
// them, in MCP_CONFORMANCE_CONTEXT.
const conformanceUsage = `usage: trident conformance [flags] URL

Runs one scenario of the MCP conformance suite's client mode against URL:
find the revision the server speaks (server/discover, else initialize),
list the tools, call the scenario's tools; on a 401 or a 403
insufficient_scope, discover, register (client ID metadata document,
pre-registered client from MCP_CONFORMANCE_CONTEXT, or dynamic registration),
authorize with PKCE S256 and RFC 8707 resource, and retry. The authorization
server's redirect is followed without a browser.

flags:
  -client-metadata-url U  client ID metadata document URL offered where the
                          issuer supports one ("" never; default: the suite's)
  -timeout D              overall timeout (default 25s, under the runner's 30s)
`

// suiteClientMetadataURL is the client ID metadata document URL the suite's
// auth/basic-cimd scenario expects (its servers never fetch it).
const suiteClientMetadataURL = "https://conformance-test.local/client-metadata.json"

// toolCall is one tools/call a scenario expects.
type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// play is what the client does in one scenario once it has listed the
// tools (which negotiates the revision, and authorizes when challenged).
type play func(ctx context.Context, c *client.Client, tools []client.Tool, out io.Writer) error

// plays names what each scenario expects of the client beyond tools/list;
// every auth/ scenario serves "test-tool". A scenario not listed gets
// tools/list alone, plus any toolCalls in its context.
var plays = map[string]play{
	"tools_call":                          callTools(toolCall{Name: "add_numbers", Arguments: map[string]any{"a": 5, "b": 3}}),
	"elicitation-sep1034-client-defaults": callTools(toolCall{Name: "test_client_elicitation_defaults"}),
	"sse-retry":                           callTools(toolCall{Name: "test_reconnection"}),
	// Multi round-trip requests (SEP-2322): two tools ask for input, one
	// is called in between and must carry none of their state, one answers
	// without a resultType.
	"sep-2322-client-request-state": callTools(
		toolCall{Name: "test_mrtr_echo_state"}, toolCall{Name: "test_mrtr_no_state"},
		toolCall{Name: "test_mrtr_unrelated"}, toolCall{Name: "test_mrtr_no_result_type"}),
	"http-standard-headers":            useEveryMethod,
	"http-invalid-tool-headers":        callEveryTool(map[string]any{"region": "us-west1"}),
	"json-schema-2020-12-preservation": echoSchema("json_schema_2020_12_tool", "json_schema_echo"),
}
var authPlay = callTools(toolCall{Name: "test-tool"})

// callTools calls each tool in turn; each must be one the server listed.
func callTools(calls ...toolCall) play {
	return func(ctx context.Context, c *client.Client, tools []client.Tool, out io.Writer) error {
		for _, call := range calls {
			if !slices.ContainsFunc(tools, func(t client.Tool) bool { return t.Name == call.Name }) {
				return fmt.Errorf("the server lists no tool %q", call.Name)
			}
			args := call.Arguments
			if args == nil {
				args = map[string]any{}
			}
			res, err := c.Call(ctx, call.Name, args, nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "tools/call %s: %s\n", call.Name, res.Text())
		}
		return nil
	}
}

// callEveryTool calls each tool the client kept from tools/list (those with
// invalid x-mcp-header marks are left out) with args.
func callEveryTool(args map[string]any) play {
	return func(ctx context.Context, c *client.Client, tools []client.Tool, out io.Writer) error {
		calls := make([]toolCall, len(tools))
		for i, t := range tools {
			calls[i] = toolCall{Name: t.Name, Arguments: args}
		}
		return callTools(calls...)(ctx, c, tools, out)
	}
}

// useEveryMethod calls the first tool, and lists and uses the first
// resource and prompt, so that each method's Mcp-Method and Mcp-Name
// headers are seen.
func useEveryMethod(ctx context.Context, c *client.Client, tools []client.Tool, out io.Writer) error {
	if len(tools) > 0 {
		if err := callTools(toolCall{Name: tools[0].Name})(ctx, c, tools, out); err != nil {
			return err
		}
	}
	var resources struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if err := c.Do(ctx, "resources/list", nil, &resources); err != nil {
		return err
	}
	if len(resources.Resources) > 0 {
		if err := c.Do(ctx, client.MethodResourcesRead, map[string]any{"uri": resources.Resources[0].URI}, nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "resources/read %s\n", resources.Resources[0].URI)
	}
	var prompts struct {
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
	}
	if err := c.Do(ctx, "prompts/list", nil, &prompts); err != nil {
		return err
	}
	if len(prompts.Prompts) > 0 {
		if err := c.Do(ctx, client.MethodPromptsGet, map[string]any{"name": prompts.Prompts[0].Name, "arguments": map[string]any{}}, nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "prompts/get %s\n", prompts.Prompts[0].Name)
	}
	return nil
}

// echoSchema passes the inputSchema the client received for tool, as it
// arrived, to the echo tool, which shows the referee what survived the
// client's parsing of tools/list.
func echoSchema(tool, echo string) play {
	return func(ctx context.Context, c *client.Client, tools []client.Tool, out io.Writer) error {
		i := slices.IndexFunc(tools, func(t client.Tool) bool { return t.Name == tool })
		if i < 0 {
			return fmt.Errorf("the server lists no tool %q", tool)
		}
		return callTools(toolCall{Name: echo, Arguments: map[string]any{"schema": tools[i].InputSchema}})(ctx, c, tools, out)
	}
}

// conformanceContext is MCP_CONFORMANCE_CONTEXT.
type conformanceContext struct {
	ClientID     string     `json:"client_id"`
	ClientSecret string     `json:"client_secret"`
	ToolCalls    []toolCall `json:"toolCalls"`
}

func runConformance(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trident conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	metadataURL := fs.String("client-metadata-url", suiteClientMetadataURL, "client ID metadata document URL")
	timeout := fs.Duration("timeout", 25*time.Second, "overall timeout")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, conformanceUsage)
		return 0
	} else if err != nil {
		fmt.Fprint(stderr, conformanceUsage)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "trident conformance: the endpoint URL must be the last argument")
		return 2
	}
	endpoint := fs.Arg(fs.NArg() - 1)
	scenario := getenv("MCP_CONFORMANCE_SCENARIO")
	if scenario == "" {
		fmt.Fprintln(stderr, "trident conformance: MCP_CONFORMANCE_SCENARIO is not set")
		return 2
	}
	var cc conformanceContext
	if raw := getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			fmt.Fprintf(stderr, "trident conformance: MCP_CONFORMANCE_CONTEXT: %v\n", err)
			return 2
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	hc := &http.Client{} // the context bounds everything, streams included
	az, err := oauth.NewAuthorizer(oauth.LoginConfig{
		Endpoint:          endpoint,
		HTTPClient:        hc,
		ClientID:          cc.ClientID,
		ClientSecret:      cc.ClientSecret,
		ClientMetadataURL: *metadataURL,
		ClientName:        "trident conformance client",
		OpenURL:           followRedirect(ctx, hc),
		Timeout:           15 * time.Second,
		Store:             &oauth.MemoryStore{},
	})
	if err != nil {
		fmt.Fprintln(stderr, "trident conformance:", err)
		return 1
	}
	c, err := client.New(endpoint,
		client.WithHTTPClient(hc),
		client.WithHandshake(client.HandshakeAlways),
		client.WithTokenSource(az),
		client.WithClientInfo("trident", version),
		// No user to ask: accept with the form's defaults, as a user who
		// submits an untouched form would (SEP-1034).
		client.WithElicitation(func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
			content := req.Defaults()
			if content == nil {
				content = map[string]any{}
			}
			return &client.ElicitResult{Action: "accept", Content: content}, nil
		}),
	)
	if err != nil {
		fmt.Fprintln(stderr, "trident conformance:", err)
		return 2
	}
	if err := playScenario(ctx, c, scenario, cc, stdout); err != nil {
		fmt.Fprintf(stderr, "trident conformance: %s: %v\n", scenario, err)
		return 1
	}
	return 0
}

// playScenario lists the tools (the client negotiates the revision, and
// initializes where that is a handshake revision), then plays the
// scenario's part and the tool calls its context names.
func playScenario(ctx context.Context, c *client.Client, scenario string, cc conformanceContext, out io.Writer) error {
	p, known := plays[scenario]
	if !known && strings.HasPrefix(scenario, "auth/") {
		p = authPlay
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: tools/list: %d tools\n", c.ProtocolVersion(), len(tools))
	if p != nil {
		if err := p(ctx, c, tools, out); err != nil {
			return err
		}
	}
	return callTools(cc.ToolCalls...)(ctx, c, tools, out)
}

// followRedirect plays the browser for an authorization server that
// approves at once (as the suite's do): it fetches the authorization URL and
// follows the redirect to the loopback callback, which hands the code to
// the waiting flow. Anything else (an error page, a login form) is an
// error, and a server that never answers is abandoned when ctx ends: either
// way, not a hang.
func followRedirect(ctx context.Context, hc *http.Client) func(string) error {
	return func(authURL string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		host := resp.Request.URL.Hostname()
		if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" || resp.Request.URL.Path != "/callback" {
			return fmt.Errorf("the authorization server did not redirect to the loopback callback (ended at %s, HTTP %d)", resp.Request.URL.Redacted(), resp.StatusCode)
		}
		if resp.StatusCode != http.StatusOK {
			return errors.New(strings.TrimSpace(string(body)))
		}
		return nil
	}
}

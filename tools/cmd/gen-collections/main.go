// Command gen-collections writes the API-client collections from contracts/:
// a Postman Collection v2.1.0, an Insomnia v4 export and the manifest listing
// both, into collections/. Each tool gets one request (built from its success
// sample) and every sample pair becomes an example request whose test script
// asserts the documented response; Relay's folders add its samples and one
// journey walked through every continue_journey status (journey.go).
// Output is deterministic (ids derive from names, dates are fixed) so
// `make check-generated` can compare it.
//
// Usage: go run ./tools/cmd/gen-collections -out collections
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// DefaultBaseURL is the specification's public server, the collections'
// default baseUrl: the one variable an API tester sets to point both
// collections at another server (http://localhost:8080 for make run).
const DefaultBaseURL = "https://tridenttaxis.online"

// DefaultEndpoint is the specification's public endpoint, what mcpEndpoint
// gives with the default baseUrl.
const DefaultEndpoint = DefaultBaseURL + "/mcp"

// DefaultRidesEndpoint is the Relay rides endpoint beside it, what
// ridesEndpoint gives with the default baseUrl.
const DefaultRidesEndpoint = DefaultEndpoint + "/rides"

// DefaultConnectorsEndpoint is Relay's connector-report route on the same
// host (POST /v1/session/connectors), what connectorsEndpoint gives with
// the default baseUrl.
const DefaultConnectorsEndpoint = DefaultBaseURL + "/v1/session/connectors"

// The endpoint variables are derived from baseUrl, so that one value
// moves every request: Postman and newman resolve a variable inside
// another's value ({{baseUrl}}/mcp), Insomnia renders its environment's
// templates ({{ _.baseUrl }}/mcp) the same way. Each can still be set on
// its own (a Relay on another host).
const (
	mcpEndpointValue        = "{{baseUrl}}/mcp"
	ridesEndpointValue      = "{{baseUrl}}/mcp/rides"
	connectorsEndpointValue = "{{baseUrl}}/v1/session/connectors"
)

// Folder names. `make test` runs the whole collection with newman against a
// public server and against one in OAuth mode (with a token); the OAuth
// folder skips itself against a public server.
const (
	FolderTools    = "Tools"
	FolderExamples = "Examples"
	FolderOAuth    = "OAuth mode"
	// FolderRelay holds the Relay rides requests (ridesEndpoint): the
	// samples that need no issued option or context of the server's own.
	FolderRelay = "Relay rides"
)

// relaySamples are the Relay samples the collections carry: each answers
// the same status on any server with the shipped provider registry and no
// provider credentials (the contexts in the refusal samples never verify).
var relaySamples = []string{
	"search_rides.handoff_available", "search_rides.success", "get_ride_booking_handoff.provider_entry",
	"errors/invalid_arguments", "errors/invalid_context",
}

func main() {
	out := flag.String("out", "collections", "directory to write the collections into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-collections:", err)
		os.Exit(1)
	}
}

// call is one request the collections carry.
type call struct {
	Name        string
	Folder      string
	Description string
	Body        json.RawMessage   // the JSON-RPC request, pretty-printed
	Headers     map[string]string // request header overrides (e.g. a narrower Accept)
	Expect      expectation
	// Anonymous: the request never carries a token (the 401 sample), so
	// it shows its documented answer even in a run that has one.
	Anonymous bool
	// Rides sends the request to ridesEndpoint instead of mcpEndpoint,
	// with ridesAccessToken.
	Rides bool
	// HTTP: a plain JSON request to connectorsEndpoint (the connector
	// report), not a JSON-RPC one.
	HTTP bool
}

// endpointVar is the variable holding the call's URL.
func (c call) endpointVar() string {
	switch {
	case c.HTTP:
		return "connectorsEndpoint"
	case c.Rides:
		return "ridesEndpoint"
	}
	return "mcpEndpoint"
}

// expectation is what the request's test script checks.
type expectation struct {
	Status     int             `json:"status"`
	Result     json.RawMessage `json:"result,omitempty"`     // exact result, for examples
	ResultOnly bool            `json:"resultOnly,omitempty"` // a result must be present (tool requests)
	ErrorCode  int             `json:"errorCode,omitempty"`  // JSON-RPC code expected
	ErrorText  string          `json:"errorText,omitempty"`  // isError text expected
	Streamed   bool            `json:"streamed,omitempty"`   // the request asks for SSE progress
	// Challenge: the reply must carry a Bearer WWW-Authenticate naming
	// resource_metadata (the 401 sample), where a client restarts OAuth.
	Challenge bool `json:"challenge,omitempty"`
	// ToolStatus is the structuredContent status expected (Relay), with
	// Refusal saying whether it comes with isError: true. Relay's answers
	// carry fresh ids and signatures, so only the status is compared.
	ToolStatus string `json:"toolStatus,omitempty"`
	Refusal    bool   `json:"refusal,omitempty"`
	// Save: collection variables the reply sets (name → JSONPath), for
	// the requests after it (the journey folder).
	Save map[string]string `json:"save,omitempty"`
	// ContinueJourney: a continue_journey reply, whose next_action must be
	// NextAction exactly (none unless ready) and whose missing_fields must
	// be MissingFields.
	ContinueJourney bool            `json:"continueJourney,omitempty"`
	NextAction      json.RawMessage `json:"nextAction,omitempty"`
	MissingFields   []string        `json:"missingFields,omitempty"`
	// Report is the stored connector report a POST /v1/session/connectors
	// must answer.
	Report json.RawMessage `json:"report,omitempty"`
}

func run(out string) error {
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		return err
	}
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		return err
	}
	byName := map[string]contracts.Sample{}
	for _, s := range samples {
		byName[s.Name] = s
	}
	var calls []call
	for _, t := range m.Tools {
		s, ok := byName[t.Name+".success"]
		if !ok {
			return fmt.Errorf("no success sample for tool %s", t.Name)
		}
		calls = append(calls, call{
			Name: t.Name, Folder: FolderTools, Description: t.Description,
			Body:   pretty(s.Request),
			Expect: expectation{Status: 200, ResultOnly: true},
		})
	}
	for _, s := range samples {
		c, err := exampleCall(s)
		if err != nil {
			return fmt.Errorf("sample %s: %w", s.Name, err)
		}
		calls = append(calls, c)
	}
	// One streamed call shows the SSE path: the start_booking sample with a progress token.
	if s, ok := byName["start_booking.success"]; ok {
		c, err := exampleCall(s)
		if err != nil {
			return err
		}
		var req map[string]any
		if err := json.Unmarshal(s.Request, &req); err != nil {
			return err
		}
		req["params"].(map[string]any)["_meta"] = map[string]any{"progressToken": "start-booking-1"}
		c.Name = "start_booking.success (streamed)"
		c.Description = "The start_booking sample with _meta.progressToken: the reply is text/event-stream with notifications/progress frames, then the final response frame with the request's id."
		c.Body = mustPretty(req)
		c.Expect.Streamed = true
		calls = append(calls, c)
	}

	rc, err := relayCalls()
	if err != nil {
		return err
	}
	calls = append(calls, rc...)
	jc, err := journeyCalls()
	if err != nil {
		return err
	}
	calls = append(calls, jc...)

	postman, err := postmanCollection(m, calls)
	if err != nil {
		return err
	}
	insomnia, err := insomniaExport(m, calls)
	if err != nil {
		return err
	}
	index := mustPretty(map[string]any{
		"description": "One-click API client collections for the " + m.Server.Name + " MCP endpoint and the Relay rides endpoint beside it. Variables: baseUrl (default " + DefaultBaseURL + ": set it alone to point every request at another server), from which mcpEndpoint (" + mcpEndpointValue + "), ridesEndpoint (" + ridesEndpointValue + ") and connectorsEndpoint (" + connectorsEndpointValue + ", where the host reports a session's connectors) are derived, accessToken and ridesAccessToken (blank; OAuth mode only: tokens for each endpoint's resource). The Relay journey folder runs in order: its first request opens a journey whose relay_context the others carry.",
		"collections": map[string]any{
			"postman":  map[string]string{"$ref": "trident.postman_collection.json", "name": "Postman collection", "format": "Postman Collection v2.1.0", "import": "Postman → File → Import → drop this file. For OAuth mode, edit the accessToken variable: the requests' pre-request scripts then send the Authorization header."},
			"insomnia": map[string]string{"$ref": "trident.insomnia.json", "name": "Insomnia workspace", "format": "Insomnia v4 export", "import": "Insomnia → Preferences → Data → Import → From File. Edit the Base environment (accessToken) for OAuth mode."},
		},
		"variables": []map[string]string{
			{"name": "baseUrl", "default": DefaultBaseURL},
			{"name": "mcpEndpoint", "default": mcpEndpointValue},
			{"name": "ridesEndpoint", "default": ridesEndpointValue},
			{"name": "connectorsEndpoint", "default": connectorsEndpointValue},
			{"name": "accessToken", "default": ""},
			{"name": "ridesAccessToken", "default": ""},
		},
	})
	files := map[string][]byte{
		"trident.postman_collection.json": postman,
		"trident.insomnia.json":           insomnia,
		"index.json":                      index,
		"embed.gen.go": []byte(`// Code generated by gen-collections from contracts/. DO NOT EDIT.

// Package collections embeds the generated API-client collections so the
// server can serve them under /mcp-schemas/collections/.
package collections

import "embed"

// FS holds index.json, trident.postman_collection.json and trident.insomnia.json.
//
//go:embed index.json trident.postman_collection.json trident.insomnia.json
var FS embed.FS
`),
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// relaySample is one Relay sample by name.
func relaySample(name string) (contracts.Sample, error) {
	samples, err := relaycontracts.Set.Samples()
	if err != nil {
		return contracts.Sample{}, err
	}
	for _, s := range samples {
		if s.Name == name {
			return s, nil
		}
	}
	return contracts.Sample{}, fmt.Errorf("no Relay sample %s", name)
}

// relayCalls are the Relay folder's requests, from the Relay samples.
func relayCalls() ([]call, error) {
	var out []call
	for _, name := range relaySamples {
		s, err := relaySample(name)
		if err != nil {
			return nil, err
		}
		var resp struct {
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Status string `json:"status"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(s.Response, &resp); err != nil || resp.Result.StructuredContent.Status == "" {
			return nil, fmt.Errorf("Relay sample %s: no structuredContent status (%v)", name, err)
		}
		out = append(out, call{
			Name: "rides/" + name, Folder: FolderRelay, Description: s.Description, Rides: true,
			Body: pretty(s.Request),
			Expect: expectation{Status: 200, ResultOnly: !resp.Result.IsError,
				ToolStatus: resp.Result.StructuredContent.Status, Refusal: resp.Result.IsError},
		})
	}
	return out, nil
}

// exampleCall turns a sample pair into a request whose script checks the
// sample's response.
func exampleCall(s contracts.Sample) (call, error) {
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(s.Response, &resp); err != nil {
		return call{}, err
	}
	c := call{
		Name: s.Name, Folder: FolderExamples, Description: s.Description,
		Body: pretty(s.Request), Headers: s.HTTP.RequestHeaders,
		Expect: expectation{Status: s.HTTP.Status},
	}
	if s.Mode == "oauth" {
		c.Folder = FolderOAuth
		c.Anonymous = s.HTTP.Status == 401
	}
	for k := range s.HTTP.Headers {
		if strings.EqualFold(k, "WWW-Authenticate") {
			c.Expect.Challenge = true
		}
	}
	switch {
	case resp.Error != nil:
		c.Expect.ErrorCode = resp.Error.Code
	case len(resp.Result) > 0:
		var r struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(resp.Result, &r); err != nil {
			return call{}, err
		}
		if r.IsError && len(r.Content) > 0 {
			c.Expect.ErrorText = r.Content[0].Text
		}
		c.Expect.Result = compact(resp.Result)
	default:
		return call{}, fmt.Errorf("response has neither result nor error")
	}
	if c.Expect.Status == 0 {
		c.Expect.Status = 200
	}
	return c, nil
}

// id derives a stable identifier from parts, so regenerating gives the same file.
func id(prefix string, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return prefix + hex.EncodeToString(h[:12])
}

func pretty(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func mustPretty(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// PostmanSchema is the Postman Collection v2.1.0 schema URL every v2.1 file names.
const PostmanSchema = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

type pmHeader struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Type        string `json:"type"`
	Disabled    bool   `json:"disabled,omitempty"`
	Description string `json:"description,omitempty"`
}

// headers returns the exact MCP Streamable HTTP headers every JSON-RPC
// request sends, with a sample's overrides (the 406 sample narrows Accept),
// or a plain JSON request's two. The Authorization header is added by each
// format's writer, since they spell the disabled flag and the variable
// differently.
func headers(c call) [][2]string {
	if c.HTTP {
		return [][2]string{{"Content-Type", "application/json"}, {"Accept", "application/json"}}
	}
	h := [][2]string{
		{"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"},
		{"MCP-Protocol-Version", "2025-06-18"},
	}
	for i := range h {
		if v, ok := c.Headers[h[i][0]]; ok {
			h[i][1] = v
		}
	}
	return h
}

// postmanValue is how Postman substitutes a chained value: the collection
// variable, inside the body's quotes for a string and bare for an object.
func postmanValue(v chained) string {
	if v.Object {
		return "{{" + v.Var + "}}"
	}
	return `"{{` + v.Var + `}}"`
}

func postmanCollection(m *contracts.Manifest, calls []call) ([]byte, error) {
	// The OAuth folder opens with the mode probe, whose answer lets the
	// folder's other requests skip themselves against a public server.
	folders := map[string][]any{FolderOAuth: {probeItem()}}
	var order []string
	for _, c := range calls {
		if !slices.Contains(order, c.Folder) {
			order = append(order, c.Folder)
		}
		var hs []pmHeader
		for _, h := range headers(c) {
			hs = append(hs, pmHeader{Key: h[0], Value: h[1], Type: "text"})
		}
		hs = append(hs, pmHeader{
			Key: "Authorization", Value: "Bearer {{" + tokenVar(c) + "}}", Type: "text", Disabled: true,
			Description: authDescription(c),
		})
		endpoint := "{{" + c.endpointVar() + "}}"
		test := testScript(c.Expect)
		if c.HTTP {
			test = reportTestScript(c.Expect)
		}
		folders[c.Folder] = append(folders[c.Folder], map[string]any{
			"name": c.Name,
			"event": []any{
				event("prerequest", c.Name, preRequestScript(c)),
				event("test", c.Name, test),
			},
			"request": map[string]any{
				"method":      "POST",
				"header":      hs,
				"body":        map[string]any{"mode": "raw", "raw": bodyFor(c, postmanValue), "options": map[string]any{"raw": map[string]any{"language": "json"}}},
				"url":         map[string]any{"raw": endpoint, "host": []string{endpoint}},
				"description": c.Description,
			},
			"response": []any{},
		})
	}
	descriptions := map[string]string{
		FolderTools:    "One request per MCP tool, with the exact headers and the JSON-RPC tools/call body. The test script asserts that a JSON-RPC result is present (JSON replies) or that the SSE stream ends with a framed response whose id matches.",
		FolderExamples: "Every sample pair from the contracts: the request and a test script asserting the documented response.",
		FolderOAuth:    "Samples that apply only when the operator has set MCP_REQUIRE_OAUTH=true. The first request reads the protected-resource metadata: when it names no authorization server the server is public, and the folder's other requests skip themselves, saying so in the console. The 401 sample is sent without a token, whatever accessToken holds.",
		FolderRelay:    "The Relay rides endpoint (ridesEndpoint): searches between coordinates, a provider entry handoff and two refusals. Each answer carries fresh ids and signatures, so the test script checks its status, not the sample's bytes. In OAuth mode Relay is its own resource: set ridesAccessToken to a token for it; without one these requests skip themselves.",
		FolderJourney:  "One Relay journey, in order: a search opens it (its test script keeps the reply's relay_context and journey_id in the journeyContext and journeyId variables), the host reports the session's connectors to connectorsEndpoint (POST /v1/session/connectors), and continue_journey answers every status the specification lists: installation_unknown, ready with next_action, proposal with missing_fields, connection_required, disabled, unauthorized and unavailable. In OAuth mode the requests use ridesAccessToken, which needs the rides:read and journeys:write scopes.",
	}
	var items []any
	for _, f := range order {
		items = append(items, map[string]any{"name": f, "description": descriptions[f], "item": folders[f]})
	}
	coll := map[string]any{
		"info": map[string]any{
			"_postman_id": uuidFrom("postman", m.Server.Name, m.Server.Version),
			"name":        "Trident Taxis MCP",
			"description": "MCP Streamable HTTP (protocol " + m.Server.ProtocolVersion + ") requests for " + m.Server.Name + " " + m.Server.Version + ", generated from contracts/. Public mode needs no credentials; for OAuth mode paste an access token into accessToken: each request's pre-request script then sends it as the Authorization header. Every folder passes against a server in either mode.",
			"schema":      PostmanSchema,
		},
		"item": items,
		"variable": []map[string]string{
			{"key": "baseUrl", "value": DefaultBaseURL, "type": "string", "description": "The server: set this one value to point every request elsewhere (http://localhost:8080 for make run)."},
			{"key": "mcpEndpoint", "value": mcpEndpointValue, "type": "string", "description": "Trident's MCP endpoint, derived from baseUrl."},
			{"key": "ridesEndpoint", "value": ridesEndpointValue, "type": "string", "description": "The Relay rides endpoint, derived from baseUrl."},
			{"key": "connectorsEndpoint", "value": connectorsEndpointValue, "type": "string", "description": "Where the host reports a session's connectors, derived from baseUrl."},
			{"key": "accessToken", "value": "", "type": "string"},
			{"key": "ridesAccessToken", "value": "", "type": "string"},
			{"key": journeyContext.Var, "value": "", "type": "string", "description": "Set by \"" + journeySearch + "\": the relay_context of its reply."},
			{"key": journeyID.Var, "value": "", "type": "string", "description": "Set by \"" + journeySearch + "\": the journey_id of its reply."},
		},
	}
	return mustPretty(coll), nil
}

// ProbeName is the first request of the OAuth folder.
const ProbeName = "Read the protected-resource metadata"

// probeItem is the mode probe: GET of the protected-resource metadata at the
// root of mcpEndpoint's origin, as the specification shows it (RFC 9728).
func probeItem() map[string]any {
	return map[string]any{
		"name": ProbeName,
		"event": []any{
			event("prerequest", ProbeName, probePreRequestScript()),
			event("test", ProbeName, probeTestScript()),
		},
		"request": map[string]any{
			"method":      "GET",
			"header":      []pmHeader{{Key: "Accept", Value: "application/json", Type: "text"}},
			"url":         map[string]any{"raw": "{{resourceMetadataUrl}}", "host": []string{"{{resourceMetadataUrl}}"}},
			"description": "GET /.well-known/oauth-protected-resource on the MCP host: authorization_servers names the issuer in OAuth mode and is empty in public mode. The answer decides whether the rest of this folder runs.",
		},
		"response": []any{},
	}
}

func event(listen, name string, exec []string) map[string]any {
	return map[string]any{
		"listen": listen,
		"script": map[string]any{"id": id("", "postman-"+listen, name), "type": "text/javascript", "exec": exec},
	}
}

func authDescription(c call) string {
	if c.Anonymous {
		return "Left disabled on purpose: this request shows what a call without a token gets."
	}
	return "OAuth mode only (MCP_REQUIRE_OAUTH=true): the pre-request script sends it when the " + tokenVar(c) + " variable is set; public mode sends none."
}

// tokenVar is the variable holding a call's bearer token: Relay is a
// resource of its own (RFC 8707), so a token for mcpEndpoint is not one
// for ridesEndpoint or the connector reports beside it.
func tokenVar(c call) string {
	if c.Rides {
		return "ridesAccessToken"
	}
	return "accessToken"
}

// uuidFrom makes a deterministic version-5-style UUID from parts.
func uuidFrom(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

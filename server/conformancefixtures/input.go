package conformancefixtures

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// The fixtures that ask the client for something: an LLM completion
// (sampling/createMessage), the user's input (elicitation/create), its
// roots (roots/list). Each is written once, as SEP-2322 has it: the
// handler answers with input requests, and with its result once the call
// comes back with the answers. The front door serves that both ways: a
// 2026-07-28 client gets the input_required result and retries; for a
// 2025-11-25 session's client the go-sdk sends the requests itself, on the
// call's stream, and calls the handler again with the answers
// (tools-call-sampling, tools-call-elicitation, the elicitation-sep*
// scenarios). The requestState each returns is sealed by the front door,
// which refuses a tampered one before the handler sees it.

// inputTools are the fixtures of tools-call-sampling,
// tools-call-elicitation, elicitation-sep1034-defaults,
// elicitation-sep1330-enums and the input-required-result-* scenarios.
func inputTools() []mcphttp.Tool {
	tool := func(name, desc string, schema any, h mcp.ToolHandler) mcphttp.Tool {
		if schema == nil {
			schema = objectSchema
		}
		return mcphttp.Tool{Def: &mcp.Tool{Name: name, Description: desc, InputSchema: schema}, Handler: h, NeedsInput: true}
	}
	return []mcphttp.Tool{
		tool("test_sampling", "Asks the client's LLM to complete the prompt given (sampling/createMessage)",
			json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"what to ask the LLM"}},"required":["prompt"]}`),
			testSampling),
		tool("test_elicitation", "Asks the user for a username and an email (elicitation/create)",
			json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"what to tell the user"}},"required":["message"]}`),
			testElicitation),
		tool("test_elicitation_sep1034_defaults", "Asks the user with a schema whose every primitive has a default (SEP-1034)", nil,
			elicitOnce("Test defaults for primitives", sep1034Schema)),
		tool("test_elicitation_sep1330_enums", "Asks the user with each of the five enum schemas (SEP-1330)", nil,
			elicitOnce("Test enum schemas", sep1330Schema)),
		tool("test_input_required_result_elicitation", "Asks for the caller's name, then greets them", nil, askName),
		tool("test_input_required_result_sampling", "Asks the client's LLM for the capital of France", nil, askCapital),
		tool("test_input_required_result_list_roots", "Asks the client for its roots", nil, askRoots),
		tool("test_input_required_result_request_state", "Asks for a confirmation, with a requestState it checks on the retry", nil,
			confirmWithState("request_state")),
		tool("test_input_required_result_tampered_state", "Asks for a confirmation; a retry with a tampered requestState is refused", nil,
			confirmWithState("tampered_state")),
		tool("test_input_required_result_multiple_inputs", "Asks for a name, an LLM greeting and the roots in one round", nil, askAll),
		tool("test_input_required_result_multi_round", "Asks for a name, then a colour, carrying the name in its requestState", nil, askTwice),
		tool("test_input_required_result_capabilities", "Asks only for the kinds of input the client declared it can give", nil, askWhatIsDeclared),
	}
}

// accepted is the content of the accepted elicitation answered under key,
// or nil.
func accepted(answers mcp.InputResponseMap, key string) map[string]any {
	if r, ok := answers[key].(*mcp.ElicitResult); ok && r != nil && r.Action == "accept" {
		return r.Content
	}
	return nil
}

// sampled is the text of the LLM completion answered under key.
func sampled(answers mcp.InputResponseMap, key string) (string, bool) {
	r, ok := answers[key].(*mcp.CreateMessageWithToolsResult)
	if !ok || r == nil {
		return "", false
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "(no text)", true
}

// elicit is an elicitation of a form with the given JSON schema.
func elicit(message, schema string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)}
}

// sample is a sampling request of one user message.
func sample(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	}
}

func needs(reqs mcp.InputRequestMap, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}
}

const nameSchema = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`

func testSampling(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
		return nil, missingCapability("sampling")
	}
	if s, ok := sampled(req.Params.InputResponses, "completion"); ok {
		return text("LLM response: " + s), nil
	}
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Prompt == "" {
		return nil, &mcphttp.ArgumentError{Field: "prompt", Reason: "Required"}
	}
	return needs(mcp.InputRequestMap{"completion": sample(in.Prompt, 100)}, ""), nil
}

func testElicitation(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
		return nil, missingCapability("elicitation")
	}
	if r, ok := req.Params.InputResponses["user"].(*mcp.ElicitResult); ok && r != nil {
		return text(fmt.Sprintf("User response: action=%s, content=%v", r.Action, r.Content)), nil
	}
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Message == "" {
		return nil, &mcphttp.ArgumentError{Field: "message", Reason: "Required"}
	}
	return needs(mcp.InputRequestMap{"user": elicit(in.Message, `{"type":"object","properties":{`+
		`"username":{"type":"string","description":"User's response"},`+
		`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)}, ""), nil
}

// elicitOnce asks the user once with schema and reports what they did.
func elicitOnce(message, schema string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := req.Params.InputResponses["form"].(*mcp.ElicitResult); ok && r != nil {
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%v", r.Action, r.Content)), nil
		}
		return needs(mcp.InputRequestMap{"form": elicit(message, schema)}, ""), nil
	}
}

const sep1034Schema = `{"type":"object","properties":{
	"name":{"type":"string","description":"User name","default":"John Doe"},
	"age":{"type":"integer","description":"User age","default":30},
	"score":{"type":"number","description":"User score","default":95.5},
	"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","description":"Verification status","default":true}}}`

const sep1330Schema = `{"type":"object","properties":{
	"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
	"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
	"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
	"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
	"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`

// askName re-asks until the retry carries an accepted name under
// user_name: a missing or wrong key, or an answer that is not one, is
// asked again rather than refused (SEP-2322).
func askName(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if name, _ := accepted(req.Params.InputResponses, "user_name")["name"].(string); name != "" {
		return text("Hello, " + name + "!"), nil
	}
	return needs(mcp.InputRequestMap{"user_name": elicit("What is your name?", nameSchema)}, ""), nil
}

func askCapital(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if s, ok := sampled(req.Params.InputResponses, "capital_question"); ok {
		return text("Sampling response: " + s), nil
	}
	return needs(mcp.InputRequestMap{"capital_question": sample("What is the capital of France?", 100)}, ""), nil
}

func askRoots(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r, ok := req.Params.InputResponses["client_roots"].(*mcp.ListRootsResult); ok && r != nil {
		uris := make([]string, 0, len(r.Roots))
		for _, root := range r.Roots {
			uris = append(uris, root.URI)
		}
		return text(fmt.Sprintf("The client has %d root(s): %s", len(uris), strings.Join(uris, ", "))), nil
	}
	return needs(mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}, ""), nil
}

// confirmWithState asks for a confirmation with requestState state, and
// completes only on a retry that brings it back (as the front door opened
// it: a tampered one never gets here) with the confirmation.
func confirmWithState(state string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if accepted(req.Params.InputResponses, "confirm") != nil && req.Params.RequestState == state {
			return text("state-ok: the requestState came back intact and the confirmation was accepted"), nil
		}
		return needs(mcp.InputRequestMap{"confirm": elicit("Please confirm",
			`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}, state), nil
	}
}

func askAll(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answers := req.Params.InputResponses
	name, _ := accepted(answers, "user_name")["name"].(string)
	greeting, greeted := sampled(answers, "greeting")
	roots, rooted := answers["client_roots"].(*mcp.ListRootsResult)
	if name != "" && greeted && rooted && roots != nil && req.Params.RequestState == "multiple_inputs" {
		return text(fmt.Sprintf("%s %s: %d root(s)", greeting, name, len(roots.Roots))), nil
	}
	return needs(mcp.InputRequestMap{
		"user_name":    elicit("What is your name?", nameSchema),
		"greeting":     sample("Generate a greeting", 50),
		"client_roots": &mcp.ListRootsParams{},
	}, "multiple_inputs"), nil
}

// askTwice runs two rounds; its state says which round the retry answers
// and carries the first answer, since the server keeps nothing.
func askTwice(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	state := req.Params.RequestState
	switch {
	case state == "round=1":
		name, _ := accepted(req.Params.InputResponses, "step1")["name"].(string)
		if name == "" {
			name = "someone"
		}
		return needs(mcp.InputRequestMap{"step2": elicit("Step 2: What is your favorite color?",
			`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)}, "round=2;name="+name), nil
	case strings.HasPrefix(state, "round=2;name="):
		color, _ := accepted(req.Params.InputResponses, "step2")["color"].(string)
		if color == "" {
			color = "no colour"
		}
		return text(fmt.Sprintf("Multi-round complete: %s likes %s", strings.TrimPrefix(state, "round=2;name="), color)), nil
	}
	return needs(mcp.InputRequestMap{"step1": elicit("Step 1: What is your name?", nameSchema)}, "round=1"), nil
}

// askWhatIsDeclared asks only for what the client's capabilities cover
// (SEP-2322: a server MUST NOT ask for input a client cannot give).
func askWhatIsDeclared(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if len(req.Params.InputResponses) > 0 {
		return text("Every input the client could give was given."), nil
	}
	caps := req.ClientCapabilities()
	reqs := mcp.InputRequestMap{}
	if caps != nil && caps.Elicitation != nil {
		reqs["user_name"] = elicit("What is your name?", nameSchema)
	}
	if caps != nil && caps.Sampling != nil {
		reqs["greeting"] = sample("Generate a short greeting", 50)
	}
	if caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged) {
		reqs["client_roots"] = &mcp.ListRootsParams{}
	}
	if len(reqs) == 0 {
		return text("The client declared no capability that can give input."), nil
	}
	return needs(reqs, ""), nil
}

package conformancefixtures

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// prompts are the fixtures of the prompts-* scenarios and of
// input-required-result-non-tool-request.
func (f *fixtures) prompts() []mcphttp.Prompt {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	return []mcphttp.Prompt{
		{
			Def: &mcp.Prompt{Name: "test_simple_prompt", Title: "Simple prompt", Description: "A prompt without arguments"},
			Handler: func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "A simple prompt",
					Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
			},
		},
		{
			Def: &mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt with arguments", Description: "A prompt with two required arguments",
				Arguments: []*mcp.PromptArgument{
					{Name: "arg1", Description: "First argument", Required: true},
					{Name: "arg2", Description: "Second argument", Required: true},
				}},
			Handler: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				a := req.Params.Arguments
				return &mcp.GetPromptResult{Description: "A prompt with arguments", Messages: []*mcp.PromptMessage{
					user(&mcp.TextContent{Text: "Prompt with arguments: arg1='" + a["arg1"] + "', arg2='" + a["arg2"] + "'"})}}, nil
			},
		},
		{
			Def: &mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt with an embedded resource",
				Description: "A prompt that embeds the resource named",
				Arguments:   []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
			Handler: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "A prompt with an embedded resource", Messages: []*mcp.PromptMessage{
					user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
						URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
					}}),
					user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
				}}, nil
			},
		},
		{
			Def: &mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt with an image", Description: "A prompt that includes an image"},
			Handler: func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "A prompt with an image", Messages: []*mcp.PromptMessage{
					user(&mcp.ImageContent{Data: redPixel(), MIMEType: "image/png"}),
					user(&mcp.TextContent{Text: "Please analyze the image above."}),
				}}, nil
			},
		},
		{
			// SEP-2322: input requests are for prompts/get too.
			Def: &mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks the user for context before it is written"},
			Handler: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				if c, _ := accepted(req.Params.InputResponses, "user_context")["context"].(string); c != "" {
					return &mcp.GetPromptResult{Description: "A prompt with the context given",
						Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: "Context: " + c})}}, nil
				}
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": elicit("What context should the prompt use?",
					`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)}}, nil
			},
		},
	}
}

// completionWords are what completion/complete offers for the arguments of
// test_prompt_with_arguments.
var completionWords = []string{"paris", "park", "party", "test", "testValue1", "testValue2"}

// complete offers the completion words that start with what the user typed
// for a prompt argument, and template ids for test://template/{id}/data.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	switch ref := req.Params.Ref; {
	case ref.Type == "ref/prompt" && ref.Name == "test_prompt_with_arguments":
		for _, w := range completionWords {
			if strings.HasPrefix(strings.ToLower(w), strings.ToLower(req.Params.Argument.Value)) {
				values = append(values, w)
			}
		}
	case ref.Type == "ref/resource" && ref.URI == templateURI && req.Params.Argument.Name == "id":
		for _, id := range []string{"1", "2", "3", "123"} {
			if strings.HasPrefix(id, req.Params.Argument.Value) {
				values = append(values, id)
			}
		}
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

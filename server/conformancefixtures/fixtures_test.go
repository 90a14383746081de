package conformancefixtures_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"image/png"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/conformancefixtures"
)

// The fixtures the 0.2 line's server scenarios call by name, as their
// descriptions in node_modules/mcp-conformance-0-2 list them.
var (
	suiteTools = []string{
		"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress", "test_error_handling",
		"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		"json_schema_2020_12_tool", "test_reconnection", "test_missing_capability", "test_streaming_elicitation",
		"test_logging_tool", "test_trigger_tool_change", "test_trigger_prompt_change",
		"test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
		"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task",
	}
	suitePrompts   = []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"}
	suiteResources = []string{"test://static-text", "test://static-binary", "test://watched-resource"}
)

// connect mounts the fixtures on a host and connects the go-sdk's client
// at revision rev.
func connect(t *testing.T, rev string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ep, err := conformancefixtures.New(&conformancefixtures.Options{Second: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(&server.Options{PublicBaseURL: "http://127.0.0.1", Logger: slog.New(slog.DiscardHandler)}, ep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + conformancefixtures.Path}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestServesWhatTheSuiteCalls lists every tool, prompt, resource and
// template the suite's scenarios call.
func TestServesWhatTheSuiteCalls(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, "2026-07-28", nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		names = append(names, r.URI)
	}
	for _, want := range slices.Concat(suiteTools, suitePrompts, suiteResources) {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not served", want)
		}
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "test://template/{id}/data" {
		t.Errorf("resource templates: %v %+v", err, tmpl)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/123/data"})
	if err != nil || !strings.Contains(r.Contents[0].Text, `"id":"123"`) {
		t.Errorf("the template with id 123: %v %+v", err, r)
	}
}

// TestMedia checks the fixtures' image and audio: a PNG that decodes to
// one red pixel, a WAV whose RIFF sizes add up.
func TestMedia(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, "2026-07-28", nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_multiple_content_types", Arguments: map[string]any{}})
	if err != nil || len(res.Content) != 3 {
		t.Fatalf("test_multiple_content_types: %v %+v", err, res)
	}
	img, err := png.Decode(bytes.NewReader(res.Content[1].(*mcp.ImageContent).Data))
	if err != nil || img.Bounds().Dx() != 1 {
		t.Fatalf("the image: %v", err)
	}
	if r, g, _, a := img.At(0, 0).RGBA(); r != 0xffff || g != 0 || a != 0xffff {
		t.Errorf("the pixel is %v, want red", img.At(0, 0))
	}
	audio, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_audio_content", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	wav := audio.Content[0].(*mcp.AudioContent).Data
	if string(wav[:4]) != "RIFF" || string(wav[8:12]) != "WAVE" || int(binary.LittleEndian.Uint32(wav[4:8])) != len(wav)-8 ||
		int(binary.LittleEndian.Uint32(wav[40:44])) != len(wav)-44 {
		t.Errorf("the WAV header does not describe its %d bytes", len(wav))
	}
}

// TestSamplingInASession asks a 2025-11-25 client's LLM in the middle of
// test_sampling (a request on the call's stream, in the client's session),
// and a 2026-07-28 client through an input_required result it answers and
// retries; the answer is the same.
func TestSamplingInASession(t *testing.T) {
	llm := func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "asked: " + req.Params.Messages[0].Content.(*mcp.TextContent).Text}}, nil
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		cs := connect(t, rev, &mcp.ClientOptions{CreateMessageHandler: llm})
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "hi"}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "LLM response: asked: hi" {
			t.Errorf("%s: %v %+v", rev, err, res)
		}
	}
}

package conformancefixtures

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// contentTools answer with each kind of content block: the tools-call-*
// scenarios, tools-call-error, json-schema-2020-12 and
// http-custom-header-server-validation.
func contentTools() []mcphttp.Tool {
	return []mcphttp.Tool{
		{
			Def: &mcp.Tool{Name: "test_simple_text", Description: "Answers with one text block", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("This is a simple text response for testing."), nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_image_content", Description: "Answers with a PNG image (one red pixel)", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: redPixel(), MIMEType: "image/png"}}}, nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_audio_content", Description: "Answers with a WAV clip (a moment of silence)", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: silence(), MIMEType: "audio/wav"}}}, nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_embedded_resource", Description: "Answers with an embedded text resource", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
				}}}}, nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_multiple_content_types", Description: "Answers with text, an image and an embedded resource", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					&mcp.TextContent{Text: "Multiple content types test:"},
					&mcp.ImageContent{Data: redPixel(), MIMEType: "image/png"},
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
						URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
					}},
				}}, nil
			},
		},
		{
			Def: &mcp.Tool{Name: "test_error_handling", Description: "Always refuses: an isError result", InputSchema: objectSchema},
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &mcphttp.ToolError{Code: "TEST_ERROR", Text: "This tool intentionally returns an error for testing"}
			},
		},
		{
			// SEP-1613 and SEP-2106: tools/list must keep every keyword of
			// a Draft 2020-12 schema as written.
			Def: &mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Declares a JSON Schema 2020-12 input schema ($defs, $anchor, allOf/anyOf, if/then/else)",
				InputSchema: json.RawMessage(jsonSchema202012)},
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("json_schema_2020_12_tool called with " + string(req.Params.Arguments)), nil
			},
		},
		{
			// SEP-2243: region travels in the Mcp-Param-Region header too,
			// which the go-sdk checks against the body.
			Def: &mcp.Tool{Name: "test_x_mcp_header", Description: "Has an argument mirrored into the Mcp-Param-Region header (SEP-2243)",
				InputSchema: json.RawMessage(`{"type":"object","properties":{` +
					`"region":{"type":"string","description":"mirrored into Mcp-Param-Region","x-mcp-header":"Region"},` +
					`"level":{"type":"integer","description":"not mirrored"}}}`)},
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct {
					Region string `json:"region"`
				}
				json.Unmarshal(req.Params.Arguments, &in) // a bad body is the go-sdk's header-mismatch answer before this
				return text("region=" + in.Region), nil
			},
		},
	}
}

// jsonSchema202012 is json_schema_2020_12_tool's input schema, as the
// json-schema-2020-12 scenario lists it.
const jsonSchema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

// redPixel is a 1x1 PNG of one red pixel, encoded once.
var redPixel = sync.OnceValue(func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic("conformancefixtures: encoding a PNG in memory: " + err.Error())
	}
	return b.Bytes()
})

// silence is a WAV file (RIFF, PCM, 8 kHz, mono, 16-bit) of ten samples of
// silence, built once.
var silence = sync.OnceValue(func() []byte {
	const rate, samples = 8000, 10
	data := make([]byte, samples*2)
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) } // a bytes.Buffer never fails
	b.WriteString("RIFF")
	w(uint32(36 + len(data)))
	b.WriteString("WAVEfmt ")
	w(uint32(16))       // fmt chunk size
	w(uint16(1))        // PCM
	w(uint16(1))        // channels
	w(uint32(rate))     // sample rate
	w(uint32(rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits per sample
	b.WriteString("data")
	w(uint32(len(data)))
	b.Write(data)
	return b.Bytes()
})

package contracts_test

// Tests of openapi.yaml. The JSON Schemas under schemas/ are the source of
// truth for tool arguments and results; the OpenAPI document carries copies of
// them as component schemas, and these tests fail as soon as a copy and its
// file say different things. They also check that every sample validates
// against the POST /mcp body schemas and is the document's example of that
// name, that the documented error responses admit what errors.json promises,
// and that the routes of the generated server do not collide.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/api"
)

// oaURL is the base URL the OpenAPI document is compiled under, so that its
// "#/components/schemas/..." references resolve inside it.
const oaURL = "https://tridenttaxis.online/openapi.json"

// oaLoad returns openapi.yaml as plain JSON values (map[string]any, []any,
// float64, string, bool, nil), the same shapes encoding/json gives the schema
// files, so that the two compare with cmp.
func oaLoad(t *testing.T) map[string]any {
	t.Helper()
	b, err := contracts.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var y any
	if err := yaml.Unmarshal(b, &y); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	j, err := json.Marshal(y)
	if err != nil {
		t.Fatalf("openapi.yaml does not convert to JSON: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// oaJSON reads a JSON file of the Trident contracts into plain values.
func oaJSON(t *testing.T, name string) any {
	t.Helper()
	b, err := tridentcontracts.Set.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// oaAt follows a JSON pointer-like path of keys through plain values.
func oaAt(t *testing.T, v any, path ...string) any {
	t.Helper()
	for i, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object", strings.Join(path[:i], "/"))
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("no %s", strings.Join(path[:i+1], "/"))
		}
	}
	return v
}

// ---- schema equivalence -------------------------------------------------------

// schemaMapKeywords hold an object of named subschemas; schemaKeywords a
// subschema; schemaListKeywords a list of them. Every other keyword is a value
// compared as it is (enum, default, required, minLength...).
var (
	schemaMapKeywords  = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
	schemaKeywords     = []string{"items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// dropped are keywords that say nothing about the instances a schema accepts
// and legitimately differ between a standalone file and an OpenAPI component:
// identity, the dialect, where definitions live ($refs are inlined), comments
// and extensions (x-*).
var dropped = map[string]bool{"$schema": true, "$id": true, "$defs": true, "definitions": true, "$comment": true, "$anchor": true}

// canonical rewrites a schema so that two schemas that say the same thing
// compare equal: references are inlined; OpenAPI 3.0 spellings become their
// 2020-12 equivalents (nullable: true -> a "null" type; boolean
// exclusiveMinimum/Maximum -> numeric ones); const becomes a one-value enum;
// type is always a sorted list, inferred from an enum of booleans or strings
// when absent; required is sorted. Titles and descriptions are kept: the copy
// must document what the file documents.
func canonical(s any, resolve func(ref string) (any, error), depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("references nest deeper than 64 (a cycle?)")
	}
	m, ok := s.(map[string]any)
	if !ok {
		return s, nil // true / false schemas
	}
	if ref, ok := m["$ref"].(string); ok {
		target, err := resolve(ref)
		if err != nil {
			return nil, err
		}
		tm, ok := target.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a schema object", ref)
		}
		merged := map[string]any{}
		for k, v := range tm {
			merged[k] = v
		}
		for k, v := range m {
			if k != "$ref" {
				merged[k] = v
			}
		}
		return canonical(merged, resolve, depth+1)
	}
	out := map[string]any{}
	for k, v := range m {
		if dropped[k] || strings.HasPrefix(k, "x-") {
			continue
		}
		out[k] = v
	}
	for _, k := range schemaMapKeywords {
		sub, ok := out[k].(map[string]any)
		if !ok {
			continue
		}
		c := map[string]any{}
		for name, v := range sub {
			cv, err := canonical(v, resolve, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", k, name, err)
			}
			c[name] = cv
		}
		out[k] = c
	}
	for _, k := range schemaKeywords {
		if v, ok := out[k]; ok {
			cv, err := canonical(v, resolve, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = cv
		}
	}
	for _, k := range schemaListKeywords {
		list, ok := out[k].([]any)
		if !ok {
			continue
		}
		c := make([]any, len(list))
		for i, v := range list {
			cv, err := canonical(v, resolve, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s/%d: %w", k, i, err)
			}
			c[i] = cv
		}
		out[k] = c
	}
	if c, ok := out["const"]; ok {
		if _, both := out["enum"]; both {
			return nil, fmt.Errorf("both const and enum")
		}
		out["enum"] = []any{c}
		delete(out, "const")
	}
	var types []string
	switch ty := out["type"].(type) {
	case string:
		types = []string{ty}
	case []any:
		for _, x := range ty {
			types = append(types, fmt.Sprint(x))
		}
	case nil:
		types = inferType(out["enum"])
	}
	if n, ok := out["nullable"].(bool); ok {
		if n && len(types) > 0 && !contains(types, "null") {
			types = append(types, "null")
		}
		delete(out, "nullable")
	}
	for _, k := range []string{"Minimum", "Maximum"} {
		if ex, ok := out["exclusive"+k].(bool); ok {
			delete(out, "exclusive"+k)
			if ex {
				out["exclusive"+k] = out[strings.ToLower(k)]
				delete(out, strings.ToLower(k))
			}
		}
	}
	if types != nil {
		sort.Strings(types)
		list := make([]any, len(types))
		for i, ty := range types {
			list[i] = ty
		}
		out["type"] = list
	}
	if req, ok := out["required"].([]any); ok {
		r := append([]any(nil), req...)
		sort.Slice(r, func(i, j int) bool { return fmt.Sprint(r[i]) < fmt.Sprint(r[j]) })
		out["required"] = r
	}
	return out, nil
}

// inferType gives the type an enum of booleans (or of strings) implies, so
// that `const: false` and `type: boolean, const: false` compare equal. Numbers
// are left alone: 2 may be an integer or a number.
func inferType(enum any) []string {
	list, ok := enum.([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	var want string
	for _, v := range list {
		var got string
		switch v.(type) {
		case bool:
			got = "boolean"
		case string:
			got = "string"
		default:
			return nil
		}
		if want != "" && got != want {
			return nil
		}
		want = got
	}
	return []string{want}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pointerResolver resolves "#/a/b" references inside root.
func pointerResolver(root any) func(string) (any, error) {
	return func(ref string) (any, error) {
		if !strings.HasPrefix(ref, "#/") {
			return nil, fmt.Errorf("only local references are supported, got %q", ref)
		}
		v := root
		for _, k := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			k = strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %q is not inside an object", ref, k)
			}
			if v, ok = m[k]; !ok {
				return nil, fmt.Errorf("%s does not exist", ref)
			}
		}
		return v, nil
	}
}

// schemaDiff returns "" when the schema file (a parsed JSON Schema document)
// and the OpenAPI component (inside doc) accept the same instances and carry
// the same documentation, and a cmp diff (-file +openapi) otherwise.
func schemaDiff(file any, doc map[string]any, component string) (string, error) {
	cf, err := canonical(file, pointerResolver(file), 0)
	if err != nil {
		return "", fmt.Errorf("schema file: %w", err)
	}
	comp, err := pointerResolver(doc)("#/components/schemas/" + component)
	if err != nil {
		return "", err
	}
	co, err := canonical(comp, pointerResolver(doc), 0)
	if err != nil {
		return "", fmt.Errorf("component %s: %w", component, err)
	}
	return cmp.Diff(cf, co), nil
}

type toolSchema struct {
	tool, file, component string
}

// toolSchemas lists each tool's input and output schema file with the
// component that copies it: the component is named by the file's title
// (EstimateFareInput), and a file's $defs/X is the component X.
func toolSchemas(t *testing.T) []toolSchema {
	t.Helper()
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var out []toolSchema
	for _, tool := range m.Tools {
		for _, file := range []string{tool.InputSchema, tool.OutputSchema} {
			title, _ := oaJSON(t, file).(map[string]any)["title"].(string)
			if title == "" {
				t.Fatalf("%s has no title to name its OpenAPI component", file)
			}
			out = append(out, toolSchema{tool.Name, file, title})
		}
	}
	return out
}

func TestOpenAPIToolSchemasMatchSchemaFiles(t *testing.T) {
	doc := oaLoad(t)
	for _, ts := range toolSchemas(t) {
		t.Run(ts.component, func(t *testing.T) {
			diff, err := schemaDiff(oaJSON(t, ts.file), doc, ts.component)
			if err != nil {
				t.Fatal(err)
			}
			if diff != "" {
				t.Errorf("components/schemas/%s in openapi.yaml differs from %s (-file +openapi):\n%s", ts.component, ts.file, diff)
			}
		})
	}
}

// TestOpenAPISchemaDriftIsCaught mutates a copy of a schema file and checks
// that the comparison notices; rewrites that keep the meaning (3.0 spellings)
// must not be reported.
func TestOpenAPISchemaDriftIsCaught(t *testing.T) {
	doc := oaLoad(t)
	props := func(s map[string]any) map[string]any { return s["properties"].(map[string]any) }
	prop := func(s map[string]any, name string) map[string]any { return props(s)[name].(map[string]any) }
	def := func(s map[string]any, name string) map[string]any {
		return s["$defs"].(map[string]any)[name].(map[string]any)
	}
	tests := []struct {
		name      string
		file      string
		component string
		mutate    func(s map[string]any)
		drift     bool
	}{
		{"maxLength", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) { prop(s, "pickup")["maxLength"] = 201.0 }, true},
		{"minLength removed", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) { delete(prop(s, "dropoff"), "minLength") }, true},
		{"enum value removed", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) {
				prop(s, "vehicleType")["enum"] = []any{"saloon", "estate", "executive", "luxury", "5seater", "6seater", "7seater", "mpv"}
			}, true},
		{"enum reordered", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) {
				prop(s, "vehicleType")["enum"] = []any{"wav", "saloon", "estate", "executive", "luxury", "5seater", "6seater", "7seater", "mpv"}
			}, true},
		{"default", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) { prop(s, "vehicleType")["default"] = "mpv" }, true},
		{"format", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) { prop(s, "departAt")["format"] = "date" }, true},
		{"required added", "schemas/start_booking.input.json", "StartBookingInput",
			func(s map[string]any) { s["required"] = []any{"pickup", "dropoff", "vehicleType", "passengers"} }, true},
		{"maximum", "schemas/start_booking.input.json", "StartBookingInput",
			func(s map[string]any) { prop(s, "passengers")["maximum"] = 7.0 }, true},
		{"type", "schemas/start_booking.input.json", "StartBookingInput",
			func(s map[string]any) { prop(s, "passengers")["type"] = "number" }, true},
		{"property added", "schemas/get_service_info.input.json", "GetServiceInfoInput",
			func(s map[string]any) { props(s)["verbose"] = map[string]any{"type": "boolean"} }, true},
		{"additionalProperties", "schemas/estimate_fare.input.json", "EstimateFareInput",
			func(s map[string]any) { s["additionalProperties"] = false }, true},
		{"description", "schemas/estimate_fare.output.json", "EstimateFareOutput",
			func(s map[string]any) { prop(s, "fareGBP")["description"] = "Fare in pence." }, true},
		{"array items", "schemas/estimate_fare.output.json", "EstimateFareOutput",
			func(s map[string]any) { prop(s, "appliedRules")["items"] = map[string]any{"type": "string"} }, true},
		{"const", "schemas/start_booking.output.json", "StartBookingOutput",
			func(s map[string]any) { prop(s, "confirmed")["const"] = true }, true},
		{"nullable dropped", "schemas/start_booking.output.json", "StartBookingOutput",
			func(s map[string]any) { prop(def(s, "Prefilled"), "departAt")["type"] = "string" }, true},
		{"inside a $def", "schemas/get_service_info.output.json", "GetServiceInfoOutput",
			func(s map[string]any) { prop(def(s, "Vehicle"), "maxPassengers")["minimum"] = 0.0 }, true},
		{"$def behind a $ref", "schemas/get_service_info.output.json", "GetServiceInfoOutput",
			func(s map[string]any) { def(s, "Surcharges")["additionalProperties"] = true }, true},
		// Same meaning, other spelling: no drift.
		{"const as enum", "schemas/start_booking.output.json", "StartBookingOutput",
			func(s map[string]any) {
				c := prop(s, "confirmed")
				delete(c, "const")
				c["type"], c["enum"] = "boolean", []any{false}
			}, false},
		{"3.0 nullable", "schemas/start_booking.output.json", "StartBookingOutput",
			func(s map[string]any) {
				d := prop(def(s, "Prefilled"), "departAt")
				d["type"], d["nullable"] = "string", true
			}, false},
		{"required reordered", "schemas/start_booking.input.json", "StartBookingInput",
			func(s map[string]any) { s["required"] = []any{"vehicleType", "dropoff", "pickup"} }, false},
		{"$id and $schema", "schemas/start_booking.input.json", "StartBookingInput",
			func(s map[string]any) { s["$id"] = "https://example.org/x.json"; delete(s, "$schema") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := oaJSON(t, tt.file).(map[string]any)
			if diff, err := schemaDiff(s, doc, tt.component); err != nil || diff != "" {
				t.Fatalf("the unmutated file must match first: %v\n%s", err, diff)
			}
			tt.mutate(s)
			diff, err := schemaDiff(s, doc, tt.component)
			if err != nil {
				t.Fatal(err)
			}
			if got := diff != ""; got != tt.drift {
				t.Errorf("drift reported = %v, want %v\n%s", got, tt.drift, diff)
			}
		})
	}
}

// ---- validation against the document --------------------------------------------

// oaCompiler compiles schemas out of the OpenAPI document, whose 3.1 schema
// dialect is JSON Schema 2020-12, with format assertions on.
type oaCompiler struct {
	t   *testing.T
	c   *jsonschema.Compiler
	doc map[string]any
}

func newOACompiler(t *testing.T) *oaCompiler {
	t.Helper()
	doc := oaLoad(t)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource(oaURL, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	return &oaCompiler{t: t, c: c, doc: doc}
}

// schema compiles the schema at a JSON pointer into the document, e.g.
// "/components/schemas/McpRequestBody".
func (o *oaCompiler) schema(pointer string) *jsonschema.Schema {
	o.t.Helper()
	s, err := o.c.Compile(oaURL + "#" + pointer)
	if err != nil {
		o.t.Fatalf("compiling %s: %v", pointer, err)
	}
	return s
}

// mediaSchema compiles a media type's schema, following a $ref'd response.
func (o *oaCompiler) mediaSchema(resp map[string]any, respPointer, mediaType string) *jsonschema.Schema {
	o.t.Helper()
	if ref, ok := resp["$ref"].(string); ok {
		respPointer = strings.TrimPrefix(ref, "#")
	}
	return o.schema(respPointer + "/content/" + escape(mediaType) + "/schema")
}

// response returns the POST /mcp response object for an HTTP status and the
// JSON pointer to it, with a $ref'd response resolved.
func (o *oaCompiler) response(status int) (map[string]any, string) {
	o.t.Helper()
	pointer := fmt.Sprintf("/paths/~1mcp/post/responses/%d", status)
	r, ok := oaAt(o.t, o.doc, "paths", "/mcp", "post", "responses").(map[string]any)[fmt.Sprint(status)].(map[string]any)
	if !ok {
		o.t.Fatalf("POST /mcp documents no %d response", status)
	}
	if ref, ok := r["$ref"].(string); ok {
		v, err := pointerResolver(o.doc)(ref)
		if err != nil {
			o.t.Fatal(err)
		}
		return v.(map[string]any), strings.TrimPrefix(ref, "#")
	}
	return r, pointer
}

func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func oaDecode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// componentPrefix maps a tool name to the prefix of its typed components
// (estimate_fare -> EstimateFare), from its input schema's title.
func componentPrefix(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, ts := range toolSchemas(t) {
		if strings.HasSuffix(ts.component, "Input") {
			out[ts.tool] = strings.TrimSuffix(ts.component, "Input")
		}
	}
	return out
}

// TestOpenAPISamplesValidate validates every sample's request against the
// POST /mcp request body and its response against the documented response of
// its HTTP status, then against the tool's typed components.
func TestOpenAPISamplesValidate(t *testing.T) {
	o := newOACompiler(t)
	body := o.schema("/paths/~1mcp/post/requestBody/content/application~1json/schema")
	sampleFile := o.schema("/components/schemas/SampleFile")
	prefix := componentPrefix(t)
	list, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 6 {
		t.Fatalf("only %d samples", len(list))
	}
	typedResponses := 0
	for _, s := range list {
		t.Run(s.Name, func(t *testing.T) {
			raw, err := tridentcontracts.Set.ReadFile("samples/" + s.Name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if err := sampleFile.Validate(oaDecode(t, raw)); err != nil {
				t.Errorf("the sample file fails SampleFile: %v", err)
			}
			req, resp := oaDecode(t, s.Request), oaDecode(t, s.Response)
			if err := body.Validate(req); err != nil {
				t.Errorf("request fails the POST /mcp request body: %v", err)
			}
			r, pointer := o.response(s.HTTP.Status)
			if err := o.mediaSchema(r, pointer, "application/json").Validate(resp); err != nil {
				t.Errorf("response fails the POST /mcp %d response: %v", s.HTTP.Status, err)
			}
			for name := range s.HTTP.Headers {
				if name == "Content-Type" {
					continue
				}
				if _, ok := r["headers"].(map[string]any)[name]; !ok {
					t.Errorf("the sample's %s header is not documented on the %d response", name, s.HTTP.Status)
				}
			}

			var call struct {
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if err := json.Unmarshal(s.Request, &call); err != nil {
				t.Fatal(err)
			}
			p, known := prefix[call.Params.Name]
			if !known {
				return // e.g. the unknown tool of METHOD_NOT_FOUND: only the generic forms apply
			}
			err = o.schema("/components/schemas/" + p + "CallRequest").Validate(req)
			switch {
			case s.ErrorCode == "INVALID_ARGUMENTS" && err == nil:
				t.Errorf("an INVALID_ARGUMENTS request passes %sCallRequest; the typed request must refuse it", p)
			case s.ErrorCode != "INVALID_ARGUMENTS" && err != nil:
				t.Errorf("request fails %sCallRequest: %v", p, err)
			}
			if _, hasResult := resp.(map[string]any)["result"]; hasResult {
				typedResponses++
				if err := o.schema("/components/schemas/" + p + "CallResponse").Validate(resp); err != nil {
					t.Errorf("response fails %sCallResponse: %v", p, err)
				}
			}
		})
	}
	if typedResponses < 3 {
		t.Errorf("only %d sample responses checked against a typed tool response; want at least one per tool", typedResponses)
	}
}

// TestOpenAPITypedComponentsRefuse checks that the typed components are
// strict where the samples can only show them lenient.
func TestOpenAPITypedComponentsRefuse(t *testing.T) {
	o := newOACompiler(t)
	tests := []struct {
		name, component, instance string
	}{
		{"result without structuredContent", "EstimateFareCallResponse",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`},
		{"structuredContent off the output schema", "EstimateFareCallResponse",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"fareGBP":-1}}}`},
		{"confirmed true", "StartBookingOutput",
			`{"bookingUrl":"https://tridenttaxis.online/book","confirmed":true,"requiresPassengerAction":true,"quote":{"fareGBP":1,"distanceMiles":1,"durationSeconds":60,"rate":"day","vehicleType":"mpv","tariffVersion":"v"},"prefilled":{"pickup":"a","dropoff":"b","vehicleType":"mpv","departAt":null,"meetAndGreet":false}}`},
		{"tool error without isError", "ToolErrorResult", `{"content":[{"type":"text","text":"x"}]}`},
		{"wrong jsonrpc version", "JsonRpcErrorResponse", `{"jsonrpc":"1.0","id":1,"error":{"code":-32601,"message":"x"}}`},
		{"401 with a request id", "UnauthorizedErrorResponse", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}`},
		{"401 with another code", "UnauthorizedErrorResponse", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x"}}`},
		{"tools/call of another tool", "StartBookingCallRequest",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"abc","dropoff":"def","vehicleType":"mpv"}}}`},
		{"request id null", "ToolsCallRequest", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}`},
		{"departAt not a date-time", "EstimateFareInput", `{"pickup":"abc","dropoff":"def","departAt":"tomorrow"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := o.schema("/components/schemas/" + tt.component).Validate(oaDecode(t, []byte(tt.instance))); err == nil {
				t.Errorf("%s accepts %s", tt.component, tt.instance)
			}
		})
	}
}

// exampleName is the OpenAPI example name of a sample: its path below
// samples/ with "/" as "." (errors/unauthorized -> errors.unauthorized).
func exampleName(sample string) string { return strings.ReplaceAll(sample, "/", ".") }

// TestOpenAPIExamplesAreTheSamples checks that each sample pair is the POST
// /mcp example of its name, value for value, and that no example outlives
// its sample.
func TestOpenAPIExamplesAreTheSamples(t *testing.T) {
	doc := oaLoad(t)
	resolve := pointerResolver(doc)
	value := func(t *testing.T, examples map[string]any, name string) (any, bool) {
		t.Helper()
		ex, ok := examples[name].(map[string]any)
		if !ok {
			return nil, false
		}
		if ref, ok := ex["$ref"].(string); ok {
			v, err := resolve(ref)
			if err != nil {
				t.Fatal(err)
			}
			ex = v.(map[string]any)
		}
		return ex["value"], true
	}
	reqExamples := oaAt(t, doc, "paths", "/mcp", "post", "requestBody", "content", "application/json", "examples").(map[string]any)
	list, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range list {
		name := exampleName(s.Name)
		seen[name] = true
		t.Run(s.Name, func(t *testing.T) {
			got, ok := value(t, reqExamples, name)
			if !ok {
				t.Fatalf("POST /mcp request body has no example %q", name)
			}
			if diff := cmp.Diff(oaDecode(t, s.Request), got); diff != "" {
				t.Errorf("request example %q differs from the sample (-sample +openapi):\n%s", name, diff)
			}
			o := &oaCompiler{t: t, doc: doc}
			r, _ := o.response(s.HTTP.Status)
			respExamples, _ := oaAt(t, r, "content", "application/json").(map[string]any)["examples"].(map[string]any)
			got, ok = value(t, respExamples, name)
			if !ok {
				t.Fatalf("the POST /mcp %d response has no example %q", s.HTTP.Status, name)
			}
			if diff := cmp.Diff(oaDecode(t, s.Response), got); diff != "" {
				t.Errorf("response example %q differs from the sample (-sample +openapi):\n%s", name, diff)
			}
		})
	}
	for name := range reqExamples {
		if !seen[name] {
			t.Errorf("request example %q names no sample file", name)
		}
	}
}

// TestOpenAPIErrorCatalogue checks that POST /mcp documents every HTTP status
// of errors.json, and that each documented body admits the catalogue's
// JSON-RPC code with a null id.
func TestOpenAPIErrorCatalogue(t *testing.T) {
	o := newOACompiler(t)
	entries, err := tridentcontracts.Set.Errors()
	if err != nil {
		t.Fatal(err)
	}
	requiredHeaders := map[int]string{401: "WWW-Authenticate", 429: "Retry-After"}
	checked := 0
	for _, e := range entries {
		if e.HTTPStatus == 0 || e.HTTPStatus == 200 || e.JSONRPCCode == 0 {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			checked++
			r, pointer := o.response(e.HTTPStatus)
			body := map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": float64(e.JSONRPCCode), "message": e.Message}}
			if err := o.mediaSchema(r, pointer, "application/json").Validate(body); err != nil {
				t.Errorf("the %d response refuses the catalogue's body (code %d): %v", e.HTTPStatus, e.JSONRPCCode, err)
			}
			if h, ok := requiredHeaders[e.HTTPStatus]; ok {
				header, ok := r["headers"].(map[string]any)[h].(map[string]any)
				if !ok {
					t.Fatalf("the %d response documents no %s header", e.HTTPStatus, h)
				}
				if ref, ok := header["$ref"].(string); ok {
					v, _ := pointerResolver(o.doc)(ref)
					header = v.(map[string]any)
				}
				if header["required"] != true {
					t.Errorf("the %s header of the %d response is not required", h, e.HTTPStatus)
				}
			}
		})
	}
	if checked < 5 {
		t.Errorf("only %d HTTP-level catalogue entries checked", checked)
	}
}

// TestOpenAPICatalogueDocuments validates the documents served beside /mcp
// against their documented schemas.
func TestOpenAPICatalogueDocuments(t *testing.T) {
	o := newOACompiler(t)
	check := func(t *testing.T, component string, v any) {
		t.Helper()
		if err := o.schema("/components/schemas/" + component).Validate(v); err != nil {
			t.Errorf("fails %s: %v", component, err)
		}
	}
	t.Run("samples/index.json", func(t *testing.T) { check(t, "SampleIndex", oaJSON(t, "samples/index.json")) })
	t.Run("schema files", func(t *testing.T) {
		entries, err := fs.ReadDir(tridentcontracts.Set.FS(), "schemas")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			check(t, "JsonSchemaDocument", oaJSON(t, "schemas/"+e.Name()))
		}
	})
	t.Run("list-tools", func(t *testing.T) {
		m, err := tridentcontracts.Set.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		var tools []any
		for _, tool := range m.Tools {
			in, out := oaJSON(t, tool.InputSchema), oaJSON(t, tool.OutputSchema)
			tools = append(tools, map[string]any{"name": tool.Name, "title": tool.Title, "description": tool.Description,
				"annotations": oaDecode(t, tool.Annotations), "inputSchema": in, "outputSchema": out})
		}
		check(t, "ListToolsResult", map[string]any{"tools": tools})
	})
	t.Run("gen/trident/schemabundle/index.json", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join("..", "gen", "schemabundle", "index.json"))
		if err != nil {
			t.Skipf("the schema bundle is not generated yet: %v", err)
		}
		check(t, "SchemaIndex", oaDecode(t, b))
	})
	t.Run("protected resource metadata", func(t *testing.T) {
		check(t, "ProtectedResourceMetadata", map[string]any{
			"resource":                 "http://localhost:8080/mcp",
			"authorization_servers":    []any{"http://localhost:9999/auth/v1"},
			"bearer_methods_supported": []any{"header"},
			"resource_documentation":   "http://localhost:8080/mcp-docs",
		})
		check(t, "ProtectedResourceMetadata", map[string]any{
			"resource":                 "http://localhost:8080/mcp",
			"authorization_servers":    []any{},
			"bearer_methods_supported": []any{"header"},
			"resource_documentation":   "http://localhost:8080/mcp-docs",
			"authorization_required":   false,
		})
		// Public mode without the bearer methods is what the specification
		// does not show, and the schema refuses it.
		if err := o.schema("/components/schemas/ProtectedResourceMetadata").Validate(map[string]any{
			"resource": "http://localhost:8080/mcp", "authorization_servers": []any{},
			"bearer_methods_supported": []any{}, "authorization_required": false,
		}); err == nil {
			t.Error("ProtectedResourceMetadata accepts bearer_methods_supported: []")
		}
	})
}

// TestOpenAPILoadsInCodegenLoader checks that kin-openapi, which oapi-codegen
// reads the document with, loads and validates it.
func TestOpenAPILoadsInCodegenLoader(t *testing.T) {
	b, err := contracts.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		t.Fatalf("kin-openapi cannot load openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("kin-openapi finds openapi.yaml invalid: %v", err)
	}
	if got := len(doc.Paths.Map()); got < 15 {
		t.Errorf("%d paths, want at least 15", got)
	}
}

// ---- generated server routes ---------------------------------------------------

// routeRecorder implements the generated ServerInterface and records which
// operation each request reached.
type routeRecorder struct{ got string }

var _ api.ServerInterface = (*routeRecorder)(nil)

func (r *routeRecorder) hit(w http.ResponseWriter, op string) {
	r.got = op
	w.WriteHeader(http.StatusNoContent)
}
func (r *routeRecorder) ListTools(w http.ResponseWriter, _ *http.Request) { r.hit(w, "ListTools") }
func (r *routeRecorder) GetCollectionIndex(w http.ResponseWriter, _ *http.Request) {
	r.hit(w, "GetCollectionIndex")
}
func (r *routeRecorder) GetCollection(w http.ResponseWriter, _ *http.Request, f string) {
	r.hit(w, "GetCollection "+f)
}
func (r *routeRecorder) GetSchemaIndex(w http.ResponseWriter, _ *http.Request) {
	r.hit(w, "GetSchemaIndex")
}
func (r *routeRecorder) GetToolTypes(w http.ResponseWriter, _ *http.Request) {
	r.hit(w, "GetToolTypes")
}
func (r *routeRecorder) GetToolSchema(w http.ResponseWriter, _ *http.Request, f string) {
	r.hit(w, "GetToolSchema "+f)
}
func (r *routeRecorder) GetErrorSample(w http.ResponseWriter, _ *http.Request, f string) {
	r.hit(w, "GetErrorSample "+f)
}
func (r *routeRecorder) GetSampleIndex(w http.ResponseWriter, _ *http.Request) {
	r.hit(w, "GetSampleIndex")
}
func (r *routeRecorder) GetSample(w http.ResponseWriter, _ *http.Request, f string) {
	r.hit(w, "GetSample "+f)
}

// TestGeneratedRoutes checks that the generated net/http routes of the
// Trident endpoint's plain surface (gen/trident/api) register without
// conflict and that fixed files win over the {file} patterns beside them.
func TestGeneratedRoutes(t *testing.T) {
	rec := &routeRecorder{}
	h := api.Handler(rec)
	tests := []struct{ method, path, want string }{
		{"GET", "/.mcp/list-tools", "ListTools"},
		{"GET", "/mcp-schemas/index.json", "GetSchemaIndex"},
		{"GET", "/mcp-schemas/mcp-tools.d.ts", "GetToolTypes"},
		{"GET", "/mcp-schemas/estimate_fare.input.json", "GetToolSchema estimate_fare.input.json"},
		{"GET", "/mcp-schemas/collections/index.json", "GetCollectionIndex"},
		{"GET", "/mcp-schemas/collections/trident.postman_collection.json", "GetCollection trident.postman_collection.json"},
		{"GET", "/samples/index.json", "GetSampleIndex"},
		{"GET", "/samples/start_booking.error.json", "GetSample start_booking.error.json"},
		{"GET", "/samples/errors/unauthorized.json", "GetErrorSample unauthorized.json"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec.got = ""
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.got != tt.want {
				t.Errorf("reached %q (HTTP %d), want %q", rec.got, w.Code, tt.want)
			}
		})
	}
}

package contracts_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// readContract reads a file by its path below contracts/ ("errors.json",
// "trident/schemas/..."), from the shared files or the endpoint folder the
// path starts with.
func readContract(name string) ([]byte, error) {
	for prefix, set := range map[string]*contracts.Set{"trident/": tridentcontracts.Set, "relay/": relaycontracts.Set} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			return set.ReadFile(rest)
		}
	}
	return contracts.ReadFile(name)
}

// compile compiles a schema of contracts/ (a path below contracts/) as
// Draft 2020-12 with format assertions on.
func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, err := readContract(name)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource(name, bytes.NewReader(b)); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s does not compile as Draft 2020-12: %v", name, err)
	}
	return s
}

func decode(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEverySchemaCompiles(t *testing.T) {
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(tridentcontracts.Set.FS(), "schemas")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range m.Tools {
		listed[tool.InputSchema], listed[tool.OutputSchema] = true, true
	}
	for _, e := range entries {
		p := "schemas/" + e.Name()
		compile(t, "trident/"+p)
		if !listed[p] {
			t.Errorf("%s is not named by tools.json", p)
		}
		var head struct {
			Schema string `json:"$schema"`
		}
		b, _ := tridentcontracts.Set.ReadFile(p)
		if err := json.Unmarshal(b, &head); err != nil || head.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema must declare Draft 2020-12, got %q", p, head.Schema)
		}
	}
}

type rpcRequest struct {
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool `json:"isError"`
		Content           []struct{ Type, Text string }
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func samples(t *testing.T) []contracts.Sample {
	t.Helper()
	s, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	if len(s) < 6 {
		t.Fatalf("only %d samples", len(s))
	}
	return s
}

func tools(t *testing.T) map[string]contracts.Tool {
	t.Helper()
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]contracts.Tool{}
	for _, tool := range m.Tools {
		out[tool.Name] = tool
	}
	return out
}

func TestSampleArgumentsAgainstInputSchemas(t *testing.T) {
	byName := tools(t)
	for _, s := range samples(t) {
		t.Run(s.Name, func(t *testing.T) {
			var req rpcRequest
			if err := json.Unmarshal(s.Request, &req); err != nil {
				t.Fatal(err)
			}
			tool, ok := byName[req.Params.Name]
			if !ok {
				if s.ErrorCode != string(errcodes.MethodNotFound) {
					t.Fatalf("unknown tool %q in a sample that is not METHOD_NOT_FOUND", req.Params.Name)
				}
				return
			}
			err := compile(t, "trident/"+tool.InputSchema).Validate(decode(t, req.Params.Arguments))
			if s.ErrorCode == string(errcodes.InvalidArguments) {
				// The documented reason names the field: "Invalid params: pickup: ...".
				var resp rpcResponse
				_ = json.Unmarshal(s.Response, &resp)
				field := strings.SplitN(strings.TrimPrefix(resp.Error.Message, "Invalid params: "), ":", 2)[0]
				var ve *jsonschema.ValidationError
				if err == nil {
					t.Fatal("arguments of an INVALID_ARGUMENTS sample pass the input schema")
				}
				if !asValidation(err, &ve) || !strings.Contains(flatten(ve), "/"+field) {
					t.Fatalf("arguments fail, but not at %q: %v", field, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("arguments fail %s: %v", tool.InputSchema, err)
			}
		})
	}
}

func asValidation(err error, ve **jsonschema.ValidationError) bool {
	v, ok := err.(*jsonschema.ValidationError)
	*ve = v
	return ok
}

func flatten(ve *jsonschema.ValidationError) string {
	var b strings.Builder
	b.WriteString(ve.InstanceLocation + " ")
	for _, c := range ve.Causes {
		b.WriteString(flatten(c))
	}
	return b.String()
}

func TestSampleResultsAgainstOutputSchemas(t *testing.T) {
	byName := tools(t)
	successes := 0
	for _, s := range samples(t) {
		t.Run(s.Name, func(t *testing.T) {
			var req rpcRequest
			var resp rpcResponse
			if err := json.Unmarshal(s.Request, &req); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(s.Response, &resp); err != nil {
				t.Fatal(err)
			}
			if (resp.Result == nil) == (resp.Error == nil) {
				t.Fatal("a response must have exactly one of result and error")
			}
			if resp.Result == nil || resp.Result.IsError {
				if s.ErrorCode == "" {
					t.Fatal("an error sample must name its errorCode")
				}
				return
			}
			successes++
			if len(resp.Result.StructuredContent) == 0 {
				t.Fatal("a success sample must carry structuredContent")
			}
			tool := byName[req.Params.Name]
			if err := compile(t, "trident/"+tool.OutputSchema).Validate(decode(t, resp.Result.StructuredContent)); err != nil {
				t.Fatalf("structuredContent fails %s: %v", tool.OutputSchema, err)
			}
		})
	}
	if successes != 3 {
		t.Errorf("want one success sample per tool (3), got %d", successes)
	}
}

// TestSampleErrorsAreCatalogued checks that every error a sample shows is a
// catalogue row, and that the sample's shape matches the row's surface and code.
func TestSampleErrorsAreCatalogued(t *testing.T) {
	rows := map[errcodes.Code]errcodes.Entry{}
	for _, e := range errcodes.Catalogue {
		rows[e.Code] = e
	}
	for _, s := range samples(t) {
		if s.ErrorCode == "" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			e, ok := rows[errcodes.Code(s.ErrorCode)]
			if !ok {
				t.Fatalf("errorCode %q is not in the catalogue", s.ErrorCode)
			}
			var resp rpcResponse
			if err := json.Unmarshal(s.Response, &resp); err != nil {
				t.Fatal(err)
			}
			switch e.Surface {
			case errcodes.SurfaceTool:
				if resp.Result == nil || !resp.Result.IsError || len(resp.Result.Content) == 0 {
					t.Fatal("a tool error sample must be a result with isError: true and text content")
				}
				if !strings.Contains(resp.Result.Content[0].Text, e.Signal) {
					t.Errorf("text %q lacks the catalogue signal %q", resp.Result.Content[0].Text, e.Signal)
				}
				if got, _ := errcodes.ByToolText(resp.Result.Content[0].Text); got.Code != e.Code {
					t.Errorf("ByToolText names %q, want %q", got.Code, e.Code)
				}
			case errcodes.SurfaceJSONRPC, errcodes.SurfaceHTTP:
				if resp.Error == nil || resp.Error.Code != e.JSONRPCCode {
					t.Fatalf("want a JSON-RPC error %d, got %+v", e.JSONRPCCode, resp.Error)
				}
				if s.HTTP.Status != e.HTTPStatus {
					t.Errorf("HTTP status %d, catalogue says %d", s.HTTP.Status, e.HTTPStatus)
				}
				if e.Surface == errcodes.SurfaceJSONRPC {
					if lookup, _ := errcodes.ByJSONRPC(resp.Error.Code); lookup.Code != e.Code {
						t.Errorf("the catalogue lookup names %q, want %q", lookup.Code, e.Code)
					}
				}
			}
		})
	}
}

// TestCatalogueMatchesContract keeps the generated constants in step with errors.json.
func TestCatalogueMatchesContract(t *testing.T) {
	rows, err := contracts.Catalogue(tridentcontracts.Set, relaycontracts.Set)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(errcodes.Catalogue) {
		t.Fatalf("errors.json has %d rows, gen/errcodes %d: run make generate", len(rows), len(errcodes.Catalogue))
	}
	seed := 0
	for i, r := range rows {
		if string(errcodes.Catalogue[i].Code) != r.Name {
			t.Errorf("row %d: %s vs %s", i, r.Name, errcodes.Catalogue[i].Code)
		}
		// Relay's rows come from its own specification's error table.
		if r.Source == "seed" && !strings.HasPrefix(r.Name, "RELAY_") {
			seed++
		}
		if r.Surface == "tool" && (r.Signal == "" || (len(r.Messages) == 0 && r.Message == "")) {
			t.Errorf("%s: a tool error needs a signal and its message(s)", r.Name)
		}
		// Relay's refusal text is the JSON of its Refusal, whose "status"
		// is the signal; its message sits beside it.
		relayRow := strings.HasPrefix(r.Signal, `"status":`)
		if r.Surface == "tool" && r.Message != "" && !relayRow && !strings.Contains(r.Message, r.Signal) {
			t.Errorf("%s: the message lacks the signal %q", r.Name, r.Signal)
		}
		for tool, msg := range r.Messages {
			if !strings.Contains(msg, r.Signal) {
				t.Errorf("%s: the %s message lacks the signal %q", r.Name, tool, r.Signal)
			}
		}
	}
	if seed != 7 {
		t.Errorf("the seed's Error codes table has 7 rows; errors.json marks %d as seed", seed)
	}
}

// TestGeneratedTypesRoundTripSamples decodes every sample's arguments and
// structuredContent into the generated types and checks that encoding them
// again loses nothing.
func TestGeneratedTypesRoundTripSamples(t *testing.T) {
	types := map[string][2]func() any{
		mcptypes.ToolEstimateFare:   {func() any { return new(mcptypes.EstimateFareInput) }, func() any { return new(mcptypes.EstimateFareOutput) }},
		mcptypes.ToolGetServiceInfo: {func() any { return new(mcptypes.GetServiceInfoInput) }, func() any { return new(mcptypes.GetServiceInfoOutput) }},
		mcptypes.ToolStartBooking:   {func() any { return new(mcptypes.StartBookingInput) }, func() any { return new(mcptypes.StartBookingOutput) }},
	}
	if len(types) != len(mcptypes.ToolNames) {
		t.Fatalf("the test knows %d tools, the contracts %d", len(types), len(mcptypes.ToolNames))
	}
	n := 0
	for _, s := range samples(t) {
		var req rpcRequest
		var resp rpcResponse
		_ = json.Unmarshal(s.Request, &req)
		_ = json.Unmarshal(s.Response, &resp)
		mk, ok := types[req.Params.Name]
		if !ok || s.ErrorCode == string(errcodes.InvalidArguments) {
			continue
		}
		roundTrip(t, s.Name+" arguments", req.Params.Arguments, mk[0]())
		n++
		if resp.Result != nil && len(resp.Result.StructuredContent) > 0 {
			roundTrip(t, s.Name+" structuredContent", resp.Result.StructuredContent, mk[1]())
			n++
		}
	}
	if n < 8 {
		t.Errorf("only %d payloads round-tripped", n)
	}
}

func roundTrip(t *testing.T, what string, raw json.RawMessage, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("%s: decode: %v", what, err)
		return
	}
	again, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(raw, &a)
	_ = json.Unmarshal(again, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s: lost in the round trip:\n sample %s\n again  %s", what, raw, again)
	}
}

// TestGeneratedFilesCarryHeader: every file under gen/ says it is generated.
func TestGeneratedFilesCarryHeader(t *testing.T) {
	root := filepath.Join("..", "gen")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(p); ext != ".go" && ext != ".ts" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if !bytes.Contains(b[:min(len(b), 400)], []byte("DO NOT EDIT")) {
			t.Errorf("%s lacks a DO NOT EDIT header", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no generated files found")
	}
}

// TestREADMEListsEveryErrorCode keeps the README's error table in step with the catalogue.
func TestREADMEListsEveryErrorCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errcodes.Catalogue {
		if !bytes.Contains(b, []byte("| `"+string(e.Code)+"` |")) {
			t.Errorf("README.md's error table lacks %s", e.Code)
		}
	}
}

// TestCatalogueFollowsItsSchema validates errors.json against the schema its
// "$schema" names, and checks that the schema refuses the rows a consumer
// could not use (a tool error without its signal, a JSON-RPC row without its
// code, an unknown surface or tool), so that it is not a schema that accepts
// anything.
func TestCatalogueFollowsItsSchema(t *testing.T) {
	schema := compile(t, "errors.schema.json")
	var doc struct {
		Errors []map[string]any `json:"errors"`
	}
	for file, wantSchema := range map[string]string{"errors.json": "./errors.schema.json", "trident/errors.json": "../errors.schema.json"} {
		raw, err := readContract(file)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Schema string           `json:"$schema"`
			Errors []map[string]any `json:"errors"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		if d.Schema != wantSchema {
			t.Fatalf("%s names $schema %q, want %s", file, d.Schema, wantSchema)
		}
		if err := schema.Validate(decode(t, raw)); err != nil {
			t.Fatalf("%s does not follow errors.schema.json: %v", file, err)
		}
		doc.Errors = append(doc.Errors, d.Errors...)
	}

	row := func(name string) map[string]any {
		for _, r := range doc.Errors {
			if r["name"] == name {
				b, _ := json.Marshal(r)
				var c map[string]any
				_ = json.Unmarshal(b, &c)
				return c
			}
		}
		t.Fatalf("no row %s", name)
		return nil
	}
	broken := map[string]func() map[string]any{
		"tool row without signal":       func() map[string]any { r := row("GEOCODE_FAILED"); delete(r, "signal"); return r },
		"tool row with a JSON-RPC code": func() map[string]any { r := row("GEOCODE_FAILED"); r["jsonrpcCode"] = -32602; return r },
		"jsonrpc row without code":      func() map[string]any { r := row("INVALID_ARGUMENTS"); delete(r, "jsonrpcCode"); return r },
		"http row with a 2xx status":    func() map[string]any { r := row("UNAUTHORIZED"); r["httpStatus"] = 200; return r },
		"unknown surface":               func() map[string]any { r := row("UNAUTHORIZED"); r["surface"] = "email"; return r },
		"tool not snake_case":           func() map[string]any { r := row("CAPACITY_EXCEEDED"); r["tools"] = []any{"Book Now"}; return r },
		"lower-case name":               func() map[string]any { r := row("CAPACITY_EXCEEDED"); r["name"] = "capacity"; return r },
		"no retryability":               func() map[string]any { r := row("ROUTING_UNAVAILABLE"); delete(r, "retryable"); return r },
		"unknown field":                 func() map[string]any { r := row("ROUTING_UNAVAILABLE"); r["retry"] = true; return r },
	}
	// The unbroken rows, alone, are valid: each refusal below is the change's.
	for _, name := range []string{"GEOCODE_FAILED", "INVALID_ARGUMENTS", "UNAUTHORIZED", "CAPACITY_EXCEEDED", "ROUTING_UNAVAILABLE"} {
		b, _ := json.Marshal(map[string]any{"errors": []any{row(name)}})
		if err := schema.Validate(decode(t, b)); err != nil {
			t.Fatalf("%s alone: %v", name, err)
		}
	}
	for name, mk := range broken {
		b, _ := json.Marshal(map[string]any{"errors": []any{mk()}})
		if err := schema.Validate(decode(t, b)); err == nil {
			t.Errorf("%s: errors.schema.json accepts it", name)
		}
	}
}

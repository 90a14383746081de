package contracts_test

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
)

// toolExample is one file of trident/examples/: a tool's example request
// and response from the specification's Tools section.
type toolExample struct {
	Description       string          `json:"description"`
	Tool              string          `json:"tool"`
	Arguments         json.RawMessage `json:"arguments"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

func toolExamples(t *testing.T) map[string]toolExample {
	t.Helper()
	files, err := fs.Glob(tridentcontracts.Set.FS(), "examples/*.json")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]toolExample{}
	for _, f := range files {
		b, err := tridentcontracts.Set.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ex toolExample
		if err := json.Unmarshal(b, &ex); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ex.Tool+".json" != strings.TrimPrefix(f, "examples/") || ex.Description == "" {
			t.Errorf("%s: want a description and the tool it is named after, got tool %q", f, ex.Tool)
		}
		out[ex.Tool] = ex
	}
	return out
}

// TestToolExamplesValidate holds the schemas to every response the
// specification documents: the Tools-section examples, which leave out
// members the samples show (appliedRules, prefilled), must validate as
// they are, arguments and structured result.
func TestToolExamplesValidate(t *testing.T) {
	examples := toolExamples(t)
	for name, tool := range tools(t) {
		t.Run(name, func(t *testing.T) {
			ex, ok := examples[name]
			if !ok {
				t.Fatalf("no examples/%s.json: every tool of the Tools section has an example", name)
			}
			if err := compile(t, "trident/"+tool.InputSchema).Validate(decode(t, ex.Arguments)); err != nil {
				t.Errorf("the example request fails %s: %v", tool.InputSchema, err)
			}
			if err := compile(t, "trident/"+tool.OutputSchema).Validate(decode(t, ex.StructuredContent)); err != nil {
				t.Errorf("the example response fails %s: %v", tool.OutputSchema, err)
			}
		})
	}
	if len(examples) != len(tools(t)) {
		t.Errorf("%d examples for %d tools", len(examples), len(tools(t)))
	}
}

// TestToolExamplesAgreeWithSamples: the specification shows each call twice,
// in the Tools section and as a sample pair. The two must say the same
// thing: the same arguments, and every member the example shows with the
// sample's value.
func TestToolExamplesAgreeWithSamples(t *testing.T) {
	byName := map[string]contracts.Sample{}
	for _, s := range samples(t) {
		byName[s.Name] = s
	}
	for name, ex := range toolExamples(t) {
		t.Run(name, func(t *testing.T) {
			s, ok := byName[name+".success"]
			if !ok {
				t.Fatalf("no %s.success sample", name)
			}
			var req rpcRequest
			var resp rpcResponse
			if json.Unmarshal(s.Request, &req) != nil || json.Unmarshal(s.Response, &resp) != nil || resp.Result == nil {
				t.Fatal("unreadable sample")
			}
			if !reflect.DeepEqual(decode(t, ex.Arguments), decode(t, req.Params.Arguments)) {
				t.Errorf("arguments differ:\n example %s\n sample  %s", ex.Arguments, req.Params.Arguments)
			}
			var exOut, sampleOut map[string]json.RawMessage
			if json.Unmarshal(ex.StructuredContent, &exOut) != nil || json.Unmarshal(resp.Result.StructuredContent, &sampleOut) != nil {
				t.Fatal("structuredContent is not an object")
			}
			for k, v := range exOut {
				if !reflect.DeepEqual(decode(t, v), decode(t, sampleOut[k])) {
					t.Errorf("%s: example %s, sample %s", k, v, sampleOut[k])
				}
			}
		})
	}
}

// TestGeneratedTypesRoundTripExamples: a result without the optional
// members decodes into the generated types and encodes back without them
// (omitzero), so the typed client reads the documented responses as they
// are.
func TestGeneratedTypesRoundTripExamples(t *testing.T) {
	types := map[string]func() any{
		mcptypes.ToolEstimateFare:   func() any { return new(mcptypes.EstimateFareOutput) },
		mcptypes.ToolGetServiceInfo: func() any { return new(mcptypes.GetServiceInfoOutput) },
		mcptypes.ToolStartBooking:   func() any { return new(mcptypes.StartBookingOutput) },
	}
	for name, ex := range toolExamples(t) {
		roundTrip(t, "examples/"+name+".json structuredContent", ex.StructuredContent, types[name]())
	}
}

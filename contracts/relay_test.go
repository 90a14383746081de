package contracts_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

func relayTools(t *testing.T) map[string]contracts.Tool {
	t.Helper()
	m, err := relaycontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]contracts.Tool{}
	for _, tool := range m.Tools {
		out[tool.Name] = tool
	}
	if len(out) != len(mcptypes.ToolNames) {
		t.Fatalf("%d relay tools, want %d", len(out), len(mcptypes.ToolNames))
	}
	return out
}

// TestRelaySamplesValidate holds every Relay sample to its tool's schemas:
// the arguments to the input schema (refused arguments must fail it at the
// fields the refusal names), the structuredContent of every result, success
// or refusal, to the output schema, and a refusal's status to its errorCode.
func TestRelaySamplesValidate(t *testing.T) {
	byName := relayTools(t)
	all, err := relaycontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			var req rpcRequest
			var resp rpcResponse
			if err := json.Unmarshal(s.Request, &req); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(s.Response, &resp); err != nil || resp.Result == nil {
				t.Fatalf("response: %v", err)
			}
			tool, ok := byName[req.Params.Name]
			if !ok {
				t.Fatalf("unknown tool %q", req.Params.Name)
			}
			seen[tool.Name] = true
			inErr := compile(t, "relay/"+tool.InputSchema).Validate(decode(t, req.Params.Arguments))
			out := resp.Result.StructuredContent
			if err := compile(t, "relay/"+tool.OutputSchema).Validate(decode(t, out)); err != nil {
				t.Errorf("structuredContent fails %s: %v", tool.OutputSchema, err)
			}
			if len(resp.Result.Content) != 1 || !jsonSame(t, []byte(resp.Result.Content[0].Text), out) {
				t.Error("content[0].text is not the JSON of structuredContent")
			}
			if !resp.Result.IsError {
				if s.ErrorCode != "" || inErr != nil {
					t.Errorf("a success sample: errorCode %q, arguments %v", s.ErrorCode, inErr)
				}
				return
			}
			var r mcptypes.Refusal
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatal(err)
			}
			e, ok := errcodes.Lookup(errcodes.Code(s.ErrorCode))
			if !ok || errcodes.Code("RELAY_"+strings.ToUpper(string(r.Status))) != e.Code || !strings.Contains(resp.Result.Content[0].Text, e.Signal) {
				t.Errorf("refusal %s does not match errorCode %q", r.Status, s.ErrorCode)
			}
			if r.Status == mcptypes.RefusalStatusInvalidArguments {
				if inErr == nil {
					t.Error("the arguments of an invalid_arguments sample pass the input schema")
				}
			} else if inErr != nil {
				t.Errorf("arguments fail the input schema: %v", inErr)
			}
		})
	}
	for name := range byName {
		if !seen[name] {
			t.Errorf("no sample for %s", name)
		}
	}
	for _, e := range errcodes.Catalogue {
		if !strings.HasPrefix(string(e.Code), "RELAY_") {
			continue
		}
		found := false
		for _, s := range all {
			found = found || s.ErrorCode == string(e.Code)
		}
		if !found {
			t.Errorf("no sample draws %s", e.Code)
		}
	}
}

func jsonSame(t *testing.T, a, b []byte) bool {
	return reflect.DeepEqual(decode(t, a), decode(t, b))
}

// TestRelaySharedDefsAgree: each Relay schema is self-contained (clients
// resolve no external $ref), so shared shapes are copied into each file's
// $defs. Every copy must be the same.
func TestRelaySharedDefsAgree(t *testing.T) {
	first := map[string]json.RawMessage{}
	where := map[string]string{}
	entries, err := fs.ReadDir(relaycontracts.FS, "schemas")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := path.Join("relay", "schemas", e.Name())
		compile(t, p)
		b, _ := readContract(p)
		var doc struct {
			Schema string                     `json:"$schema"`
			Defs   map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: %v %q", p, err, doc.Schema)
		}
		for name, def := range doc.Defs {
			var c bytes.Buffer
			_ = json.Compact(&c, def)
			if prev, ok := first[name]; ok && !bytes.Equal(prev, c.Bytes()) {
				t.Errorf("$defs/%s differs between %s and %s", name, where[name], p)
			}
			first[name], where[name] = c.Bytes(), p
		}
	}
}

func TestRelayProvidersAgainstSchema(t *testing.T) {
	b, err := readContract("relay/providers.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := compile(t, "relay/providers.schema.json").Validate(decode(t, b)); err != nil {
		t.Fatalf("providers.json fails providers.schema.json: %v", err)
	}
}

func TestRelayErrorRows(t *testing.T) {
	byName := relayTools(t)
	rows, err := relaycontracts.Set.Errors()
	if err != nil {
		t.Fatal(err)
	}
	shared, err := contracts.LoadErrors()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[len(shared):] {
		status := strings.ToLower(strings.TrimPrefix(r.Name, "RELAY_"))
		if r.Surface != "tool" || !strings.HasPrefix(r.Name, "RELAY_") || r.Signal != `"status":"`+status+`"` || r.Message == "" || len(r.Tools) == 0 {
			t.Errorf("%s: a Relay row is a tool refusal whose signal is its status: %+v", r.Name, r)
		}
		if !mcptypes.RefusalStatus(status).Valid() {
			t.Errorf("%s is not a Refusal status", r.Name)
		}
		for _, tool := range r.Tools {
			if _, ok := byName[tool]; !ok {
				t.Errorf("%s names unknown tool %s", r.Name, tool)
			}
		}
	}
}

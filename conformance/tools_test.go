package conformance

import (
	"encoding/json"
	"fmt"

	"github.com/google/go-cmp/cmp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

type listedTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Annotations  json.RawMessage `json:"annotations"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// listTools calls tools/list and returns the tools it lists.
func listTools() ([]listedTool, *Exchange) {
	GinkgoHelper()
	ex, err := client().Call(suiteCtx, 11, "tools/list", map[string]any{}, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(ex.Status).To(Equal(200), ex.String())
	m := expectResponse(ex, 11)
	Expect(m.Error).To(BeNil(), ex.String())
	var res struct {
		Tools      []listedTool `json:"tools"`
		NextCursor string       `json:"nextCursor"`
	}
	Expect(json.Unmarshal(m.Result, &res)).To(Succeed(), ex.String())
	Expect(res.NextCursor).To(BeEmpty(), "three tools fit in one page")
	return res.Tools, ex
}

var _ = Describe("tools/list", Label("schema"), func() {
	It("lists exactly the tools of contracts/trident/tools.json, in order", func() {
		tools, ex := listTools()
		var got, want []string
		for _, t := range tools {
			got = append(got, t.Name)
		}
		for _, t := range con.Manifest.Tools {
			want = append(want, t.Name)
		}
		Expect(got).To(Equal(want), ex.String())
	})

	var entries []TableEntry
	for _, t := range con.Manifest.Tools {
		entries = append(entries, Entry(t.Name, t.Name))
	}
	DescribeTable("serves each tool as the contracts write it", func(name string) {
		tools, _ := listTools()
		var got *listedTool
		for i := range tools {
			if tools[i].Name == name {
				got = &tools[i]
			}
		}
		Expect(got).NotTo(BeNil(), "tools/list lacks %s", name)
		tc := con.Tools[name]
		if cfg.StrictSchemas {
			Expect(JSONDiff(tc.InputRaw, got.InputSchema)).To(BeEmpty(), "inputSchema differs from %s (-want +got)", tc.Tool.InputSchema)
			Expect(JSONDiff(tc.OutputRaw, got.OutputSchema)).To(BeEmpty(), "outputSchema differs from %s (-want +got)", tc.Tool.OutputSchema)
			Expect(got.Title).To(Equal(tc.Tool.Title))
			Expect(got.Description).To(Equal(tc.Tool.Description))
			Expect(JSONDiff(tc.Tool.Annotations, got.Annotations)).To(BeEmpty(), "annotations differ from tools.json (-want +got)")
			return
		}
		// By meaning: what a client can send and will get back must be the
		// contract's; the wording is the server's own, reported, not judged.
		Expect(SchemaMeaningDiff(tc.InputRaw, got.InputSchema)).To(BeEmpty(), "inputSchema means something else than %s (-want +got; annotations such as $id, title and description aside)", tc.Tool.InputSchema)
		Expect(SchemaMeaningDiff(tc.OutputRaw, got.OutputSchema)).To(BeEmpty(), "outputSchema means something else than %s (-want +got; annotations aside)", tc.Tool.OutputSchema)
		Expect(HintsDiff(tc.Tool.Annotations, got.Annotations)).To(BeEmpty(), "the annotations give other hints than tools.json (-want +got, MCP defaults for absent hints)")
		for what, d := range map[string]string{
			"inputSchema":  JSONDiff(tc.InputRaw, got.InputSchema),
			"outputSchema": JSONDiff(tc.OutputRaw, got.OutputSchema),
			"title":        cmp.Diff(tc.Tool.Title, got.Title),
			"description":  cmp.Diff(tc.Tool.Description, got.Description),
			"annotations":  JSONDiff(tc.Tool.Annotations, got.Annotations),
		} {
			if d != "" {
				AddReportEntry(fmt.Sprintf("information: %s %s is worded differently from the contract (not a failure; --strict-schemas makes it one)", name, what), d)
			}
		}
	}, entries)
})

var _ = Describe("structured output", Label("schema"), func() {
	var entries []TableEntry
	for _, t := range con.Manifest.Tools {
		entries = append(entries, Entry(t.Name, t.Name))
	}
	DescribeTable("a successful result validates against the output schema and its text agrees", func(name string) {
		ex, err := client().CallTool(suiteCtx, 12, name, baselineArgs(name), nil)
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess(name, ex, 12)
	}, entries)
})

package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Property-based cases: argument sets generated from each input schema.
// Valid ones never draw a protocol error (they get a schema-valid result or a
// catalogue tool error); invalid ones, with one constraint broken, always
// draw -32602 naming the broken field. Seeded: a failure names the seed and
// the case, and --seed=N replays the same cases.
var _ = Describe("generated arguments", Label("generated"), func() {
	for _, t := range con.Manifest.Tools {
		tool := t.Name
		It(tool+": valid arguments get a schema-valid result or a tool error", func() {
			gen := NewGenerator(propertySeed, tool+"/valid")
			signals := con.ToolErrorSignals()
			for i := 0; i < cfg.PropertyCases; i++ {
				args := gen.Valid(con.Tools[tool].Input)
				where := reproduce(tool, "valid", i, args)
				Expect(Validate(con.Tools[tool].InputSchema, mustJSON(args))).To(Succeed(), "generator bug: "+where)
				ex, err := client().CallTool(suiteCtx, i+100, tool, args, nil)
				Expect(err).NotTo(HaveOccurred(), where)
				Expect(ex.Status).To(Equal(200), "%s\n%s", where, ex.String())
				m, err := ex.Only()
				Expect(err).NotTo(HaveOccurred(), where)
				Expect(m.Error).To(BeNil(), "valid arguments drew a protocol error\n%s\n%s", where, ex.String())
				r, err := DecodeResult(m.Result)
				Expect(err).NotTo(HaveOccurred(), "%s\n%s", where, ex.String())
				if r.IsError {
					found := false
					for _, sig := range signals {
						found = found || strings.Contains(r.Text(), sig)
					}
					Expect(found).To(BeTrue(), "a tool error whose text carries no catalogue signal %v\n%s\n%s", signals, where, ex.String())
					continue
				}
				Expect(structuredProblems(tool, args, r)).To(BeEmpty(), "%s\n%s", where, ex.String())
			}
		})
		if len(Violations(con.Tools[tool].Input)) == 0 {
			continue
		}
		It(tool+": arguments with one constraint broken always draw -32602 naming the field", func() {
			gen := NewGenerator(propertySeed, tool+"/invalid")
			for i := 0; i < cfg.PropertyCases; i++ {
				args, v := gen.Invalid(con.Tools[tool].Input)
				where := reproduce(tool, "invalid ("+v.Name()+")", i, args)
				Expect(Validate(con.Tools[tool].InputSchema, mustJSON(args))).NotTo(Succeed(), "generator bug: "+where)
				ex, err := client().CallTool(suiteCtx, i+500, tool, args, nil)
				Expect(err).NotTo(HaveOccurred(), where)
				m, err := ex.Only()
				Expect(err).NotTo(HaveOccurred(), where)
				Expect(m.Error).NotTo(BeNil(), "invalid arguments were not refused\n%s\n%s", where, ex.String())
				Expect(m.Error.Code).To(Equal(-32602), "%s\n%s", where, ex.String())
				Expect(m.Error.Message).To(HavePrefix(v.MessagePrefix()), "%s\n%s", where, ex.String())
			}
		})
	}
})

// reproduce says how to replay a generated case.
func reproduce(tool, kind string, i int, args map[string]any) string {
	return fmt.Sprintf("%s %s case %d of seed %d (rerun with --seed=%d), arguments %s",
		tool, kind, i, propertySeed, propertySeed, mustJSON(args))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

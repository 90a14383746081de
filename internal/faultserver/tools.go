package faultserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// sampleResult is the part of a sample's response a tool answer is made of.
type sampleResult struct {
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent any `json:"structuredContent"`
	} `json:"result"`
}

// defaultTools answers each tool of the Trident contracts with its sample
// replies, read from contracts/trident/samples so they cannot drift from
// them: the <tool>.success result for every call, except that a call whose
// every argument equals the one of the same name in the <tool>.error sample
// (estimate_fare from "xxx", start_booking of six in a saloon) gets that
// sample's refusal. The contracts are embedded, so a failure here is a
// build defect.
func defaultTools() map[string]toolFunc {
	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		panic("faultserver: " + err.Error())
	}
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		panic("faultserver: " + err.Error())
	}
	byName := map[string]contracts.Sample{}
	for _, s := range samples {
		byName[s.Name] = s
	}
	tools := map[string]toolFunc{}
	for _, t := range m.Tools {
		ok := decodeSample(byName[t.Name+".success"])
		if ok.Result == nil || len(ok.Result.Content) == 0 {
			panic(fmt.Sprintf("faultserver: no success sample with a result for %s", t.Name))
		}
		structured, text := ok.Result.StructuredContent, ok.Result.Content[0].Text
		refusal, refusalArgs := "", map[string]any(nil)
		if s, found := byName[t.Name+".error"]; found {
			if r := decodeSample(s); r.Result != nil && r.Result.IsError && len(r.Result.Content) > 0 {
				refusal = r.Result.Content[0].Text
				var req struct {
					Params struct {
						Arguments map[string]any `json:"arguments"`
					} `json:"params"`
				}
				json.Unmarshal(s.Request, &req)
				refusalArgs = req.Params.Arguments
			}
		}
		tools[t.Name] = func(args map[string]any) (any, string, string) {
			if refusal != "" && len(args) > 0 && matches(args, refusalArgs) {
				return nil, "", refusal
			}
			return structured, text, ""
		}
	}
	return tools
}

func decodeSample(s contracts.Sample) sampleResult {
	var r sampleResult
	if len(s.Response) > 0 {
		json.Unmarshal(s.Response, &r)
	}
	return r
}

// matches reports whether every argument of args has the same value in want
// (numbers compared as JSON numbers, strings exactly).
func matches(args, want map[string]any) bool {
	for k, v := range args {
		w, ok := want[k]
		if !ok || !reflect.DeepEqual(normal(v), normal(w)) {
			return false
		}
	}
	return true
}

// normal is v as encoding/json decodes it (every number a float64).
func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

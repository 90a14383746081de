package docspage

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// FromContracts reads an endpoint's contract folder into the page's terms:
// its tools in tools/list order with their schemas exactly as written,
// each with its samples (the success pair first, so the console loads it),
// and its error catalogue (the shared rows, then the folder's own).
// schemaBase and sampleBase are the URL prefixes the endpoint serves its
// schema and sample files under ("/mcp-schemas/", "/samples/"); empty: no
// download links.
func FromContracts(set *contracts.Set, schemaBase, sampleBase string) ([]Tool, []Error, error) {
	m, err := set.Manifest()
	if err != nil {
		return nil, nil, err
	}
	samples, err := set.Samples()
	if err != nil {
		return nil, nil, err
	}
	link := func(base, name string) string {
		if base == "" {
			return ""
		}
		return base + name
	}
	var tools []Tool
	for _, ct := range m.Tools {
		in, err := ct.Input()
		if err != nil {
			return nil, nil, err
		}
		out, err := ct.Output()
		if err != nil {
			return nil, nil, err
		}
		var ann struct {
			ReadOnly bool `json:"readOnlyHint"`
		}
		if len(ct.Annotations) > 0 {
			if err := json.Unmarshal(ct.Annotations, &ann); err != nil {
				return nil, nil, fmt.Errorf("docspage: %s annotations: %w", ct.Name, err)
			}
		}
		t := Tool{
			Name: ct.Name, Title: ct.Title, Description: ct.Description, ReadOnly: ann.ReadOnly,
			Input: in, Output: out,
			InputURL:  link(schemaBase, strings.TrimPrefix(ct.InputSchema, "schemas/")),
			OutputURL: link(schemaBase, strings.TrimPrefix(ct.OutputSchema, "schemas/")),
		}
		for _, s := range samples {
			if strings.HasPrefix(s.Name, ct.Name+".") {
				t.Samples = append(t.Samples, Sample{
					Name: s.Name, Description: s.Description, URL: link(sampleBase, s.Name+".json"),
					Status: s.HTTP.Status, Request: s.Request, Response: s.Response,
				})
			}
		}
		sort.SliceStable(t.Samples, func(i, j int) bool {
			return strings.HasSuffix(t.Samples[i].Name, ".success") && !strings.HasSuffix(t.Samples[j].Name, ".success")
		})
		tools = append(tools, t)
	}
	rows, err := set.Errors()
	if err != nil {
		return nil, nil, err
	}
	var errs []Error
	for _, r := range rows {
		errs = append(errs, Error{
			Code: r.Name, Surface: r.Surface, JSONRPCCode: r.JSONRPCCode, HTTPStatus: r.HTTPStatus,
			Tools: r.Tools, Meaning: r.Meaning, Remedy: r.Remedy, Retryable: r.Retryable, Message: r.Message,
		})
	}
	return tools, errs, nil
}

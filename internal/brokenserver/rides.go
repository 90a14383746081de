package brokenserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// ridesVariants are defects of the Relay rides endpoint (/mcp/rides), which
// the suite must catch from outside as it catches Trident's.
func ridesVariants() []Variant {
	rides := func(ex *Exchange) bool { return strings.HasSuffix(ex.Request.URL.Path, "/mcp/rides") }
	return []Variant{
		{
			Name: "rides-unsigned-options", Defect: "issues Relay options without a signature",
			MustFail: []string{"Relay rides"},
			Response: func(ex *Exchange, _ Options) {
				if !rides(ex) {
					return
				}
				ex.editMessages(func(m map[string]any) {
					sc := structured(m)
					opts, _ := sc["options"].([]any)
					for _, o := range opts {
						if v, ok := o.(map[string]any)["verification"].(map[string]any); ok {
							v["signature"] = ""
						}
					}
					rewriteText(m)
				})
			},
		},
		{
			Name: "rides-invalid-arguments-as-32602", Defect: "answers Relay arguments that fail the schema with -32602 instead of an invalid_arguments result",
			MustFail: []string{"invalid_arguments"},
			Response: func(ex *Exchange, _ Options) {
				if !rides(ex) {
					return
				}
				ex.editMessages(func(m map[string]any) {
					if sc := structured(m); sc != nil && sc["status"] == "invalid_arguments" {
						delete(m, "result")
						m["error"] = map[string]any{"code": -32602, "message": "Invalid params"}
					}
				})
			},
		},
		{
			Name: "rides-accepts-expired-options", Defect: "accepts a Relay option after its expires_at",
			MustFail: []string{"refuses them once expired"},
			Response: func(ex *Exchange, _ Options) {
				if !rides(ex) || ex.Status != http.StatusOK || !presentsExpiredOption(ex.RequestBody) {
					return
				}
				ex.editMessages(func(m map[string]any) {
					if sc := structured(m); sc != nil && sc["status"] == "invalid_option" {
						m["result"].(map[string]any)["isError"] = false
					}
				})
			},
		},
		{
			Name: "rides-links-without-coordinates", Defect: "hands off to Uber's and Lyft's entry pages although the coordinates are known",
			MustFail: []string{"New York"},
			Response: func(ex *Exchange, _ Options) {
				if !rides(ex) || ex.Status != http.StatusOK {
					return
				}
				ex.editMessages(func(m map[string]any) {
					hs, _ := structured(m)["browser_handoffs"].([]any)
					for _, h := range hs {
						h := h.(map[string]any)
						if u, _ := h["url"].(string); strings.Contains(u, "latitude") || strings.Contains(u, "@") {
							h["url"], h["destination_kind"], h["parameters_applied"] = "https://example.com/", "provider_entry", false
						}
					}
					rewriteText(m)
				})
			},
		},
	}
}

// rewriteText keeps content[0].text the JSON of the edited
// structuredContent, so a defect shows as itself and not as a text mismatch.
func rewriteText(m map[string]any) {
	res, _ := m["result"].(map[string]any)
	if res == nil {
		return
	}
	b, err := json.Marshal(res["structuredContent"])
	if err != nil {
		return
	}
	if c, ok := res["content"].([]any); ok && len(c) > 0 {
		if item, ok := c[0].(map[string]any); ok {
			item["text"] = string(b)
		}
	}
}

// presentsExpiredOption reports whether a tools/call body hands Relay an
// option (option, or one of options) whose expires_at has passed.
func presentsExpiredOption(body []byte) bool {
	var call struct {
		Params struct {
			Arguments struct {
				Option  map[string]any   `json:"option"`
				Options []map[string]any `json:"options"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &call) != nil {
		return false
	}
	for _, o := range append(call.Params.Arguments.Options, call.Params.Arguments.Option) {
		if s, ok := o["expires_at"].(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil && time.Now().After(t) {
				return true
			}
		}
	}
	return false
}

package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// exportDate is fixed so regenerating gives the same file; Insomnia only shows it.
const exportDate = "2025-06-18T00:00:00.000Z"

// insomniaExport writes an Insomnia v4 export: a workspace, its base
// environment (mcpEndpoint, accessToken), a folder per tool holding that tool's
// request and its examples, and a folder for OAuth-only samples.
func insomniaExport(m *contracts.Manifest, calls []call) ([]byte, error) {
	wrk := id("wrk_", "workspace")
	res := []any{
		map[string]any{
			"_id": wrk, "_type": "workspace", "parentId": nil, "modified": 0, "created": 0,
			"name": "Trident Taxis MCP", "scope": "collection",
			"description": "MCP Streamable HTTP (protocol " + m.Server.ProtocolVersion + ") requests for " + m.Server.Name + " " + m.Server.Version + ", generated from contracts/. For OAuth mode, set accessToken in the Base environment and enable the Authorization header.",
		},
		map[string]any{
			"_id": id("env_", "base"), "_type": "environment", "parentId": wrk, "modified": 0, "created": 0,
			"name": "Base Environment", "isPrivate": false, "color": nil, "metaSortKey": 0,
			"data": map[string]any{"baseUrl": DefaultBaseURL, "mcpEndpoint": insomniaTemplate(mcpEndpointValue), "ridesEndpoint": insomniaTemplate(ridesEndpointValue),
				"connectorsEndpoint": insomniaTemplate(connectorsEndpointValue), "accessToken": "", "ridesAccessToken": ""},
			"dataPropertyOrder": map[string]any{"&": []string{"baseUrl", "mcpEndpoint", "ridesEndpoint", "connectorsEndpoint", "accessToken", "ridesAccessToken"}},
		},
	}
	folderOf := func(c call) string {
		if c.Folder == FolderOAuth || c.Folder == FolderRelay || c.Folder == FolderJourney {
			return c.Folder
		}
		var req struct {
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(c.Body, &req)
		for _, t := range m.Tools {
			if t.Name == req.Params.Name {
				return t.Name
			}
		}
		// A request naming no known tool (the -32601 sample) sits with the tool it misspells.
		for _, t := range m.Tools {
			if len(req.Params.Name) > len(t.Name) && req.Params.Name[:len(t.Name)] == t.Name {
				return t.Name
			}
		}
		return FolderExamples
	}
	folders := map[string]string{}
	for i, c := range calls {
		f := folderOf(c)
		fid, ok := folders[f]
		if !ok {
			fid = id("fld_", f)
			folders[f] = fid
			res = append(res, map[string]any{
				"_id": fid, "_type": "request_group", "parentId": wrk, "modified": 0, "created": 0,
				"name": f, "description": "", "environment": map[string]any{}, "environmentPropertyOrder": nil,
				"metaSortKey": len(folders) * 1000,
			})
		}
		var hs []map[string]any
		for _, h := range headers(c) {
			hs = append(hs, map[string]any{"name": h[0], "value": h[1]})
		}
		desc := "OAuth mode only: set " + tokenVar(c) + " in the Base environment and enable this header."
		if c.Anonymous {
			desc = "Left disabled on purpose: this request shows what a call without a token gets."
		}
		hs = append(hs, map[string]any{
			"name": "Authorization", "value": "Bearer {{ _." + tokenVar(c) + " }}", "disabled": true, "description": desc,
		})
		res = append(res, map[string]any{
			"_id": insomniaID(c), "_type": "request", "parentId": fid, "modified": 0, "created": 0,
			"name": c.Name, "description": c.Description, "method": "POST", "url": "{{ _." + c.endpointVar() + " }}",
			"body":       map[string]any{"mimeType": "application/json", "text": bodyFor(c, insomniaValue)},
			"parameters": []any{}, "headers": hs, "authentication": map[string]any{},
			// In the order of the calls, so that the journey's requests run in sequence.
			"metaSortKey": i + 1, "isPrivate": false,
			"settingStoreCookies": true, "settingSendCookies": true, "settingDisableRenderRequestBody": false,
			"settingEncodeUrl": true, "settingRebuildPath": true, "settingFollowRedirects": "global",
		})
	}
	return mustPretty(map[string]any{
		"_type": "export", "__export_format": 4, "__export_date": exportDate,
		"__export_source": "trident-mcp.gen-collections:v" + m.Server.Version,
		"resources":       res,
	}), nil
}

// insomniaID is a call's request id, which response tags name.
func insomniaID(c call) string { return id("req_", c.Folder, c.Name) }

// insomniaValue is how Insomnia substitutes a chained value: a response
// tag reading it from the last reply of the request that produced it (the
// journey's search; with 'never' the tag never resends that request, so
// it must be sent first). Insomnia's JSONPath filter returns a string as
// it is and anything else as JSON, so an object is spliced bare and a
// string inside the body's quotes.
func insomniaValue(v chained) string {
	tag := "{% response 'body', '" + insomniaID(call{Folder: FolderJourney, Name: journeySearch}) + "', 'b64::" +
		base64.StdEncoding.EncodeToString([]byte(v.Path)) + "::46b', 'never', 60 %}"
	if v.Object {
		return tag
	}
	return `"` + tag + `"`
}

// insomniaTemplate spells a Postman-style {{baseUrl}} reference as
// Insomnia's environment template, {{ _.baseUrl }}.
func insomniaTemplate(postman string) string {
	return strings.ReplaceAll(postman, "{{baseUrl}}", "{{ _.baseUrl }}")
}

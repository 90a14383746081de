package main

import (
	"encoding/json"

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
			"data":              map[string]any{"mcpEndpoint": DefaultEndpoint, "ridesEndpoint": DefaultRidesEndpoint, "accessToken": ""},
			"dataPropertyOrder": map[string]any{"&": []string{"mcpEndpoint", "ridesEndpoint", "accessToken"}},
		},
	}
	folderOf := func(c call) string {
		if c.Folder == FolderOAuth || c.Folder == FolderRelay {
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
				"metaSortKey": -(len(folders) * 1000),
			})
		}
		var hs []map[string]any
		for _, h := range headers(c.Headers) {
			hs = append(hs, map[string]any{"name": h[0], "value": h[1]})
		}
		desc := "OAuth mode only: set accessToken in the Base environment and enable this header."
		if c.Anonymous {
			desc = "Left disabled on purpose: this request shows what a call without a token gets."
		}
		hs = append(hs, map[string]any{
			"name": "Authorization", "value": "Bearer {{ _.accessToken }}", "disabled": true, "description": desc,
		})
		url := "{{ _.mcpEndpoint }}"
		if c.Rides {
			url = "{{ _.ridesEndpoint }}"
		}
		res = append(res, map[string]any{
			"_id": id("req_", c.Folder, c.Name), "_type": "request", "parentId": fid, "modified": 0, "created": 0,
			"name": c.Name, "description": c.Description, "method": "POST", "url": url,
			"body":       map[string]any{"mimeType": "application/json", "text": string(c.Body)},
			"parameters": []any{}, "headers": hs, "authentication": map[string]any{},
			"metaSortKey": -(i + 1), "isPrivate": false,
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

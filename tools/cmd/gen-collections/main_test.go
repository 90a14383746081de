package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/contracts"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// generate runs the generator into a fresh directory and returns its files.
func generate(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func TestOutputIsDeterministic(t *testing.T) {
	a, b := generate(t), generate(t)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two runs differ, so make check-generated would flap:\n%s", diff)
	}
	want := []string{"embed.gen.go", "index.json", "trident.insomnia.json", "trident.postman_collection.json"}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(a))); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// pmCollection is the part of a Postman v2.1 collection the checks read.
type pmCollection struct {
	Info struct {
		PostmanID string `json:"_postman_id"`
		Name      string `json:"name"`
		Schema    string `json:"schema"`
	} `json:"info"`
	Item []struct {
		Name string   `json:"name"`
		Item []pmItem `json:"item"`
	} `json:"item"`
	Variable []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"variable"`
}

type pmItem struct {
	Name  string `json:"name"`
	Event []struct {
		Listen string `json:"listen"`
		Script struct {
			Type string   `json:"type"`
			Exec []string `json:"exec"`
		} `json:"script"`
	} `json:"event"`
	Request struct {
		Method string     `json:"method"`
		Header []pmHeader `json:"header"`
		Body   struct {
			Mode string `json:"mode"`
			Raw  string `json:"raw"`
		} `json:"body"`
		URL struct {
			Raw string `json:"raw"`
		} `json:"url"`
	} `json:"request"`
}

// script returns the text of an item's script for listen ("prerequest" or
// "test"), failing unless there is exactly one.
func script(t *testing.T, it pmItem, listen string) []string {
	t.Helper()
	var found [][]string
	for _, e := range it.Event {
		if e.Listen == listen {
			found = append(found, e.Script.Exec)
		}
	}
	if len(found) != 1 || len(found[0]) == 0 {
		t.Fatalf("%s: want one %s script, got %+v", it.Name, listen, it.Event)
	}
	return found[0]
}

// expectationOf reads back the expectation a request's test script embeds.
func expectationOf(t *testing.T, it pmItem) expectation {
	t.Helper()
	first := script(t, it, "test")[0]
	js, ok := strings.CutPrefix(first, "const expected = ")
	if !ok {
		t.Fatalf("%s: script starts %q", it.Name, first)
	}
	var e expectation
	if err := json.Unmarshal([]byte(strings.TrimSuffix(js, ";")), &e); err != nil {
		t.Fatalf("%s: expectation %s: %v", it.Name, js, err)
	}
	return e
}

func TestPostmanCollection(t *testing.T) {
	var c pmCollection
	if err := json.Unmarshal(generate(t)["trident.postman_collection.json"], &c); err != nil {
		t.Fatal(err)
	}
	if c.Info.Schema != PostmanSchema {
		t.Errorf("info.schema = %q", c.Info.Schema)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(c.Info.PostmanID) {
		t.Errorf("_postman_id %q is not a UUID", c.Info.PostmanID)
	}
	vars := map[string]string{}
	for _, v := range c.Variable {
		vars[v.Key] = v.Value
	}
	if diff := cmp.Diff(map[string]string{"baseUrl": DefaultBaseURL, "mcpEndpoint": "{{baseUrl}}/mcp", "ridesEndpoint": "{{baseUrl}}/mcp/rides", "connectorsEndpoint": "{{baseUrl}}/v1/session/connectors",
		"accessToken": "", "ridesAccessToken": "", "journeyContext": "", "journeyId": ""}, vars); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}

	m, err := tridentcontracts.Set.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	byFolder := map[string][]pmItem{}
	for _, f := range c.Item {
		byFolder[f.Name] = f.Item
	}
	// The OAuth folder opens with the mode probe; its other requests
	// skip themselves when the probe finds a public server.
	oauth := byFolder[FolderOAuth]
	if len(oauth) < 2 || oauth[0].Name != ProbeName {
		t.Fatalf("the %q folder must open with %q, then its samples: %d items", FolderOAuth, ProbeName, len(oauth))
	}
	probe := oauth[0]
	if probe.Request.Method != "GET" || probe.Request.URL.Raw != "{{resourceMetadataUrl}}" {
		t.Errorf("probe: %s %s", probe.Request.Method, probe.Request.URL.Raw)
	}
	pre := strings.Join(script(t, probe, "prerequest"), "\n")
	if !strings.Contains(pre, `pm.variables.replaceIn("{{mcpEndpoint}}")`) || !strings.Contains(pre, `"/.well-known/oauth-protected-resource"`) {
		t.Errorf("probe: the pre-request script must derive the metadata URL from mcpEndpoint:\n%s", pre)
	}
	if test := strings.Join(script(t, probe, "test"), "\n"); !strings.Contains(test, `pm.variables.set("serverMode", mode)`) {
		t.Errorf("probe: the test script must record the mode:\n%s", test)
	}
	byFolder[FolderOAuth] = oauth[1:]

	var tools, examples []string
	for _, it := range byFolder[FolderTools] {
		tools = append(tools, it.Name)
	}
	for _, f := range []string{FolderExamples, FolderOAuth} {
		for _, it := range byFolder[f] {
			examples = append(examples, it.Name)
		}
	}
	var wantTools, wantExamples []string
	for _, tl := range m.Tools {
		wantTools = append(wantTools, tl.Name)
	}
	for _, s := range samples {
		wantExamples = append(wantExamples, s.Name)
	}
	wantExamples = append(wantExamples, "start_booking.success (streamed)")
	if diff := cmp.Diff(wantTools, tools); diff != "" {
		t.Errorf("Tools folder: one request per tool (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(wantExamples)), slices.Sorted(slices.Values(examples))); diff != "" {
		t.Errorf("examples: every sample and the streamed call (-want +got):\n%s", diff)
	}
	var relay []string
	for _, it := range byFolder[FolderRelay] {
		relay = append(relay, strings.TrimPrefix(it.Name, "rides/"))
	}
	if diff := cmp.Diff(relaySamples, relay); diff != "" {
		t.Errorf("Relay folder (-want +got):\n%s", diff)
	}

	for folder, items := range byFolder {
		for _, it := range items {
			where := folder + "/" + it.Name
			r := it.Request
			relay := folder == FolderRelay || folder == FolderJourney
			// The connector reports are plain JSON requests beside the MCP endpoint.
			plain := !strings.Contains(r.Body.Raw, `"jsonrpc"`)
			endpoint := "{{mcpEndpoint}}"
			switch {
			case plain:
				endpoint = "{{connectorsEndpoint}}"
			case relay:
				endpoint = "{{ridesEndpoint}}"
			}
			if r.Method != "POST" || r.URL.Raw != endpoint || r.Body.Mode != "raw" {
				t.Errorf("%s: %s %s body mode %q", where, r.Method, r.URL.Raw, r.Body.Mode)
			}
			// The journey's chained values: the context bare, the id quoted.
			raw := strings.NewReplacer("{{journeyContext}}", `{"journey_id":"j"}`, "{{journeyId}}", "j").Replace(r.Body.Raw)
			if plain {
				if folder != FolderJourney || json.Unmarshal([]byte(raw), new(map[string]any)) != nil {
					t.Errorf("%s: a plain request must be the journey's and JSON: %s", where, r.Body.Raw)
				}
			}
			var body struct {
				JSONRPC string `json:"jsonrpc"`
				Method  string `json:"method"`
				Params  struct {
					Name string         `json:"name"`
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(raw), &body); !plain && (err != nil || body.JSONRPC != "2.0" || body.Method != "tools/call") {
				t.Errorf("%s: body is not a tools/call: %v %s", where, err, r.Body.Raw)
			}
			h := map[string]pmHeader{}
			for _, x := range r.Header {
				h[x.Key] = x
			}
			accept := "application/json, text/event-stream"
			if it.Name == "errors/not_acceptable" {
				accept = "application/json" // the 406 sample's narrowed Accept
			}
			want := map[string]string{"Content-Type": "application/json", "Accept": accept, "MCP-Protocol-Version": "2025-06-18"}
			if plain {
				want = map[string]string{"Content-Type": "application/json", "Accept": "application/json"}
				if _, ok := h["MCP-Protocol-Version"]; ok {
					t.Errorf("%s: a plain request sends MCP-Protocol-Version", where)
				}
			}
			for k, v := range want {
				if h[k].Value != v || h[k].Disabled {
					t.Errorf("%s: header %s = %+v, want %q enabled", where, k, h[k], v)
				}
			}
			tokenVar := "accessToken"
			if relay {
				tokenVar = "ridesAccessToken"
			}
			auth, ok := h["Authorization"]
			if !ok || auth.Value != "Bearer {{"+tokenVar+"}}" {
				t.Errorf("%s: Authorization header %+v", where, auth)
			}
			if !auth.Disabled {
				t.Errorf("%s: the Authorization header is enabled: public mode must not send it", where)
			}
			// The token goes out through the pre-request script, when set,
			// on every request but the anonymous 401 one; the OAuth-only
			// requests skip themselves against a public server.
			// Relay's requests send ridesAccessToken instead (a token for
			// Relay's own resource) and skip themselves against an OAuth
			// server when it is not set.
			pre := strings.Join(script(t, it, "prerequest"), "\n")
			anonymous := it.Name == "errors/unauthorized"
			if sends := strings.Contains(pre, `pm.variables.get("`+tokenVar+`")`); sends == anonymous {
				t.Errorf("%s: the pre-request script sends %s = %v, want %v:\n%s", where, tokenVar, sends, !anonymous, pre)
			}
			if skips := strings.Contains(pre, "pm.execution.skipRequest()"); skips != (folder == FolderOAuth || relay) {
				t.Errorf("%s: skips itself = %v, want %v", where, skips, folder == FolderOAuth || relay)
			}
			if relay && !strings.Contains(pre, `pm.variables.get("serverMode") === "oauth"`) {
				t.Errorf("%s: a Relay request must skip only against an OAuth server:\n%s", where, pre)
			}

			e := expectationOf(t, it)
			switch {
			case folder == FolderTools:
				if !e.ResultOnly || e.Status != 200 {
					t.Errorf("%s: a tool request must assert a result: %+v", where, e)
				}
			case plain:
				if e.Status != 200 || len(e.Report) == 0 {
					t.Errorf("%s: a connector report must assert the stored report: %+v", where, e)
				}
			case relay:
				if e.ToolStatus == "" || e.Status != 200 || e.ResultOnly == e.Refusal {
					t.Errorf("%s: a Relay request must assert its status, and a result or a refusal: %+v", where, e)
				}
			case strings.HasSuffix(it.Name, "(streamed)"):
				if !e.Streamed || body.Params.Meta["progressToken"] == nil || len(e.Result) == 0 {
					t.Errorf("%s: the streamed call needs _meta.progressToken and a streamed, exact expectation: %+v %s", where, e, r.Body.Raw)
				}
			default:
				if e.ResultOnly || (len(e.Result) == 0 && e.ErrorCode == 0) {
					t.Errorf("%s: an example must assert its documented reply: %+v", where, e)
				}
			}
			if it.Name == "errors/unauthorized" && (e.Status != 401 || e.ErrorCode != -32001 || !e.Challenge) {
				t.Errorf("%s: want 401, -32001 and the challenge checked: %+v", where, e)
			}
		}
	}
}

func TestInsomniaExport(t *testing.T) {
	files := generate(t)
	var ex struct {
		Type      string           `json:"_type"`
		Format    int              `json:"__export_format"`
		Resources []map[string]any `json:"resources"`
	}
	if err := json.Unmarshal(files["trident.insomnia.json"], &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Type != "export" || ex.Format != 4 {
		t.Fatalf("_type %q __export_format %d, want export 4", ex.Type, ex.Format)
	}
	ids := map[string]map[string]any{}
	for _, r := range ex.Resources {
		ids[r["_id"].(string)] = r
	}
	var pm pmCollection
	if err := json.Unmarshal(files["trident.postman_collection.json"], &pm); err != nil {
		t.Fatal(err)
	}
	pmCount := 0 // tools/call requests: Insomnia runs no scripts, so it has no mode probe
	for _, f := range pm.Item {
		for _, it := range f.Item {
			if it.Name != ProbeName {
				pmCount++
			}
		}
	}
	requests := 0
	for _, r := range ex.Resources {
		typ := r["_type"].(string)
		prefix := map[string]string{"workspace": "wrk_", "environment": "env_", "request_group": "fld_", "request": "req_"}[typ]
		if prefix == "" || !strings.HasPrefix(r["_id"].(string), prefix) {
			t.Errorf("resource %v: type %q with id %v", r["name"], typ, r["_id"])
		}
		if typ == "workspace" {
			continue
		}
		parent, ok := ids[r["parentId"].(string)]
		if !ok {
			t.Errorf("%v: parentId %v is not a resource", r["name"], r["parentId"])
			continue
		}
		if typ != "request" {
			continue
		}
		requests++
		folder := parent["name"].(string)
		relay := folder == FolderRelay || folder == FolderJourney
		text := r["body"].(map[string]any)["text"].(string)
		url, tokenVar := "{{ _.mcpEndpoint }}", "accessToken"
		switch {
		case !strings.Contains(text, `"jsonrpc"`):
			url, tokenVar = "{{ _.connectorsEndpoint }}", "ridesAccessToken"
		case relay:
			url, tokenVar = "{{ _.ridesEndpoint }}", "ridesAccessToken"
		}
		if r["url"] != url || r["method"] != "POST" {
			t.Errorf("%s/%v: %v %v", folder, r["name"], r["method"], r["url"])
		}
		// The journey's requests read the search's reply with response tags.
		if folder == FolderJourney && r["name"] != journeySearch && !strings.Contains(text, "{% response 'body', '"+insomniaID(call{Folder: FolderJourney, Name: journeySearch})+"', 'b64::") {
			t.Errorf("%s/%v: no response tag reading %q: %s", folder, r["name"], journeySearch, text)
		}
		var auth map[string]any
		for _, h := range r["headers"].([]any) {
			if hm := h.(map[string]any); hm["name"] == "Authorization" {
				auth = hm
			}
		}
		if auth == nil || auth["value"] != "Bearer {{ _."+tokenVar+" }}" || auth["disabled"] != true {
			t.Errorf("%s/%v: Authorization header %v, want present and disabled", folder, r["name"], auth)
		}
	}
	if requests != pmCount {
		t.Errorf("insomnia has %d requests, postman %d", requests, pmCount)
	}
}

func TestExampleCallRefusesAResponseWithNeitherResultNorError(t *testing.T) {
	_, err := exampleCall(contracts.Sample{Name: "bad", Request: json.RawMessage(`{}`), Response: json.RawMessage(`{"jsonrpc":"2.0","id":1}`)})
	if err == nil {
		t.Fatal("want an error")
	}
}

func TestIndexNamesBothFiles(t *testing.T) {
	files := generate(t)
	var idx struct {
		Collections map[string]struct {
			Ref string `json:"$ref"`
		} `json:"collections"`
	}
	if err := json.Unmarshal(files["index.json"], &idx); err != nil {
		t.Fatal(err)
	}
	for name, c := range idx.Collections {
		if _, ok := files[c.Ref]; !ok {
			t.Errorf("index.json %s names %q, which is not generated", name, c.Ref)
		}
	}
	if !bytes.Contains(files["embed.gen.go"], []byte("// Code generated")) {
		t.Error("embed.gen.go lacks the generated-code header")
	}
}

// The journey folder reaches every continue_journey status the
// specification lists, through connector reports, in one run.
func TestJourneyWalkReachesEveryStatus(t *testing.T) {
	calls, err := journeyCalls()
	if err != nil {
		t.Fatal(err)
	}
	if calls[0].Name != journeySearch || len(calls[0].Expect.Save) != 2 {
		t.Fatalf("the walk must open with the search saving the context: %+v", calls[0])
	}
	var statuses []string
	reports := 0
	for _, c := range calls[1:] {
		if c.HTTP {
			reports++
			continue
		}
		statuses = append(statuses, c.Expect.ToolStatus)
		if len(uses(c)) != 2 {
			t.Errorf("%s: carries %v, want the context and the journey id", c.Name, uses(c))
		}
		if (c.Expect.ToolStatus == "ready") != (len(c.Expect.NextAction) > 0) {
			t.Errorf("%s: next_action %s", c.Name, c.Expect.NextAction)
		}
	}
	want := []string{"connection_required", "disabled", "installation_unknown", "proposal", "ready", "unauthorized", "unavailable"}
	if diff := cmp.Diff(want, slices.Compact(slices.Sorted(slices.Values(statuses)))); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if reports != 2 {
		t.Errorf("%d connector reports, want 2", reports)
	}
}

// The walk is refused when the registry no longer gives the status it
// claims, rather than shipping a collection that fails against every server.
func TestJourneyWalkFollowsTheRegistry(t *testing.T) {
	on := map[string]relaycontracts.Connector{"car_rental": {ID: "car_rental", EntryTool: "search_car_rentals", Enabled: true}}
	if _, err := continueCall(step{"car_rental", "unavailable", ""}, on, secondReport); err == nil {
		t.Error("a connector switched on in the registry was expected unavailable")
	}
	var lacks relaycontracts.Connector
	if err := json.Unmarshal([]byte(`{"id":"stays","entry_tool":"search_stays","enabled":true,"arguments":[{"name":"near","from":"origin_airport","required":true}]}`), &lacks); err != nil {
		t.Fatal(err)
	}
	if _, err := continueCall(step{"stays", "ready", ""}, map[string]relaycontracts.Connector{"stays": lacks}, firstReport); err == nil {
		t.Error("a connector lacking a required field was expected ready")
	}
	if _, err := continueCall(step{"stays", "ready", ""}, map[string]relaycontracts.Connector{}, firstReport); err == nil {
		t.Error("a connector the registry lacks was taken")
	}
}

package main

import (
	"encoding/json"
	"strings"
)

// testScript is the Postman test script of one request: it parses a JSON or
// SSE reply (WHATWG framing: blank-line events, joined data lines, any line
// ending), picks the final frame by the request's id, and checks what the
// expectation says. The same text serves every request; only `expected` differs.
func testScript(e expectation) []string {
	exp, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	script := `const expected = ` + string(exp) + `;
const req = JSON.parse(pm.request.body.raw);
const ct = (pm.response.headers.get("Content-Type") || "").toLowerCase();

function parseSSE(text) {
  const frames = [];
  let data = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  for (const line of lines) {
    if (line === "") {
      if (data.length) { frames.push(JSON.parse(data.join("\n"))); data = []; }
      continue;
    }
    if (line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
  }
  if (data.length) frames.push(JSON.parse(data.join("\n")));
  return frames;
}

pm.test("HTTP status is " + expected.status, () => pm.response.to.have.status(expected.status));

let frame = null;
if (ct.includes("text/event-stream")) {
  const frames = parseSSE(pm.response.text());
  const last = frames.findIndex((f) => f.id !== undefined && f.id === req.id && ("result" in f || "error" in f));
  pm.test("SSE stream ends with a framed response whose id matches", () => {
    pm.expect(last, "a response frame with id " + JSON.stringify(req.id)).to.be.at.least(0);
    pm.expect(last, "the response frame is the last frame").to.equal(frames.length - 1);
  });
  if (expected.streamed) {
    pm.test("progress notifications come before the final frame", () => {
      pm.expect(frames.slice(0, last).some((f) => f.method === "notifications/progress")).to.equal(true);
    });
  }
  frame = frames[last] || null;
} else {
  if (expected.streamed) {
    pm.test("a call with _meta.progressToken is answered as text/event-stream", () => pm.expect(ct).to.include("text/event-stream"));
  }
  try { frame = pm.response.json(); } catch (e) { frame = null; }
  pm.test("reply is a JSON-RPC message", () => pm.expect(frame).to.be.an("object"));
}

if (frame && expected.status === 200) {
  pm.test("JSON-RPC id echoes the request", () => pm.expect(frame.id).to.eql(req.id));
}
if (expected.resultOnly) {
  pm.test("JSON-RPC result is present", () => {
    pm.expect(frame).to.have.property("result");
    pm.expect(frame.result.isError, "isError").to.not.equal(true);
  });
}
if (expected.errorCode) {
  pm.test("JSON-RPC error " + expected.errorCode, () => {
    pm.expect(frame).to.have.property("error");
    pm.expect(frame.error.code).to.equal(expected.errorCode);
  });
}
if (expected.errorText) {
  pm.test("tool error: isError with the documented text", () => {
    pm.expect(frame.result.isError).to.equal(true);
    pm.expect(frame.result.content[0].text).to.equal(expected.errorText);
  });
}
if (expected.challenge) {
  pm.test("WWW-Authenticate is a Bearer challenge naming resource_metadata", () => {
    const h = pm.response.headers.get("WWW-Authenticate") || "";
    pm.expect(h.toLowerCase()).to.match(/^bearer /);
    pm.expect(h).to.match(/resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/);
  });
}
if (expected.toolStatus) {
  pm.test("structuredContent.status is " + expected.toolStatus + (expected.refusal ? " (a refusal)" : ""), () => {
    pm.expect(frame).to.have.property("result");
    pm.expect(frame.result.isError === true, "isError").to.equal(Boolean(expected.refusal));
    pm.expect(frame.result.structuredContent.status).to.equal(expected.toolStatus);
    pm.expect(JSON.parse(frame.result.content[0].text)).to.eql(frame.result.structuredContent);
  });
}
if (expected.continueJourney) {
  const sc = (frame && frame.result && frame.result.structuredContent) || {};
  pm.test(expected.nextAction ? "next_action names the connector, its entry tool and the journey's arguments" : "no next_action unless ready", () => {
    pm.expect(sc.next_action ?? null).to.eql(expected.nextAction ?? null);
  });
  pm.test("missing_fields is " + JSON.stringify(expected.missingFields || []), () => {
    pm.expect(sc.missing_fields).to.have.members(expected.missingFields || []);
    pm.expect(sc.missing_fields).to.have.lengthOf((expected.missingFields || []).length);
  });
}
if (expected.result) {
  pm.test("result matches the documented sample", () => pm.expect(frame.result).to.eql(expected.result));
}
` + saveScript
	return strings.Split(script, "\n")
}

// saveScript keeps the values expected.save names from the reply (frame:
// the JSON-RPC message) in collection variables for the requests after it,
// failing the request when one is missing.
const saveScript = `for (const [name, path] of Object.entries(expected.save || {})) {
  const value = path.replace(/^\$\./, "").split(".").reduce((o, k) => (o == null ? undefined : o[k]), frame);
  pm.test("the reply carries " + path + " (kept in " + name + ")", () => pm.expect(value).to.not.equal(undefined));
  if (value !== undefined) pm.collectionVariables.set(name, typeof value === "string" ? value : JSON.stringify(value));
}`

// reportTestScript is the test script of a connector report (POST
// /v1/session/connectors): the stored report comes back for the session
// of the journey's context, with available defaulted.
func reportTestScript(e expectation) []string {
	exp, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	script := `const expected = ` + string(exp) + `;
pm.test("HTTP status is " + expected.status, () => pm.response.to.have.status(expected.status));
let body = null;
try { body = pm.response.json(); } catch (e) { body = null; }
pm.test("the report as stored, available defaulted", () => {
  pm.expect(body).to.be.an("object");
  pm.expect(body.connectors).to.eql(expected.report);
});
pm.test("for the session of the journey's relay_context", () => {
  pm.expect(body.session_id).to.equal(JSON.parse(pm.variables.get("` + journeyContext.Var + `")).session_id);
});`
	return strings.Split(script, "\n")
}

// preRequestScript runs before one tools/call request. In the OAuth folder
// it skips the request when the folder's probe found a public server (there
// is nothing OAuth-only to see there); every request but the anonymous one
// sends accessToken as the Authorization header when it is set, so one run
// passes against an OAuth server with a token and a public one without.
func preRequestScript(c call) []string {
	var lines []string
	if c.Folder == FolderOAuth {
		lines = append(lines,
			`// OAuth mode only: skipped when "`+ProbeName+`" found a public server.`,
			`if (pm.variables.get("serverMode") === "public") {`,
			`  console.log("Skipped \"" + pm.info.requestName + "\": the server is in public mode (its protected-resource metadata names no authorization server), so this OAuth-mode request does not apply.");`,
			`  pm.execution.skipRequest();`,
			`}`)
	}
	if c.Anonymous {
		return append(lines, `// Sent without a token on purpose, whatever accessToken holds: it shows the documented 401.`)
	}
	if c.Rides {
		lines = append(lines,
			`// In OAuth mode Relay needs a token for its own resource: skipped without one.`,
			`if (pm.variables.get("serverMode") === "oauth" && !pm.variables.get("ridesAccessToken")) {`,
			`  console.log("Skipped \"" + pm.info.requestName + "\": the server is in OAuth mode and ridesAccessToken (a token for ridesEndpoint's resource) is not set.");`,
			`  pm.execution.skipRequest();`,
			`}`)
	}
	for _, v := range uses(c) {
		lines = append(lines,
			`// Carries `+v.Var+` from "`+journeySearch+`": send that first.`,
			`if (!pm.variables.get("`+v.Var+`")) {`,
			`  throw new Error("`+v.Var+` is not set: send \"`+journeySearch+`\" first; its reply opens the journey this request continues.");`,
			`}`)
	}
	token := tokenVar(c)
	return append(lines,
		`// OAuth mode: send `+token+`, when set, as "Authorization: Bearer <token>".`,
		`const token = pm.variables.get("`+token+`");`,
		`if (token) {`,
		`  pm.request.headers.remove("Authorization");`,
		`  pm.request.headers.add({ key: "Authorization", value: "Bearer " + token });`,
		`}`)
}

// probePreRequestScript derives the metadata URL from mcpEndpoint: its
// origin and the RFC 9728 well-known path, where the specification shows
// the document. replaceIn resolves mcpEndpoint's own {{baseUrl}}, which
// pm.variables.get would return as written.
func probePreRequestScript() []string {
	return strings.Split(`const endpoint = pm.variables.replaceIn("{{mcpEndpoint}}") || "";
const origin = (endpoint.match(/^[a-z][a-z0-9+.-]*:\/\/[^\/?#]+/i) || [""])[0];
pm.variables.set("resourceMetadataUrl", origin + "/.well-known/oauth-protected-resource");`, "\n")
}

// probeTestScript checks the document and records the mode for the rest
// of the run: OAuth when authorization_servers names an issuer, public
// when it is empty.
func probeTestScript() []string {
	return strings.Split(`pm.test("HTTP status is 200", () => pm.response.to.have.status(200));
let doc = null;
try { doc = pm.response.json(); } catch (e) { doc = null; }
pm.test("an RFC 9728 protected-resource document accepting bearer tokens in the header", () => {
  pm.expect(doc).to.be.an("object");
  pm.expect(doc.resource).to.be.a("string");
  pm.expect(doc.authorization_servers).to.be.an("array");
  pm.expect(doc.bearer_methods_supported).to.eql(["header"]);
});
const servers = (doc && Array.isArray(doc.authorization_servers)) ? doc.authorization_servers : [];
const mode = servers.length > 0 ? "oauth" : "public";
pm.variables.set("serverMode", mode);
if (mode === "public") {
  console.log("Public mode: no authorization server is named, so the rest of the \"OAuth mode\" folder skips itself.");
  pm.test("public mode: the OAuth-only requests of this folder are skipped", () => pm.expect(doc.authorization_required).to.not.equal(true));
} else {
  pm.test("OAuth mode: tokens come from " + servers[0], () => pm.expect(servers[0]).to.match(/^https?:\/\//));
}`, "\n")
}

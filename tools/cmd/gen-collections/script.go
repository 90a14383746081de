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
if (expected.result) {
  pm.test("result matches the documented sample", () => pm.expect(frame.result).to.eql(expected.result));
}`
	return strings.Split(script, "\n")
}

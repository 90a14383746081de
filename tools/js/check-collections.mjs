// Checks the generated collections with the tools their users import them
// into, and runs the Insomnia requests against a live server:
//   - Postman: the file is parsed by Postman's own SDK (postman-collection,
//     which newman runs on) and checked against the v2.1 structure it must have;
//     newman itself runs the collection separately (see the Makefile).
//   - Insomnia: the export is parsed by Insomnia's importer package
//     (insomnia-importers, the 'insomnia-4' importer the app uses), each
//     request is rendered with the Base environment, baseUrl set to BASE_URL
//     (the one value a tester sets), and sent there,
//     and its reply is compared with the sample it was generated from (the
//     Relay journey's, which have no sample, with the expectation the Postman
//     test script of the same request holds). Response tags, with which the
//     journey's requests read the context of its first reply, are rendered as
//     Insomnia renders them (jsonpath-plus, its JSONPath library).
// Usage: BASE_URL=http://127.0.0.1:PORT node check-collections.mjs
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Collection, VariableScope } = require("postman-collection");
const importers = require("insomnia-importers");
const { JSONPath } = require("jsonpath-plus");

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (p) => readFileSync(join(root, p), "utf8");
let failures = 0;
const fail = (msg) => { console.error("FAIL " + msg); failures++; };
const check = (cond, msg) => { if (!cond) fail(msg); };

// ---- Postman ---------------------------------------------------------------
const pmRaw = JSON.parse(read("collections/trident.postman_collection.json"));
check(pmRaw.info?.schema === "https://schema.getpostman.com/json/collection/v2.1.0/collection.json", "postman: info.schema must name v2.1.0");
// The v2.1.0 format rules (tools/js/schemas: restated from the published
// definitions), with two broken copies to show the check can fail.
{
  const Ajv2020 = require("ajv/dist/2020").default;
  // strictRequired is off: the variable rule's anyOf names members its parent defines.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  const v = ajv.compile(JSON.parse(read("tools/js/schemas/postman-collection-v2.1.0.schema.json")));
  check(v(pmRaw), "postman: fails the v2.1.0 format rules: " + JSON.stringify(v.errors?.slice(0, 3)));
  const noValue = structuredClone(pmRaw);
  delete noValue.item[0].item[0].request.header[0].value;
  const neither = structuredClone(pmRaw);
  neither.item[0].item.push({ name: "neither request nor item" });
  check(!v(noValue) && !v(neither), "postman: the v2.1.0 rules accept a header without value or an item without request");
}
const pm = new Collection(pmRaw);
const pmItems = [];
pm.forEachItem((item) => pmItems.push(item));
// The SDK skips what it cannot read rather than failing, so count the raw
// requests too: the two numbers differ when an item is malformed.
const rawRequests = (items) => items.reduce((n, it) => n + (it.item ? rawRequests(it.item) : it.request ? 1 : 0), 0);
check(pmItems.length === rawRequests(pmRaw.item), `postman: the SDK loads ${pmItems.length} of ${rawRequests(pmRaw.item)} requests`);
check(pmItems.length >= 3, `postman: only ${pmItems.length} requests`);
// The OAuth folder opens with the mode probe: a GET of the protected-resource
// metadata whose answer lets the folder skip itself against a public server.
const probeName = "Read the protected-resource metadata";
const probes = pmItems.filter((item) => item.name === probeName);
check(probes.length === 1 && probes[0].parent()?.name === "OAuth mode" && probes[0].parent().items.idx(0) === probes[0],
  `postman: want '${probeName}' once, first in the OAuth mode folder`);
for (const item of probes) {
  check(item.request.method === "GET" && item.request.url.toString() === "{{resourceMetadataUrl}}", `postman probe: ${item.request.method} ${item.request.url.toString()}`);
  const pre = item.events.listeners("prerequest").map((l) => l.script.exec.join("\n")).join("\n");
  check(pre.includes("mcpEndpoint") && pre.includes("/.well-known/oauth-protected-resource"), "postman probe: its pre-request script must derive the metadata URL from mcpEndpoint");
  const test = item.events.listeners("test").map((l) => l.script.exec.join("\n")).join("\n");
  check(test.includes('pm.variables.set("serverMode"'), "postman probe: its test script must record the mode");
}
// The Relay journey's requests carry the context of its first reply in
// collection variables, which that reply's test script sets.
const chained = { journeyContext: "{}", journeyId: "jny" };
const relayFolders = ["Relay rides", "Relay journey"];
const expectedOf = (item) => {
  const line = item.events.listeners("test")[0]?.script.exec[0] || "";
  const m = line.match(/^const expected = (.*);$/);
  return m ? JSON.parse(m[1]) : null;
};
const journeyExpected = new Map();
for (const item of pmItems.filter((it) => it.name !== probeName)) {
  const req = item.request;
  const folder = item.parent()?.name;
  const where = `postman '${folder}/${item.name}'`;
  check(req.method === "POST", `${where}: method ${req.method}`);
  let body = null;
  try { body = JSON.parse(req.body.raw.replace(/\{\{(\w+)\}\}/g, (t, k) => chained[k] ?? t)); } catch (e) { fail(`${where}: body is not JSON`); }
  // The connector report is a plain JSON request beside the MCP endpoint.
  const plain = body && !("jsonrpc" in body);
  const relay = relayFolders.includes(folder);
  const wantURL = plain ? "{{connectorsEndpoint}}" : relay ? "{{ridesEndpoint}}" : "{{mcpEndpoint}}";
  check(req.url.toString() === wantURL, `${where}: url ${req.url.toString()}`);
  check(!plain || folder === "Relay journey", `${where}: a plain request outside the journey folder`);
  const h = Object.fromEntries(req.headers.all().map((x) => [x.key, x]));
  check(h["Content-Type"]?.value === "application/json", `${where}: Content-Type`);
  // The 406 sample narrows Accept on purpose; every other request sends both types.
  const accept = item.name === "errors/not_acceptable" || plain ? "application/json" : "application/json, text/event-stream";
  check(h["Accept"]?.value === accept && !h["Accept"]?.disabled, `${where}: Accept ${h["Accept"]?.value}`);
  check(plain ? !h["MCP-Protocol-Version"] : h["MCP-Protocol-Version"]?.value === "2025-06-18", `${where}: MCP-Protocol-Version`);
  // Relay is a resource of its own: its requests send ridesAccessToken, and
  // skip themselves against an OAuth server when it is not set.
  const tokenVar = relay ? "ridesAccessToken" : "accessToken";
  check(h["Authorization"]?.value === `Bearer {{${tokenVar}}}`, `${where}: Authorization header ${h["Authorization"]?.value}`);
  // Public mode must not send it: disabled everywhere, and the pre-request
  // script sends the token when one is set (never on the anonymous 401 call).
  check(Boolean(h["Authorization"]?.disabled), `${where}: Authorization disabled=${h["Authorization"]?.disabled}`);
  const tests = item.events.listeners("test");
  check(tests.length === 1 && tests[0].script.exec.length > 5 && expectedOf(item), `${where}: no test script with its expectation`);
  if (folder === "Relay journey") journeyExpected.set(item.name, expectedOf(item));
  const pre = item.events.listeners("prerequest").map((l) => l.script.exec.join("\n")).join("\n");
  const anonymous = item.name === "errors/unauthorized";
  check(pre.includes(`pm.variables.get("${tokenVar}")`) !== anonymous, `${where}: the pre-request script ${anonymous ? "must not send" : "must send"} ${tokenVar}`);
  check(pre.includes("pm.execution.skipRequest()") === (folder === "OAuth mode" || relay), `${where}: only the OAuth mode and Relay folders skip themselves`);
  if (relay) check(pre.includes('pm.variables.get("serverMode") === "oauth"'), `${where}: a Relay request skips only against an OAuth server`);
}
// The journey folder opens with the search whose reply sets the variables
// every later request of the folder carries.
{
  const journey = pmItems.filter((it) => it.parent()?.name === "Relay journey");
  const save = journey.length ? expectedOf(journey[0])?.save || {} : {};
  check(journey.length > 1 && save.journeyContext === "$.result.structuredContent.relay_context" && save.journeyId === "$.result.structuredContent.relay_context.journey_id",
    `postman: the Relay journey folder must open with a request saving journeyContext and journeyId, got ${JSON.stringify(save)}`);
  for (const item of journey.slice(1)) {
    const pre = item.events.listeners("prerequest").map((l) => l.script.exec.join("\n")).join("\n");
    check(item.request.body.raw.includes("{{journeyContext}}") && pre.includes('pm.variables.get("journeyContext")'),
      `postman 'Relay journey/${item.name}': must carry {{journeyContext}} and refuse to run without it`);
  }
  const statuses = new Set([...journeyExpected.values()].map((e) => e.toolStatus).filter(Boolean));
  for (const st of ["installation_unknown", "ready", "proposal", "connection_required", "disabled", "unauthorized", "unavailable"]) {
    check(statuses.has(st), `postman: the Relay journey folder reaches no continue_journey status ${st}`);
  }
}
const vars = Object.fromEntries(pm.variables.all().map((v) => [v.key, v.value]));
// One variable moves every request: the endpoints are derived from baseUrl.
check(vars.baseUrl === "https://tridenttaxis.online", "postman: baseUrl default");
check(vars.mcpEndpoint === "{{baseUrl}}/mcp", "postman: mcpEndpoint must be derived from baseUrl");
check(vars.ridesEndpoint === "{{baseUrl}}/mcp/rides", "postman: ridesEndpoint must be derived from baseUrl");
check(vars.connectorsEndpoint === "{{baseUrl}}/v1/session/connectors", "postman: connectorsEndpoint must be derived from baseUrl");
{
  // Resolved as Postman and newman resolve a variable inside another's value.
  const scope = new VariableScope({ values: pm.variables.all().map((v) => ({ key: v.key, value: v.value })) });
  const url = scope.replaceIn("{{ridesEndpoint}}");
  check(url === "https://tridenttaxis.online/mcp/rides", `postman: {{ridesEndpoint}} resolves to ${url}`);
}
check(vars.accessToken === "" && vars.ridesAccessToken === "", "postman: accessToken and ridesAccessToken must be blank");
check(vars.journeyContext === "" && vars.journeyId === "", "postman: journeyContext and journeyId start blank");

// ---- Insomnia --------------------------------------------------------------
const insRaw = read("collections/trident.insomnia.json");
const converted = await importers.convert(insRaw);
check(converted.type.id === "insomnia-4", `insomnia: detected as ${converted.type.id}, want insomnia-4`);
const resources = converted.data.resources;
const byId = new Map(resources.map((r) => [r._id, r]));
const workspace = resources.filter((r) => r._type === "workspace");
check(workspace.length === 1, "insomnia: want one workspace");
const env = resources.find((r) => r._type === "environment" && r.parentId === workspace[0]?._id);
check(env && env.data.baseUrl === "https://tridenttaxis.online" && env.data.mcpEndpoint === "{{ _.baseUrl }}/mcp" && env.data.ridesEndpoint === "{{ _.baseUrl }}/mcp/rides" &&
  env.data.connectorsEndpoint === "{{ _.baseUrl }}/v1/session/connectors" && env.data.accessToken === "" && env.data.ridesAccessToken === "", "insomnia: base environment, its endpoints derived from baseUrl");
for (const r of resources) {
  if (r._type !== "workspace") check(byId.has(r.parentId), `insomnia: ${r._id} has a dangling parentId`);
}
const requests = resources.filter((r) => r._type === "request");
for (const r of requests) {
  const auth = r.headers.find((h) => h.name === "Authorization");
  const folder = byId.get(r.parentId)?.name;
  const tokenVar = relayFolders.includes(folder) ? "ridesAccessToken" : "accessToken";
  check(auth?.value === `Bearer {{ _.${tokenVar} }}` && Boolean(auth.disabled),
    `insomnia '${folder}/${r.name}': Authorization header ${JSON.stringify(auth)}`);
}
// Insomnia runs no scripts, so it has no mode probe; every tools/call is in both.
check(requests.length === pmItems.length - probes.length, `insomnia has ${requests.length} requests, postman ${pmItems.length - probes.length} tools/call requests`);
// The Postman file goes through Insomnia's own Postman importer too.
const viaPostman = await importers.convert(JSON.stringify(pmRaw));
check(viaPostman.type.id === "postman", `insomnia reads the postman file as ${viaPostman.type.id}`);

// ---- Run the Insomnia requests ---------------------------------------------
// As an API tester does: set baseUrl alone, and every endpoint follows.
const baseUrl = process.env.BASE_URL;
if (!baseUrl) {
  fail("BASE_URL is not set: the Insomnia requests were not run");
} else {
  const given = { baseUrl };
  // The last reply of each request, for the response tags that read it.
  const replies = new Map();
  // Environment values are templates too ({{ _.baseUrl }}/mcp): rendered
  // again until none is left, as Insomnia renders its environment.
  const render = (s) => s
    .replace(/\{\{\s*_\.(\w+)\s*\}\}/g, (_, k) => given[k] ?? render(String(env.data[k])))
    .replace(/\{%\s*response\s+(.*?)\s*%\}/g, (tag, args) => responseTag(tag, args));
  // responseTag renders {% response 'body', 'req_…', 'b64::<JSONPath>::46b', 'never', 60 %}
  // as Insomnia's response tag does: the filter over the request's last
  // body, one result given as it is when a string and as JSON otherwise.
  const responseTag = (tag, args) => {
    const [attr, reqId, filter, trigger] = [...args.matchAll(/'([^']*)'/g)].map((m) => m[1]);
    check(attr === "body" && trigger === "never" && byId.has(reqId), `insomnia: response tag ${tag} must read the body of a request of this export, never resending it`);
    const body = replies.get(reqId);
    if (body === undefined) { fail(`insomnia: ${tag} reads request ${byId.get(reqId)?.name}, not sent before it`); return ""; }
    const path = filter.startsWith("b64::") ? Buffer.from(filter.slice(5).replace(/::46b$/, ""), "base64").toString("utf8") : filter;
    const results = JSONPath({ json: JSON.parse(body), path });
    if (results.length !== 1) { fail(`insomnia: ${tag}: ${path} gives ${results.length} results`); return ""; }
    return typeof results[0] === "string" ? results[0] : JSON.stringify(results[0]);
  };
  const samples = {};
  const walk = (dir) => {
    for (const e of require("node:fs").readdirSync(join(root, dir), { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json") && e.name !== "index.json") samples[p.replace(/^contracts\/trident\/samples\//, "").replace(/\.json$/, "")] = JSON.parse(read(p));
    }
  };
  walk("contracts/trident/samples");
  let ran = 0;
  for (const r of requests) {
    const folder = byId.get(r.parentId).name;
    if (folder === "OAuth mode") continue; // needs a server in OAuth mode
    const headers = {};
    for (const h of r.headers) if (!h.disabled) headers[h.name] = render(h.value);
    const res = await fetch(render(r.url), { method: r.method, headers, body: render(r.body.text) });
    const text = await res.text();
    replies.set(r._id, text);
    const ct = res.headers.get("content-type") || "";
    const where = `insomnia '${folder}/${r.name}'`;
    let frame = null;
    let frames = [];
    if (ct.includes("text/event-stream")) {
      const data = text.split(/\r\n\r\n|\n\n|\r\r/).map((ev) => ev.split(/\r\n|\r|\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n")).filter(Boolean);
      try { frames = data.map((d) => JSON.parse(d)); } catch (e) { fail(`${where}: an SSE event is not JSON: ${e.message}`); }
      frame = frames[frames.length - 1] ?? null;
    } else {
      try { frame = JSON.parse(text); } catch { frame = null; }
    }
    if (r.name.endsWith(" (streamed)")) {
      check(ct.includes("text/event-stream"), `${where}: a call with _meta.progressToken must stream, got ${ct}`);
      check(frames.slice(0, -1).some((f) => f.method === "notifications/progress"), `${where}: no notifications/progress before the final frame`);
    }
    // Tool requests are named by the tool; examples by their sample file;
    // Relay's by rides/ and its sample file, whose status they must answer
    // (their ids and signatures are fresh on every call).
    const sample = samples[r.name.replace(/ \(streamed\)$/, "")];
    if (folder === "Relay journey") {
      checkJourney(where, journeyExpected.get(r.name), res.status, frame);
    } else if (r.name.startsWith("rides/")) {
      const rs = JSON.parse(read("contracts/relay/samples/" + r.name.slice("rides/".length) + ".json"));
      const want = rs.response.result;
      check(res.status === 200 && frame?.result && Boolean(frame.result.isError) === Boolean(want.isError) &&
        frame.result.structuredContent?.status === want.structuredContent.status,
        `${where}: want status ${want.structuredContent.status}${want.isError ? " (a refusal)" : ""}, got HTTP ${res.status} ${text.slice(0, 200)}`);
    } else if (sample) {
      check(res.status === (sample.http?.status ?? 200), `${where}: HTTP ${res.status}, want ${sample.http?.status}`);
      const want = sample.response.result ?? sample.response.error;
      const got = frame?.result ?? (frame?.error && { code: frame.error.code, message: frame.error.message });
      check(JSON.stringify(sortKeys(got)) === JSON.stringify(sortKeys(want)), `${where}: reply differs from the sample\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(want)}`);
    } else {
      check(res.status === 200 && frame?.result && !frame.result.isError, `${where}: want a result, got HTTP ${res.status} ${text.slice(0, 200)}`);
    }
    ran++;
  }
  console.log(`insomnia: ran ${ran} requests against ${baseUrl}`);
}

// checkJourney holds one reply of the Relay journey to the expectation the
// Postman test script of the same request checks.
function checkJourney(where, e, status, frame) {
  if (!e) { fail(`${where}: no Postman request of that name`); return; }
  const same = (a, b) => JSON.stringify(sortKeys(a ?? null)) === JSON.stringify(sortKeys(b ?? null));
  check(status === e.status, `${where}: HTTP ${status}, want ${e.status}`);
  if (e.report) {
    check(same(frame?.connectors, e.report), `${where}: the stored report ${JSON.stringify(frame?.connectors)}, want ${JSON.stringify(e.report)}`);
    return;
  }
  const sc = frame?.result?.structuredContent;
  check(frame?.result && !frame.result.isError && sc?.status === e.toolStatus, `${where}: want status ${e.toolStatus}, got ${JSON.stringify(frame).slice(0, 200)}`);
  if (e.continueJourney) {
    check(same(sc?.next_action, e.nextAction), `${where}: next_action ${JSON.stringify(sc?.next_action)}, want ${JSON.stringify(e.nextAction ?? null)}`);
    check(same([...(sc?.missing_fields || [])].sort(), [...(e.missingFields || [])].sort()), `${where}: missing_fields ${JSON.stringify(sc?.missing_fields)}`);
  }
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

console.log(`collections: ${pmItems.length} postman requests, ${requests.length} insomnia requests checked, ${failures} failed`);
process.exit(failures ? 1 : 0);

// Drives MCP Inspector 2.12's CLI (@modelcontextprotocol/inspector, pinned
// in package.json) against a running server in its protocol eras:
//
//   legacy  the initialize handshake; Inspector 2.12 offers 2025-11-25, and
//           takes 2025-06-18 from a server that serves no newer handshake
//   modern  server/discover and per-request _meta, no handshake: 2026-07-28
//
// Each ERA=REVISION argument names an era and the revision it must
// negotiate. In each it reads the negotiated revision, lists the tools
// (names in the contract's order), calls estimate_fare with the
// specification's sample arguments (the result must equal the sample's) and
// with a missing pickup: an isError result from 2025-11-25, the JSON-RPC
// error -32602 before (contracts/README.md, "Protocol revisions").
//
//   node e2e/ts/inspector-cli.mjs http://127.0.0.1:8080/mcp legacy=2025-11-25 modern=2026-07-28
//
// The server must run with FARE_CLOCK=2025-06-18T09:00:00Z so the sample's
// day tariff applies (scripts/inspector.sh starts one). Needs Node 22.19+
// (node_modules/.bin/node). Prints one line per check and a closing
// "N passed, N failed"; exits 1 when any failed.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, promisify } from "node:util";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const [endpoint, ...eraArgs] = process.argv.slice(2);
const eras = eraArgs.map((a) => a.split("="));
if (!endpoint || eras.length === 0 || eras.some(([era, rev]) => !["legacy", "modern"].includes(era) || !rev)) {
  console.error("usage: inspector-cli.mjs MCP_ENDPOINT ERA=REVISION...  (ERA: legacy or modern)");
  process.exit(2);
}
const inspector = join(root, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
const readJSON = (p) => JSON.parse(readFileSync(join(root, p), "utf8"));
const sample = readJSON("contracts/trident/samples/estimate_fare.success.json");
const manifest = readJSON("contracts/trident/tools.json");
const toolNames = manifest.tools.map((t) => t.name);

// The Inspector keeps a catalogue and a client config under $HOME unless
// told otherwise; a scratch directory keeps the run from touching either.
const scratch = mkdtempSync(join(tmpdir(), "inspector-cli-"));
const env = {
  ...process.env,
  HOME: scratch,
  MCP_CATALOG_PATH: join(scratch, "mcp.json"),
  MCP_CLIENT_CONFIG_PATH: join(scratch, "client.json"),
};

// inspect runs one CLI invocation and returns what it printed: {result}
// on stdout, or {error} on stderr when the call failed. A tool result with
// isError comes back as the result (the CLI then also reports
// tool_is_error on stderr and exits non-zero).
async function inspect(era, ...args) {
  const argv = [inspector, "--cli", endpoint, "--protocol-era", era, "--format", "json", "--quiet", ...args];
  let stdout, stderr;
  try {
    ({ stdout, stderr } = await run(process.execPath, argv, { env, timeout: 60_000 }));
  } catch (err) {
    if (err.stdout === undefined) throw new Error(`inspector ${args.join(" ")}: ${err.message}`);
    ({ stdout, stderr } = err);
  }
  const json = (text) => text.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
  const out = json(stdout).find((o) => o.result !== undefined) ?? json(stderr).find((o) => o.error !== undefined);
  if (!out) throw new Error(`inspector ${args.join(" ")} printed no JSON result or error:\n${stdout}\n${stderr}`);
  return out;
}
// result is inspect's result, failing on an error.
async function result(era, ...args) {
  const out = await inspect(era, ...args);
  if (out.result === undefined) throw new Error(`inspector ${args.join(" ")}: ${JSON.stringify(out.error)}`);
  return out.result;
}

// withoutMeta drops _meta (2026-07-28 results carry serverInfo there), so
// a result compares with the specification's sample.
const withoutMeta = ({ _meta, ...rest }) => rest;

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err.message}`);
  }
}
function expectEqual(got, want, what) {
  if (!isDeepStrictEqual(got, want)) {
    throw new Error(`${what}:\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(want)}`);
  }
}

for (const [era, revision] of eras) {
  await check(`${era}: negotiates ${revision}`, async () => {
    const r = await result(era, "--method", "initialize");
    expectEqual(r.protocolVersion, revision, "protocolVersion");
    expectEqual(r.serverInfo?.name, manifest.server.name, "serverInfo.name");
  });
  await check(`${era}: tools/list lists the contract's tools`, async () => {
    const r = await result(era, "--method", "tools/list");
    expectEqual(r.tools.map((t) => t.name), toolNames, "tool names");
  });
  await check(`${era}: tools/call estimate_fare returns the specification's sample`, async () => {
    const r = await result(era, "--method", "tools/call", "--tool-name", "estimate_fare",
      "--tool-args-json", JSON.stringify(sample.request.params.arguments));
    expectEqual(withoutMeta(r), sample.response.result, "result");
  });
  const text = "Invalid params: pickup: Required";
  const asResult = revision >= "2025-11-25";
  await check(`${era}: invalid arguments are ${asResult ? "an isError result" : "a JSON-RPC error"}`, async () => {
    const out = await inspect(era, "--method", "tools/call", "--tool-name", "estimate_fare",
      "--tool-args-json", JSON.stringify({ dropoff: "Glasgow Airport" }));
    if (asResult) {
      expectEqual(out.result && withoutMeta(out.result), { content: [{ type: "text", text }], isError: true }, "result");
    } else {
      // The CLI prints the JSON-RPC error's message, not its code.
      expectEqual(out, { error: { code: "error", message: text } }, "output");
    }
  });
}

rmSync(scratch, { recursive: true, force: true });
console.log(`inspector: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

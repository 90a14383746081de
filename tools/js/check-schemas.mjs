// Compiles every JSON Schema under contracts/ with ajv in strict Draft 2020-12
// mode, as a second opinion beside the Go validator, and validates each
// sample's arguments and structuredContent against its tool's schemas, the
// tariff and the error catalogue against theirs.
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "contracts");
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

let failures = 0;
const validators = {};
for (const file of readdirSync(join(root, "schemas")).filter((f) => f.endsWith(".json"))) {
  const schema = JSON.parse(readFileSync(join(root, "schemas", file), "utf8"));
  try {
    validators[file] = ajv.compile(schema);
  } catch (err) {
    console.error(`FAIL ${file}: ${err.message}`);
    failures++;
  }
}

// The tariff file against its own schema.
{
  const schema = JSON.parse(readFileSync(join(root, "tariff", "tariff.schema.json"), "utf8"));
  const tariff = JSON.parse(readFileSync(join(root, "tariff", "argyll-2024-04.json"), "utf8"));
  const v = ajv.compile(schema);
  if (!v(tariff)) {
    console.error("FAIL tariff/argyll-2024-04.json fails tariff.schema.json", v.errors);
    failures++;
  }
}

// The error catalogue against the schema its "$schema" names.
{
  const catalogue = JSON.parse(readFileSync(join(root, "errors.json"), "utf8"));
  const v = ajv.compile(JSON.parse(readFileSync(join(root, catalogue.$schema), "utf8")));
  if (!v(catalogue)) {
    console.error(`FAIL errors.json fails ${catalogue.$schema}`, v.errors);
    failures++;
  }
}

const sampleFiles = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name));
    else if (e.name.endsWith(".json") && e.name !== "index.json") sampleFiles.push(join(dir, e.name));
  }
};
walk(join(root, "samples"));
let checked = 0;
for (const file of sampleFiles) {
  const s = JSON.parse(readFileSync(file, "utf8"));
  const name = s.request?.params?.name;
  const input = validators[`${name}.input.json`];
  const output = validators[`${name}.output.json`];
  if (!input) continue; // unknown tool: the -32601 sample
  const invalid = s.errorCode === "INVALID_ARGUMENTS";
  if (input(s.request.params.arguments) === invalid) {
    console.error(`FAIL ${file}: arguments ${invalid ? "should fail" : "should pass"} ${name}.input.json`, input.errors ?? "");
    failures++;
  }
  const sc = s.response?.result?.structuredContent;
  if (sc !== undefined && !output(sc)) {
    console.error(`FAIL ${file}: structuredContent fails ${name}.output.json`, output.errors);
    failures++;
  }
  checked++;
}
// Relay (/mcp/rides): its schemas, its samples (refusals carry a
// structuredContent that the output schema's Refusal branch covers) and the
// provider registry against its schema. A separate ajv instance: the two
// endpoints' schemas are independent documents.
let relaySchemas = 0;
{
  const relay = join(root, "relay");
  const rajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(rajv);
  const rv = {};
  for (const file of readdirSync(join(relay, "schemas")).filter((f) => f.endsWith(".json"))) {
    try {
      rv[file] = rajv.compile(JSON.parse(readFileSync(join(relay, "schemas", file), "utf8")));
      relaySchemas++;
    } catch (err) {
      console.error(`FAIL relay/schemas/${file}: ${err.message}`);
      failures++;
    }
  }
  const files = [];
  const rwalk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) rwalk(join(dir, e.name));
      else if (e.name.endsWith(".json") && e.name !== "index.json") files.push(join(dir, e.name));
    }
  };
  rwalk(join(relay, "samples"));
  for (const file of files) {
    const s = JSON.parse(readFileSync(file, "utf8"));
    const name = s.request.params.name;
    const invalid = s.errorCode === "INVALID_ARGUMENTS";
    if (rv[`${name}.input.json`](s.request.params.arguments) === invalid) {
      console.error(`FAIL ${file}: arguments ${invalid ? "should fail" : "should pass"} ${name}.input.json`);
      failures++;
    }
    if (!rv[`${name}.output.json`](s.response.result.structuredContent)) {
      console.error(`FAIL ${file}: structuredContent fails ${name}.output.json`, rv[`${name}.output.json`].errors);
      failures++;
    }
    checked++;
  }
  const pv = rajv.compile(JSON.parse(readFileSync(join(relay, "providers.schema.json"), "utf8")));
  if (!pv(JSON.parse(readFileSync(join(relay, "providers.json"), "utf8")))) {
    console.error("FAIL relay/providers.json fails providers.schema.json", pv.errors);
    failures++;
  }
}
console.log(`ajv: ${Object.keys(validators).length + relaySchemas} schemas compiled, ${checked} samples checked, ${failures} failed`);
process.exit(failures ? 1 : 0);

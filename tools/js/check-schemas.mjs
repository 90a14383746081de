// Compiles every JSON Schema of one endpoint's contracts (contracts/<folder>/)
// with ajv in strict Draft 2020-12
// mode, as a second opinion beside the Go validator, and validates each
// sample's and each Tools-section example's arguments and structuredContent
// against its tool's schemas, the
// tariff and the error catalogue against theirs.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "contracts");
// The endpoint's contract folder below contracts/ ("trident"): its schemas,
// samples and error rows; the shared catalogue is checked every time.
if (!process.argv[2]) {
  console.error("usage: check-schemas.mjs <endpoint folder below contracts/, e.g. trident>");
  process.exit(2);
}
const ep = join(root, process.argv[2]);
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

let failures = 0;
const validators = {};
for (const file of readdirSync(join(ep, "schemas")).filter((f) => f.endsWith(".json"))) {
  const schema = JSON.parse(readFileSync(join(ep, "schemas", file), "utf8"));
  try {
    validators[file] = ajv.compile(schema);
  } catch (err) {
    console.error(`FAIL ${file}: ${err.message}`);
    failures++;
  }
}

// Trident's tariff file against its own schema.
if (existsSync(join(ep, "tariff"))) {
  const schema = JSON.parse(readFileSync(join(ep, "tariff", "tariff.schema.json"), "utf8"));
  const tariff = JSON.parse(readFileSync(join(ep, "tariff", "argyll-2024-04.json"), "utf8"));
  const v = ajv.compile(schema);
  if (!v(tariff)) {
    console.error("FAIL tariff/argyll-2024-04.json fails tariff.schema.json", v.errors);
    failures++;
  }
}

// The error catalogue, the shared rows and the endpoint's own, against
// errors.schema.json (the schema both files name in "$schema").
{
  const v = ajv.compile(JSON.parse(readFileSync(join(root, "errors.schema.json"), "utf8")));
  for (const file of [join(root, "errors.json"), join(ep, "errors.json")]) {
    if (!v(JSON.parse(readFileSync(file, "utf8")))) {
      console.error(`FAIL ${file} fails errors.schema.json`, v.errors);
      failures++;
    }
  }
}

const sampleFiles = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name));
    else if (e.name.endsWith(".json") && e.name !== "index.json") sampleFiles.push(join(dir, e.name));
  }
};
walk(join(ep, "samples"));
let checked = 0;
for (const file of sampleFiles) {
  const s = JSON.parse(readFileSync(file, "utf8"));
  const name = s.request?.params?.name;
  const input = validators[`${name}.input.json`];
  const output = validators[`${name}.output.json`];
  if (!input) continue; // unknown tool: the -32601 sample
  const invalid = /^(RELAY_)?INVALID_ARGUMENTS$/.test(s.errorCode ?? ""); // Relay names its refusal RELAY_INVALID_ARGUMENTS
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
// The Tools-section examples (examples/<tool>.json): documented responses
// that leave optional members out must validate as they are.
let examples = 0;
if (existsSync(join(ep, "examples"))) {
  for (const file of readdirSync(join(ep, "examples")).filter((f) => f.endsWith(".json"))) {
    const ex = JSON.parse(readFileSync(join(ep, "examples", file), "utf8"));
    for (const [what, value, v] of [["arguments", ex.arguments, validators[`${ex.tool}.input.json`]], ["structuredContent", ex.structuredContent, validators[`${ex.tool}.output.json`]]]) {
      if (!v || !v(value)) {
        console.error(`FAIL examples/${file}: ${what} fails ${ex.tool}'s schema`, v?.errors ?? "no such tool");
        failures++;
      }
    }
    examples++;
  }
}
console.log(`ajv: ${Object.keys(validators).length} schemas compiled, ${checked} samples and ${examples} examples checked, ${failures} failed`);
process.exit(failures ? 1 : 0);

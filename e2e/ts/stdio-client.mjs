// The official TypeScript SDK's stdio client launching `trident-mcp -stdio`
// as a local MCP server, the way desktop clients do. Run by
// e2e/stdio_test.go as
//
//   node_modules/.bin/node e2e/ts/stdio-client.mjs <trident-mcp binary>
//
// with the estimate_fare arguments as JSON in E2E_ARGUMENTS. The server
// inherits this process's environment (FARE_CLOCK pins its tariff band).
// It prints one JSON object on stdout: the negotiated protocolVersion and
// server name, the tool names, the estimate_fare result, the result of a
// call with invalid arguments (or its JSON-RPC error), the server's exit
// code once its stdin is closed, and its stderr, which must hold its log
// and nothing of the protocol. Exits
// non-zero on any failure, with the reason on stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error("usage: stdio-client.mjs <trident-mcp binary>  (tool arguments in E2E_ARGUMENTS)");
  process.exit(2);
}
const toolArguments = JSON.parse(process.env.E2E_ARGUMENTS ?? "{}");

const transport = new StdioClientTransport({
  command: binary,
  args: ["-stdio"],
  env: process.env,
  stderr: "pipe",
});
let serverStderr = "";
transport.stderr?.on("data", (chunk) => {
  serverStderr += chunk;
});
// The SDK keeps the negotiated revision to itself: read it off the
// initialize result as it arrives.
let negotiated;
let deliver;
Object.defineProperty(transport, "onmessage", {
  get: () => deliver,
  set: (fn) => {
    deliver = (msg) => {
      negotiated ??= msg?.result?.protocolVersion;
      fn(msg);
    };
  },
});

const client = new Client({ name: "trident-e2e-stdio", version: "1.0.0" });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: "estimate_fare", arguments: toolArguments });
  let invalid;
  try {
    invalid = { result: await client.callTool({ name: "estimate_fare", arguments: { dropoff: "Glasgow Airport" } }) };
  } catch (err) {
    invalid = { error: { code: err.code, message: err.message } };
  }
  const child = transport._process; // to read the server's exit code once closed
  const out = {
    protocolVersion: negotiated,
    serverName: client.getServerVersion()?.name,
    tools: tools.map((t) => t.name),
    result,
    invalid,
  };
  // close ends the server's stdin and waits for the process to exit, its
  // stderr read to the end.
  await client.close();
  out.exitCode = child?.exitCode;
  out.stderr = serverStderr;
  console.log(JSON.stringify(out));
} catch (err) {
  console.error(`stdio-client: ${err.stack ?? err}\nserver stderr:\n${serverStderr}`);
  process.exit(1);
}

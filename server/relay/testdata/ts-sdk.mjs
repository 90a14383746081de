// The official TypeScript SDK's client against /mcp/rides: it lists the
// tools (and so compiles every output schema with ajv), then calls each
// tool, a refusal included, and the SDK validates every structuredContent
// against its output schema. It prints what it saw as JSON.
// Usage: node ts-sdk.mjs http://127.0.0.1:PORT/mcp/rides
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "relay-ts-sdk-check", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const out = { tools: (await client.listTools()).tools.map((t) => t.name).sort() };
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, sc: r.structuredContent };
};
const helensburgh = { latitude: 56.00416, longitude: -4.73253 };
const glasgowAir = { latitude: 55.8719, longitude: -4.43306 };
const ny = await call("search_rides", { pickup: { latitude: 40.6413, longitude: -73.7781 }, dropoff: { latitude: 40.758, longitude: -73.9855 }, party_size: 2 });
const s = await call("search_rides", { pickup: helensburgh, dropoff: glasgowAir, party_size: 2 });
const ctx = s.sc.relay_context;
const opt = s.sc.options[2];
const cmp = await call("compare_rides", { options: s.sc.options, sort_by: "price", context: ctx });
const res = await call("resolve_ride", { option: opt, context: ctx });
const h = await call("get_ride_booking_handoff", { option: s.sc.options[0], context: ctx });
const j = await call("continue_journey", { journey_id: ctx.journey_id, context: ctx, to_connector: "stays" });
const bad = await call("compare_rides", { options: [{ ...opt, price: { ...opt.price, amount_minor: 1 } }], context: ctx });
const badArgs = await call("search_rides", { party_size: 9 });
out.statuses = {
  ny: ny.sc.status, search: s.sc.status, compare: cmp.sc.status, resolve: res.sc.status,
  handoff: h.sc.status, journey: j.sc.status, tampered: [bad.isError, bad.sc.status], badArgs: [badArgs.isError, badArgs.sc.status],
};
out.executive = [opt.product.id, opt.price.amount_minor, opt.price.basis];
out.handoffURL = h.sc.url;
await client.close();
console.log(JSON.stringify(out));

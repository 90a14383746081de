// A second, independent implementation of the Trident Taxis MCP contract, on
// the official TypeScript MCP SDK (@modelcontextprotocol/sdk, low-level
// Server over StreamableHTTPServerTransport). It exists to prove that the
// conformance suite judges a server by the contract and not by the Go
// server's incidental choices, so it makes different optional ones:
//
//   - stateless, one SDK Server per request; every reply is an SSE stream
//     (the SDK's default), never plain JSON;
//   - progress notifications for start_booking only, none for estimate_fare;
//   - tools/list schemas without $id, titles or descriptions, $refs inlined,
//     and tool titles, descriptions and default-valued hints of its own;
//   - argument errors worded by ajv, not Zod; its own tool-error texts
//     (carrying the catalogue's signals);
//   - the SDK's own 406 and its -32000 on an unsupported protocol version;
//   - its own gazetteer and distance engine (places.mjs) and fare code (fare.mjs).
//
// Usage: node server.mjs   (ADDR=127.0.0.1:PORT, BOOKING_BASE_URL, FARE_CLOCK,
// TRIDENT_CONTRACTS=the directory of tools.json, the schemas and the tariff)

import http from "node:http";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Tariff } from "./fare.mjs";
import { geocode, greatCircleMiles, route } from "./places.mjs";

const contracts = process.env.TRIDENT_CONTRACTS;
if (!contracts) throw new Error("TRIDENT_CONTRACTS must name the contracts directory");
const readJSON = (...p) => JSON.parse(readFileSync(join(contracts, ...p), "utf8"));
const manifest = readJSON("tools.json");
const tariffFile = readdirSync(join(contracts, "tariff")).find((f) => f.endsWith(".json") && !f.endsWith(".schema.json"));
const tariff = new Tariff(readJSON("tariff", tariffFile));
const bookingBase = (process.env.BOOKING_BASE_URL ?? "https://tridenttaxis.online").replace(/\/$/, "");
const frozen = process.env.FARE_CLOCK ? new Date(process.env.FARE_CLOCK) : null;
const now = () => frozen ?? new Date();

/** A schema as this server chooses to serve it: annotations dropped, $refs inlined. */
function served(schema, root = schema) {
  if (Array.isArray(schema)) return schema.map((s) => served(s, root));
  if (schema === null || typeof schema !== "object") return schema;
  if (schema.$ref) return served(schema.$ref.slice(2).split("/").reduce((o, k) => o[k], root), root);
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (["$id", "$schema", "$defs", "title", "description"].includes(k)) continue;
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, served(s, root)])) : served(v, root);
  }
  return out;
}

const WORDING = {
  estimate_fare: ["Fare quote", "Quote a fixed taxi fare in GBP between two UK places under the Argyll & Bute tariff."],
  get_service_info: ["Service overview", "Who Trident Taxis are, where they drive, their fleet, bands and surcharges."],
  start_booking: ["Booking link", "Prefill a booking link with a live quote; the passenger finishes and pays on the site. Nothing is booked here."],
};
const MCP_HINT_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
const tools = manifest.tools.map((t) => {
  const input = readJSON(t.inputSchema);
  const output = readJSON(t.outputSchema);
  const annotations = Object.fromEntries(Object.entries(t.annotations).filter(([k, v]) => MCP_HINT_DEFAULTS[k] !== v));
  return {
    name: t.name,
    validate: ajv.compile(input),
    listed: { name: t.name, title: WORDING[t.name][0], description: WORDING[t.name][1], inputSchema: served(input), outputSchema: served(output), annotations },
  };
});

/** A JSON-RPC error the SDK passes on unchanged (an McpError would prefix its message). */
function rpcError(code, message) {
  return Object.assign(new Error(message), { code });
}

function toolError(text) {
  return { isError: true, content: [{ type: "text", text }] };
}

const pounds = (pence) => (pence / 100).toFixed(2);

async function callTool(name, args, extra) {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw rpcError(-32601, `Unknown tool '${name}': call tools/list for the names served here`);
  if (!tool.validate(args)) {
    const e = tool.validate.errors[0];
    const field = e.keyword === "required" ? e.params.missingProperty : e.instancePath.replace(/^\//, "").replaceAll("/", ".");
    throw rpcError(-32602, `Invalid params: ${field}: ${e.message}`);
  }
  if (name === "get_service_info") return serviceInfo();

  const vehicle = args.vehicleType ?? tariff.doc.defaultVehicle;
  const seats = tariff.vehicles.get(vehicle).capacity;
  if (args.passengers != null && args.passengers > seats) {
    return toolError(`Sorry: a ${vehicle} seats up to ${seats} passengers and ${args.passengers} are travelling. Ask for the mpv (up to 7).`);
  }
  const token = extra._meta?.progressToken;
  const progress = async (n, message) => {
    if (name === "start_booking" && token !== undefined) {
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: n, total: 3, message } });
    }
  };
  await progress(1, "Finding the addresses");
  const from = geocode(args.pickup);
  const to = geocode(args.dropoff);
  const verb = name === "start_booking" ? "start the booking" : "quote this trip";
  if (!from || !to) {
    return toolError(`Cannot ${verb}: the address could not be geocoded (${!from ? args.pickup : args.dropoff}). Try a postcode or a station.`);
  }
  await progress(2, "Routing");
  const { miles, seconds } = route(from, to);
  const centre = tariff.doc.surcharges.eightSeaterLocal;
  const isLocal = (p) => greatCircleMiles(p, centre.centre) <= centre.radiusMiles;
  const q = tariff.price({
    vehicle, miles, airport: from.airport || to.airport, local: isLocal(from) && isLocal(to),
    meetAndGreet: args.meetAndGreet === true, passengers: args.passengers,
    departAt: args.departAt ? new Date(args.departAt) : null, now: now(),
  });
  await progress(3, "Pricing");
  const minutes = Math.round(seconds / 60);
  if (name === "estimate_fare") {
    return {
      content: [{ type: "text", text: `£${pounds(q.pence)} · ${miles} miles · ${minutes} min · ${q.rate} tariff` }],
      structuredContent: {
        fareGBP: q.pence / 100, distanceMiles: miles, durationSeconds: seconds, rate: q.rate,
        airportSurchargeGBP: q.airportPence / 100, tariffVersion: tariff.version, appliedRules: q.rules,
      },
    };
  }
  const link = new URL(bookingBase + "/book");
  link.search = new URLSearchParams({
    pickup: args.pickup, dropoff: args.dropoff, vehicleType: vehicle, fare: pounds(q.pence),
    distance: String(miles), duration: String(seconds),
    ...(args.meetAndGreet ? { meetAndGreet: "1" } : {}),
    ...(args.departAt ? { departAt: args.departAt } : {}),
  }).toString();
  const bookingUrl = link.toString();
  return {
    content: [{ type: "text", text: `Booking session ready — fare £${pounds(q.pence)} · ${miles} miles · ${minutes} min.\n\nSend the passenger this link to finish the booking (name, phone, date, payment):\n${bookingUrl}` }],
    structuredContent: {
      bookingUrl, confirmed: false, requiresPassengerAction: true,
      quote: { fareGBP: q.pence / 100, distanceMiles: miles, durationSeconds: seconds, rate: q.rate, vehicleType: vehicle, tariffVersion: tariff.version },
      prefilled: { pickup: args.pickup, dropoff: args.dropoff, vehicleType: vehicle, departAt: args.departAt ?? null, meetAndGreet: args.meetAndGreet === true },
    },
  };
}

function serviceInfo() {
  const d = tariff.doc;
  const s = d.surcharges;
  const info = {
    brand: d.operator.brand,
    area: d.operator.area,
    vehicles: d.vehicles.filter((v) => v.listed).map((v) => ({ id: v.id, maxPassengers: v.capacity, ...(v.note ? { note: v.note } : {}) })),
    surcharges: {
      preBookingGBP: s.preBooking.pence / 100,
      airportPickupOrDropGBP: s.airport.pence / 100,
      airportMeetAndGreetGBP: s.meetAndGreet.pence / 100,
      eightSeaterLocalMultiplier: Number(s.eightSeaterLocal.multiplier),
    },
    tariffs: d.bands.map((b) => b.label),
    bookingUrl: bookingBase,
  };
  return { content: [{ type: "text", text: `${info.brand} · ${info.area}` }], structuredContent: info };
}

function mcpServer() {
  const server = new Server({ name: manifest.server.name, version: manifest.server.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => callTool(req.params.name, req.params.arguments ?? {}, extra));
  return server;
}

function send(res, status, code, message) {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/** Whether m is a JSON-RPC 2.0 request or notification (the SDK calls anything else a parse error). */
function isJSONRPC(m) {
  return m !== null && typeof m === "object" && !Array.isArray(m) && m.jsonrpc === "2.0" && typeof m.method === "string" &&
    (m.id === undefined || typeof m.id === "string" || Number.isInteger(m.id));
}

const httpServer = http.createServer(async (req, res) => {
  if (new URL(req.url, "http://x").pathname !== "/mcp") return res.writeHead(404).end();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = mcpServer();
  res.on("close", () => { transport.close(); server.close(); });
  await server.connect(transport);
  const accept = req.headers.accept ?? "";
  if (req.method !== "POST" || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return transport.handleRequest(req, res); // the SDK answers 405 / 406 itself
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  let body;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (e) {
    return send(res, 400, -32700, `Parse error: ${e.message}`);
  }
  if (!Array.isArray(body) && !isJSONRPC(body)) return send(res, 400, -32600, "Invalid Request: not a JSON-RPC 2.0 request");
  return transport.handleRequest(req, res, body);
});

const [host, port] = (process.env.ADDR ?? "127.0.0.1:8090").split(/:(?=\d+$)/);
httpServer.listen(Number(port), host, () => console.error(`trident-server (TypeScript SDK) on http://${host}:${port}/mcp`));

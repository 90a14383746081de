// The official TypeScript SDK's MCP client completing the OAuth 2.1 flow
// against the dev issuer and calling a tool on the trident server in OAuth
// mode. Run by e2e/ts_sdk_test.go as
//
//   node_modules/.bin/node e2e/ts/oauth-flow.mjs <mcp-endpoint> <dev-user-email>
//
// with the tool's arguments as JSON in E2E_ARGUMENTS. It prints one JSON
// object on stdout ({"result", "refreshed", "authorizations",
// "authorizeParams"}) and exits non-zero on any failure, with the reason on
// stderr.
//
// The SDK does everything OAuth itself (discovery from the 401's
// resource_metadata, RFC 8414 metadata, dynamic client registration, PKCE,
// the code exchange with resource, refresh on 401); the provider below is
// only the application's part: storage in memory, and a "browser" that
// opens the authorization URL with the dev issuer's X-Dev-Auto-Approve
// header and reads the code from the redirect's Location.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [endpoint, email] = process.argv.slice(2);
if (!endpoint || !email) {
  console.error("usage: oauth-flow.mjs <mcp-endpoint> <dev-user-email>  (tool arguments in E2E_ARGUMENTS)");
  process.exit(2);
}
const toolArguments = JSON.parse(process.env.E2E_ARGUMENTS ?? "{}");

// A loopback redirect URI (RFC 8252): nothing needs to listen there, as the
// "browser" below stops at the redirect.
const REDIRECT_URI = "http://127.0.0.1:1/callback";

/** @implements {import("@modelcontextprotocol/sdk/client/auth.js").OAuthClientProvider} */
class DevIssuerProvider {
  constructor(userEmail) {
    this.userEmail = userEmail;
    this.client = undefined;
    this.tokenSet = undefined;
    this.verifier = undefined;
    this.expectedState = undefined;
    this.code = undefined;
    this.authorizations = 0;
    this.authorizeParams = undefined;
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return {
      client_name: "trident e2e (TypeScript SDK)",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    this.expectedState = crypto.randomUUID();
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.tokenSet;
  }
  saveTokens(tokens) {
    this.tokenSet = tokens;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no PKCE verifier saved");
    return this.verifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    this.authorizations++;
    const p = authorizationUrl.searchParams;
    this.authorizeParams = {
      code_challenge_method: p.get("code_challenge_method"),
      resource: p.get("resource"),
      has_code_challenge: p.has("code_challenge"),
      has_state: p.has("state"),
    };
    const res = await fetch(authorizationUrl, {
      headers: { "X-Dev-Auto-Approve": this.userEmail },
      redirect: "manual",
    });
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 399 || !location) {
      throw new Error(`authorize: HTTP ${res.status} without a redirect: ${await res.text()}`);
    }
    const back = new URL(location);
    if (back.searchParams.get("error")) {
      throw new Error(`authorize refused: ${back.searchParams.get("error")}: ${back.searchParams.get("error_description")}`);
    }
    if (back.searchParams.get("state") !== this.expectedState) {
      throw new Error(`state mismatch: got ${back.searchParams.get("state")}, sent ${this.expectedState}`);
    }
    this.code = back.searchParams.get("code");
  }
}

const url = new URL(endpoint);
const provider = new DevIssuerProvider(email);
const newClient = () => new Client({ name: "trident-e2e-ts", version: "0.0.0" });

// 1. Connect: the server answers 401, the SDK runs discovery, DCR and the
//    authorization request, then stops with UnauthorizedError until the
//    application hands it the code.
const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
try {
  await newClient().connect(first);
  throw new Error("connected without authorization: is the endpoint in OAuth mode?");
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
}
if (!provider.code) throw new Error("no authorization code captured");
await first.finishAuth(provider.code);

// 2. Connect again with the tokens and call the tool.
const client = newClient();
await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
const result = await client.callTool({ name: "estimate_fare", arguments: toolArguments });

// 3. Spoil the access token: the server's 401 makes the SDK refresh (the
//    refresh token rotates) and retry, with no new authorization.
const before = provider.tokenSet;
provider.tokenSet = { ...before, access_token: "spoiled" };
const again = await client.callTool({ name: "estimate_fare", arguments: toolArguments });
const after = provider.tokenSet;
const refreshed =
  after.access_token !== "spoiled" &&
  !!after.refresh_token &&
  after.refresh_token !== before.refresh_token &&
  JSON.stringify(again.structuredContent) === JSON.stringify(result.structuredContent);

await client.close();
process.stdout.write(
  JSON.stringify({ result, refreshed, authorizations: provider.authorizations, authorizeParams: provider.authorizeParams }) + "\n",
);

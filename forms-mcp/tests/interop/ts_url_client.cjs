// A host with core elicitation only, on the official MCP TypeScript SDKs, with a URL-mode
// elicitation handler: the client advertises `capabilities.elicitation` with `form` and
// `url` (no openai/elicitation extension). Each `elicitation/create` the handler gets is
// handed to the test: the driver prints it as one JSON line `{"event": "url", "params":
// {...}}` on standard output (the params exactly as the handler got them) and answers the
// configured action, the person's consent; the test opens the URL in a browser. Every
// notification the SDK delivers to a handler is recorded, and, apart, every notification
// the transport carried (`wire`), to tell a notification the SDK dropped from one never sent.
//
// Usage: FORMS_INTEROP_NODE_DIR=DIR node ts_url_client.cjs CONFIG
//
// DIR holds the node_modules that .ci/interop-setup installed from package-lock.json.
// CONFIG is one JSON object:
//   {"sdk": "v1" | "v2",        v1: @modelcontextprotocol/sdk 1.x (protocol 2025-11-25)
//                               v2: @modelcontextprotocol/client
//    "mode": "legacy" | "auto" | "2026-07-28",
//                               v2's versionNegotiation (v1: legacy)
//    "transport": "stdio" | "http",
//    "command": [...] (stdio), "url": "http://127.0.0.1:P/mcp" (http),
//    "tool": "send_data", "arguments": {...}, "consent": {"action": "accept"},
//    "timeout_ms": 90000,       the tool call's limit (each leg, on 2026-07-28)
//    "rounds": 10,              v2: inputRequired.maxRounds (2026-07-28)
//    "abort_after_ms": 1000,    v2: cancel the tool call this long after the consent
//    "server_timeout_ms": 60000}  stdio: the server's DATA_FORMS_TIMEOUT_MS
//
// On 2025-11-25 the server sends `elicitation/create` with `mode: "url"` mid-call and the
// handler's `accept` is consent; on 2026-07-28 (v2) the URL-mode request rides in the
// input-required result, the SDK's multi-round-trip driver hands it to the same handler
// and retries the call with its answer, until the result is complete or the rounds run out.
//
// Prints, last, {"event": "done", "sdk", "protocol", "requests": [params...],
// "notifications": [{"method", "params"}...], "wire": [{"method", "params"}...], "result",
// "error", "call_ms": the tool call's time to its result, "after_consent_ms": from the last
// consent to the result}.
'use strict';

const path = require('node:path');
const fs = require('node:fs');
const { createRequire } = require('node:module');

const NODE_DIR = process.env.FORMS_INTEROP_NODE_DIR;
if (!NODE_DIR) {
  console.error('FORMS_INTEROP_NODE_DIR is not set: run .ci/interop-setup');
  process.exit(2);
}
const load = createRequire(path.join(path.resolve(NODE_DIR), 'package.json'));

const COMPLETE = 'notifications/elicitation/complete';

function versionOf(pkg) {
  const file = path.join(path.resolve(NODE_DIR), 'node_modules', pkg, 'package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

function line(value) {
  process.stdout.write(JSON.stringify(value) + '\n');
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(error) {
  const text = error && error.stack ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n').map((l) => l.trim()).filter(Boolean).join(' | ');
}

function serverEnv(config) {
  return { ...process.env, DATA_FORMS_TIMEOUT_MS: String(config.server_timeout_ms ?? 60000) };
}

const CAPABILITIES = { elicitation: { form: {}, url: {} } };

// The handler of `elicitation/create`: records and prints the request, answers consent.
function elicit(config, out) {
  return async (params) => {
    out.requests.push(params);
    line({ event: params?.mode === 'url' ? 'url' : 'form', params });
    out.consented = Date.now();
    return config.consent ?? { action: 'accept' };
  };
}

// Records every notification the transport delivers, before the SDK dispatches it.
function tapWire(transport, out) {
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message && typeof message.method === 'string' && message.id === undefined) {
      out.wire.push({ method: message.method, params: message.params ?? null });
    }
    return inner?.call(transport, message, extra);
  };
}

async function runV1(config, out) {
  const { Client } = load('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = load('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = load('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema, ElicitationCompleteNotificationSchema, CallToolResultSchema } = load(
    '@modelcontextprotocol/sdk/types.js',
  );
  const client = new Client({ name: 'forms-interop-url-host', version: '1' }, { capabilities: CAPABILITIES });
  const answer = elicit(config, out);
  client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    out.notifications.push({ method: notification.method, params: notification.params });
  });
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({
          command: config.command[0],
          args: config.command.slice(1),
          env: serverEnv(config),
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(new URL(config.url));
  // v1 keeps the negotiated version only in HTTP transports; it hands it to any transport
  // with a `setProtocolVersion`.
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    out.protocol = version;
    setVersion?.(version);
  };
  try {
    await client.connect(transport);
    tapWire(transport, out);
    const called = Date.now();
    out.result = await client.callTool(
      { name: config.tool, arguments: config.arguments ?? {} },
      CallToolResultSchema,
      { timeout: config.timeout_ms ?? 90000 },
    );
    out.call_ms = Date.now() - called;
    out.after_consent_ms = Date.now() - out.consented;
    await settle(out);
  } finally {
    await client.close();
  }
}

async function runV2(config, out) {
  const { Client, StreamableHTTPClientTransport } = load('@modelcontextprotocol/client');
  const { StdioClientTransport } = load('@modelcontextprotocol/client/stdio');
  const mode = config.mode === 'legacy' || config.mode === 'auto' ? config.mode : { pin: config.mode };
  const client = new Client(
    { name: 'forms-interop-url-host', version: '1' },
    {
      capabilities: CAPABILITIES,
      versionNegotiation: { mode },
      inputRequired: { maxRounds: config.rounds ?? 10 },
    },
  );
  const answer = elicit(config, out);
  // The person gives up: the tool call is cancelled `abort_after_ms` after the consent.
  const abort = new AbortController();
  client.setRequestHandler('elicitation/create', async (request) => {
    const consent = await answer(request.params);
    if (config.abort_after_ms !== undefined) setTimeout(() => abort.abort(), config.abort_after_ms);
    return consent;
  });
  client.setNotificationHandler(COMPLETE, (notification) => {
    out.notifications.push({ method: notification.method, params: notification.params });
  });
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({
          command: config.command[0],
          args: config.command.slice(1),
          env: serverEnv(config),
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(new URL(config.url));
  try {
    await client.connect(transport);
    tapWire(transport, out);
    out.protocol = client.getNegotiatedProtocolVersion() ?? null;
    const called = Date.now();
    try {
      out.result = await client.callTool(
        { name: config.tool, arguments: config.arguments ?? {} },
        { timeout: config.timeout_ms ?? 90000, signal: abort.signal },
      );
    } catch (error) {
      out.error = describe(error);
    }
    out.call_ms = Date.now() - called;
    out.after_consent_ms = Date.now() - out.consented;
    await settle(out);
  } finally {
    await client.close();
  }
}

// After the result: a moment for a completion sent around it, and for a second one.
async function settle(out) {
  for (let i = 0; i < 20 && !out.wire.some((n) => n.method === COMPLETE); i++) await sleep(50);
  await sleep(300);
}

async function main() {
  const config = JSON.parse(process.argv[2]);
  const pkg = config.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
  const out = {
    event: 'done',
    sdk: `${pkg} ${versionOf(pkg)}`,
    protocol: null,
    requests: [],
    notifications: [],
    wire: [],
    result: null,
    error: null,
    call_ms: null,
    after_consent_ms: null,
  };
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('the run took more than 120 s')), 120000);
  });
  try {
    await Promise.race([(config.sdk === 'v1' ? runV1 : runV2)(config, out), limit]);
  } catch (error) {
    out.error = describe(error);
  } finally {
    clearTimeout(timer);
  }
  delete out.consented;
  line(out);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

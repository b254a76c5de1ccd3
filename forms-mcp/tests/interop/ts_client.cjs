// forms-mcp driven by the official MCP TypeScript SDKs as the client and host.
//
// Usage: FORMS_INTEROP_NODE_DIR=DIR node ts_client.cjs CONFIG
//
// DIR holds the node_modules that .ci/interop-setup installed from package-lock.json.
// CONFIG is one JSON object:
//   {"sdk": "v1" | "v2",        v1: @modelcontextprotocol/sdk 1.x (protocol up to 2025-11-25)
//                               v2: @modelcontextprotocol/client
//    "mode": "legacy" | "auto" | "2026-07-28",
//                               v2's versionNegotiation: the plain 2025 handshake, the
//                               server/discover probe with fallback, or a pin (v1: legacy)
//    "transport": "stdio" | "http",
//    "server": "/path/to/forms-mcp",          stdio: the binary, started per case
//    "url": "...", "timeout_url": "...",      http: normal and short-timeout servers
//    "timeout_ms": 1500, "arguments": {...}}
//
// The host answers the native form through public SDK API only:
// - 2025-11-25: the server sends `openai/elicitation/create` mid-call; both SDKs take a
//   handler for a custom request method (v1: `setRequestHandler(zodSchema, handler)` with a
//   literal method; v2: `setRequestHandler(method, {params}, handler)`).
// - 2026-07-28 (v2): the input requests of an input-required result go to the
//   `elicitation/create` handler, and the client retries the call itself; the native schema
//   is read from `params._meta["openai/elicitation"].requestedSchema`.
//
// Cases (concurrent, one connection each): accept, decline, cancel, invalid (an option the
// form does not offer), unsupported (core elicitation without the openai/elicitation
// extension), timeout (a short-timeout server; on 2025-11-25 the host never answers, on
// 2026-07-28 it answers after the request state expired).
//
// Prints one JSON object: {"sdk", "mode", "transport", "cases": {NAME: {"protocol",
// "result", "error", "host"}}}.
'use strict';

const path = require('node:path');
const { createRequire } = require('node:module');

const NODE_DIR = process.env.FORMS_INTEROP_NODE_DIR;
if (!NODE_DIR) {
  console.error('FORMS_INTEROP_NODE_DIR is not set: run .ci/interop-setup');
  process.exit(2);
}
const load = createRequire(path.join(path.resolve(NODE_DIR), 'package.json'));
const z = load('zod');

const TOOL = 'form_elicitation_v2_request';
const EXTENSION = 'openai/elicitation';
const NATIVE_METHOD = 'openai/elicitation/create';

function versionOf(pkg) {
  const file = path.join(path.resolve(NODE_DIR), 'node_modules', pkg, 'package.json');
  return JSON.parse(require('node:fs').readFileSync(file, 'utf8')).version;
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// The person of one case: the answer to a native request, or null for never.
function person(caseName, config, modern) {
  return async (native, signal) => {
    switch (caseName) {
      case 'accept':
        return { action: 'accept', content: { format: 'html', goal: 'churn' } };
      case 'decline':
      case 'cancel':
        return { action: caseName };
      case 'invalid':
        return { action: 'accept', content: { format: 'docx' } };
      case 'timeout':
        if (!modern) return null;
        // 2026-07-28: the request state lives as long as the server's timeout.
        await sleep(config.timeout_ms + 1000, signal);
        return { action: 'accept', content: { format: 'pdf' } };
      default:
        return { action: 'accept', content: { format: 'pdf' } };
    }
  };
}

// Never answers; settles when the server cancels the request (the signal aborts).
function never(signal, log, id) {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => {
      log.cancelled.push(id);
      reject(new Error('cancelled by the server'));
    });
  });
}

function serverEnv(caseName, config) {
  const env = { ...process.env };
  env.DATA_FORMS_TIMEOUT_MS = String(caseName === 'timeout' ? config.timeout_ms : 30000);
  return env;
}

function capabilities(caseName) {
  const caps = { elicitation: { form: {} } };
  if (caseName !== 'unsupported') caps.extensions = { [EXTENSION]: { form: {} } };
  return caps;
}

async function runV1(caseName, config, out) {
  const { Client } = load('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = load('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = load('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const log = out.host;
  const answer = person(caseName, config, false);
  const client = new Client(
    { name: 'forms-interop-host', version: '1' },
    { capabilities: capabilities(caseName) },
  );
  const NativeRequest = z.object({ method: z.literal(NATIVE_METHOD), params: z.looseObject({}) });
  client.setRequestHandler(NativeRequest, async (request, extra) => {
    log.requests.push({ method: request.method, params: request.params });
    const result = await answer(request.params, extra.signal);
    return result ?? never(extra.signal, log, extra.requestId);
  });
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({ command: config.server, env: serverEnv(caseName, config), stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(caseName === 'timeout' ? config.timeout_url : config.url));
  // v1 keeps the negotiated version only in HTTP transports; it hands it to any transport
  // with a `setProtocolVersion`.
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    out.protocol = version;
    setVersion?.(version);
  };
  try {
    await client.connect(transport);
    out.result = await client.callTool({ name: TOOL, arguments: config.arguments });
  } finally {
    await client.close();
  }
}

async function runV2(caseName, config, out) {
  const { Client, StreamableHTTPClientTransport } = load('@modelcontextprotocol/client');
  const { StdioClientTransport } = load('@modelcontextprotocol/client/stdio');
  const log = out.host;
  const mode = config.mode === 'legacy' || config.mode === 'auto' ? config.mode : { pin: config.mode };
  const client = new Client(
    { name: 'forms-interop-host', version: '1' },
    { capabilities: capabilities(caseName), versionNegotiation: { mode } },
  );
  // 2026-07-28: the input requests of an input-required result.
  const modernAnswer = person(caseName, config, true);
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const params = request.params;
    const native = {
      message: params.message,
      requestedSchema: params._meta?.[EXTENSION]?.requestedSchema ?? null,
    };
    log.requests.push({ method: 'elicitation/create', params: native, coreSchema: params.requestedSchema });
    return modernAnswer(native, ctx.mcpReq.signal);
  });
  // 2025-11-25: the mid-call custom request.
  const legacyAnswer = person(caseName, config, false);
  client.setRequestHandler(NATIVE_METHOD, { params: z.looseObject({}) }, async (params, ctx) => {
    log.requests.push({ method: NATIVE_METHOD, params });
    const result = await legacyAnswer(params, ctx.mcpReq.signal);
    return result ?? never(ctx.mcpReq.signal, log, ctx.mcpReq.id);
  });
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({ command: config.server, env: serverEnv(caseName, config), stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(caseName === 'timeout' ? config.timeout_url : config.url));
  try {
    await client.connect(transport);
    out.protocol = client.getNegotiatedProtocolVersion() ?? null;
    out.era = client.getProtocolEra() ?? null;
    out.result = await client.callTool({ name: TOOL, arguments: config.arguments });
  } finally {
    await client.close();
  }
}

function describe(error) {
  const text = error && error.stack ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n').map((l) => l.trim()).filter(Boolean).join(' | ');
}

async function runCase(caseName, config, out) {
  const run = config.sdk === 'v1' ? runV1 : runV2;
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('case took more than 30 s')), 30000);
  });
  try {
    await Promise.race([run(caseName, config, out), limit]);
  } catch (error) {
    out.error = describe(error);
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  const config = JSON.parse(process.argv[2]);
  const cases = config.cases ?? ['accept', 'decline', 'cancel', 'invalid', 'unsupported', 'timeout'];
  const results = {};
  for (const c of cases) {
    results[c] = { protocol: null, result: null, error: null, host: { requests: [], cancelled: [] } };
  }
  await Promise.all(cases.map((c) => runCase(c, config, results[c])));
  const pkg = config.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
  process.stdout.write(
    JSON.stringify({
      sdk: `${pkg} ${versionOf(pkg)}`,
      mode: config.mode,
      transport: config.transport,
      cases: results,
    }) + '\n',
  );
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

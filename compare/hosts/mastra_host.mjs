// An application embedding Mastra's MCP client (@mastra/mcp's MCPClient).
//
// It is evidence: everything Mastra put on the wire was caused by the few calls below, as its
// documentation shows them (a `servers` map holding one stdio server; `elicitation.onRequest`;
// `getTools()` and each tool's `execute`). Usage (the host contract, README.md here):
//
//   node mastra_host.mjs --plan PLAN.json -- SERVER_COMMAND...
//
// Mastra is loaded from the project's tools folder ($MCP_COMPARE_TOOLS, default ../../../tools
// from this file), where `mcp-compare tools install` put the pinned version (0.14.5).
//
// What MCPClient 0.14.5 lets an application choose, and what it does not:
// - roots: nothing. MCPClient has no roots option and builds each server's client with no
//   capabilities of ours (dist/index.js:1619-1623), so a plan with roots exits 3.
// - sampling: nothing; no handler can be registered (exit 3).
// - elicitation: its client declares `elicitation: {}` whatever the application does
//   (dist/index.js:419); `mcp.elicitation.onRequest(server, handler)` registers the handler,
//   after connecting to that server (dist/index.js:1017-1020). The form/url sub-capabilities
//   are Mastra's choice (none).
// - connecting: MCPClient connects lazily, on its first operation for a server; with no
//   elicitation handler to register, `getTools()` (tools/list) is that operation, as in every
//   example of its documentation.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { exits, parseArgs, readPlan } from './plan_check.mjs';

const HOST = 'mastra host';
const { fail, refuse } = exits(HOST);
const SERVER = 'peer';
const here = dirname(fileURLToPath(import.meta.url));
const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', '..', '..', 'tools');

// What MCPClient 0.14.5 cannot register, as the target file's `lacks:` says too.
const LACKS = {
  roots: 'MCPClient 0.14.5 takes no roots option and declares no roots capability',
  sampling: 'MCPClient 0.14.5 has no sampling handler',
};

// The package's main entry ("." export, "import" condition), as Node would resolve it if the
// package sat beside this file.
async function importPackage(name) {
  const root = join(tools, 'node_modules', ...name.split('/'));
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    fail(`${name} is not installed under ${tools}; run: mcp-compare tools install`);
  }
  const main = pkg.exports?.['.']?.import;
  const target = (typeof main === 'string' ? main : main?.default) || pkg.module || pkg.main;
  return import(pathToFileURL(join(root, target)).href);
}

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
// so only through the server's `logger` (a documented option of the server config), with the
// message its internal client logs on close (dist/index.js:552-553). Nothing of ours is left
// to wait on then, so Node ends by itself; process.exit() would make exit-hook (Mastra's
// dependency) print a notice that its asynchronous exit hooks did not run.
let closed = false;
const onLog = (entry) => {
  if (/ MCP server connection closed$/.test(entry.message)) closed = true;
};

const CONNECTION_CLOSED = -32000; // the SDK's ErrorCode.ConnectionClosed
function closedUnder(err) {
  for (let e = err; e; e = e.cause) if (e.code === CONNECTION_CLOSED) return true;
  return false;
}

// One stdio server. An application passes its server's configured environment; the harness
// configures the peer through ours, so all of it is passed on.
const mcp = new MCPClient({
  servers: {
    [SERVER]: {
      command: opts.server[0],
      args: opts.server.slice(1),
      env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
      logger: onLog,
    },
  },
});

try {
  if (features.elicitation) {
    const answer = features.elicitation.answer;
    await mcp.elicitation.onRequest(SERVER, async () => answer); // connects first
  }
  const listed = await mcp.getTools(); // connects, if not yet; tools/list
  if (plan.session.call_tools) {
    for (const [name, tool] of Object.entries(listed)) {
      try {
        await tool.execute({ context: {} });
      } catch (err) {
        process.stderr.write(`${HOST}: tools/call ${name} failed: ${err.message}\n`);
      }
    }
  }
} catch (err) {
  // A request cut off by the server closing is the same normal end. Before its connect has
  // finished, Mastra logs no close (it hooks onclose only after, dist/index.js:550-553): the
  // SDK's ConnectionClosed error (code -32000) under Mastra's wrapping error says it then.
  if (!closed && !closedUnder(err)) fail(err && err.message ? err.message : String(err));
}

// An application embedding Mastra's MCP client (@mastra/mcp's MCPClient).
//
// It is evidence: everything Mastra put on the wire was caused by the few calls below, as its
// documentation shows them (a `servers` map holding one stdio server; `elicitation.onRequest`;
// `getTools()` and each tool's `execute`). Usage (the host contract, README.md here):
//
//   node mastra_host.mjs --plan PLAN.json -- SERVER_COMMAND...
//   node mastra_host.mjs --plan PLAN.json --url URL
//
// The first has Mastra start the server on stdio (a `command` server definition); the second has
// it connect to a server already listening at URL (a `url` server definition), below.
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
// - resource updates: `mcp.resources.onUpdated(server, handler)` beside
//   `mcp.resources.subscribe` registers the handler, after connecting to that server, as the
//   SDK's notification handler, which it hands the notification's params (dist/index.js:
//   1252-1256, 724-729). A plan that subscribes registers it before its first request.
// - connecting: MCPClient connects lazily, on its first operation for a server; with no
//   handler to register, `getTools()` (tools/list) is that operation, as in every example of
//   its documentation.
// - scripted requests (the plan's session.requests, README.md here): each through MCPClient's
//   own namespaces, `getTools()` and a tool's `execute`, `mcp.resources.*` and `mcp.prompts.*`
//   (dist/client/configuration.d.ts:103-494); make() below says which call each kind is. It has
//   no call that sends completion/complete, so a plan that asks for one exits 3. A close is
//   `mcp.disconnect()`, documented for application shutdown (dist/client/configuration.d.ts:
//   459-474).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { exits, parseArgs, readPlan } from './plan_check.mjs';
import { kindOf, makeRequests, recordNotification, subscribes } from './session_record.mjs';

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
// The kinds of scripted request MCPClient 0.14.5 has no call for, as `lacks:` says too: neither
// MCPClient (dist/index.js:904-1665) nor its per-server client (dist/index.js:388-903) has a
// method that sends completion/complete.
const LACKS_REQUESTS = {
  complete: 'MCPClient 0.14.5 has no call that sends completion/complete',
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
for (const request of plan.session.requests ?? []) {
  const why = LACKS_REQUESTS[kindOf(request)];
  if (why) {
    process.stderr.write(`${HOST}: unsupported: ${kindOf(request)}: ${why}\n`);
    process.exit(3);
  }
}

const { MCPClient } = await importPackage('@mastra/mcp');

// The server closing the connection is the normal end of a session: exit 0. MCPClient says
// so only through the server's `logger` (a documented option of the server config), with the
// message its internal client logs on close (dist/index.js:552-553). Nothing of ours is left
// to wait on then, so Node ends by itself; process.exit() would make exit-hook (Mastra's
// dependency) print a notice that its asynchronous exit hooks did not run. Over HTTP nothing
// closes when the server is done (the SDK's transport closes only when Mastra closes it), so
// the host does not end by itself then: the harness ends it (the -http target's `ends`).
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
//
// With a URL, one HTTP server instead: `{url: new URL(url), logger}`, the server definition
// MCPClient's documentation shows for a remote server (dist/client/client.d.ts:72-99, its
// example at :116-117), with none of its HTTP options (requestInit, authProvider,
// reconnectionOptions, sessionId, connectTimeout). Mastra then connects with the SDK's
// StreamableHTTPClientTransport (dist/index.js:486-506: `new StreamableHTTPClientTransport(url,
// {requestInit, reconnectionOptions, authProvider})`, all three undefined here, so the SDK's
// defaults; the shared tree's @modelcontextprotocol/sdk 1.32.2, dist/esm/client/
// streamableHttp.js:24-41), connecting within its 3 s connectTimeout (:369, 497-499), and falls
// back to the deprecated HTTP+SSE transport itself if that fails (:508-522); every request on
// the wire is that transport's. Its tool execute reconnects itself on an error it takes for a lost
// session (:623-660, 850-855). None of that is ours.
const definition = opts.url
  ? { url: new URL(opts.url), logger: onLog }
  : {
    command: opts.server[0],
    args: opts.server.slice(1),
    env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
    logger: onLog,
  };
const mcp = new MCPClient({ servers: { [SERVER]: definition } });

// One MCPClient call per kind of scripted request (README.md here), each as its documentation
// shows it for one server; what the call returns is recorded as JSON.stringify writes it.
// Every list is the one page its single request gets: Mastra passes no cursor and reads no
// nextCursor (dist/index.js:657-695, 816; its tools/list even carries its own request options
// as the params, `{timeout}`). A list of resources, templates or prompts is a map of
// server name to items; a server whose listing failed is logged and left out of it, not
// thrown (dist/index.js:1077-1100, 1115-1138, 1345-1368), so its record is then `{}`.
async function make(request, setTools, tools) {
  if ('list' in request) {
    if (request.list === 'tools') {
      // getTools() hands over Mastra tools keyed `peer_NAME` (dist/index.js:1510-1530), each
      // its own Tool object (id, description, its zod input schema; @mastra/core's Tool), not
      // the MCP Tool: recorded as JSON.stringify writes those. A later call uses this list.
      const fresh = await mcp.getTools();
      setTools(fresh);
      return { tools: Object.values(fresh) };
    }
    if (request.list === 'prompts') {
      // Mastra adds `version: ""` to a prompt without one (dist/index.js:107-110).
      return { prompts: (await mcp.prompts.list())[SERVER] };
    }
    if (request.list === 'resources') return { resources: (await mcp.resources.list())[SERVER] };
    return { resourceTemplates: (await mcp.resources.templates())[SERVER] };
  }
  if ('call' in request) {
    // A tool is called through the Mastra tool getTools() handed over, as its documentation
    // has an application (or agent) do. Its execute returns the result's structuredContent
    // when there is one, else the whole CallToolResult (dist/index.js:826-845): Mastra's own
    // shape, recorded as it comes. @mastra/core's Tool returns, not throws, a failed check of
    // the arguments (@mastra/core dist/chunk-WM4RO23J.js:51-61, 121-128), recorded as an error.
    const tool = tools()[`${SERVER}_${request.call}`];
    if (!tool) throw new HostError(`getTools() handed over no tool ${SERVER}_${request.call}`);
    return tool.execute({ context: request.arguments ?? {} });
  }
  // Each of these returns what the SDK's request parsed, unreshaped; an error of the request
  // itself comes through unwrapped (the call returns the request's promise from inside its
  // try, dist/index.js:1153-1156).
  if ('read' in request) return mcp.resources.read(SERVER, request.read); // dist/index.js:1153
  if ('subscribe' in request) return mcp.resources.subscribe(SERVER, request.subscribe); // :1185
  if ('unsubscribe' in request) {
    return mcp.resources.unsubscribe(SERVER, request.unsubscribe); // dist/index.js:1217
  }
  if ('close' in request) {
    // MCPClient.disconnect() (dist/index.js:1476-1490) disconnects each server's client
    // (:590-607), which closes its transport itself, not through the SDK Client: the SDK's
    // StdioClientTransport.close() (@modelcontextprotocol/sdk 1.32.2 dist/esm/client/
    // stdio.js:143-178) ends the server's stdin, waits up to 2 s for it to close, then SIGTERM,
    // 2 s more, then SIGKILL. An error is raised on (Promise.all), so recorded. Over HTTP the
    // SDK's StreamableHTTPClientTransport.close() (dist/esm/client/streamableHttp.js:294-301)
    // aborts its requests and its GET stream and sends nothing (no DELETE).
    return mcp.disconnect();
  }
  // get_prompt: dist/index.js:1391-1398 (`args` go out as the request's `arguments`).
  const args = request.arguments ?? {};
  return mcp.prompts.get({ serverName: SERVER, name: request.get_prompt, args });
}

// What only this host says (a call of a tool MCPClient never handed over), told apart from
// Mastra's errors in the record by its name.
class HostError extends Error {
  name = 'HostError';
}

// @mastra/core's failed check, which a Tool returns in place of a result (the shape of
// @mastra/core dist/chunk-WM4RO23J.js:54-61; core 0.24.9 exports no isValidationError).
const isValidationError = (value) =>
  value !== null && typeof value === 'object' && value.error === true
  && 'validationErrors' in value;

// Each scripted request's outcome is recorded by session_record.mjs. Once the server has
// closed, the session is over: a request then would make Mastra start the server again, a
// second session the application never asked for, so the script stops; the request the close
// cut off is not recorded either (the ts-sdk host ends at once then too).
const closing = (err) => closed || (err !== undefined && closedUnder(err));
const refusal = (value) => (isValidationError(value) ? `ValidationError: ${value.message}` : null);

try {
  if (features.elicitation) {
    const answer = features.elicitation.answer;
    await mcp.elicitation.onRequest(SERVER, async () => answer); // connects first
  }
  if (subscribes(plan)) {
    // connects first too; the params Mastra hands on are recorded
    await mcp.resources.onUpdated(SERVER, (params) => recordNotification(plan, params));
  }
  let listed = await mcp.getTools(); // connects, if not yet; tools/list
  if (plan.session.call_tools) {
    for (const [name, tool] of Object.entries(listed)) {
      try {
        await tool.execute({ context: {} });
      } catch (err) {
        process.stderr.write(`${HOST}: tools/call ${name} failed: ${err.message}\n`);
      }
    }
  }
  const setTools = (tools) => {
    listed = tools;
  };
  // A close request ends the script once its outcome is recorded. Node then ends by itself
  // (exit 0), as it does once the server has closed: nothing of ours is left to wait on. Not
  // process.exit(): Mastra never drops the exit hook it registered on connecting
  // (dist/index.js:564-570), so exit-hook would print its notice; run at the natural end, that
  // hook's disconnect finds no transport left and returns (:591-594).
  await makeRequests(plan, (request) => make(request, setTools, () => listed), { closing, refusal });
} catch (err) {
  // A request cut off by the server closing is the same normal end. Before its connect has
  // finished, Mastra logs no close (it hooks onclose only after, dist/index.js:550-553): the
  // SDK's ConnectionClosed error (code -32000) under Mastra's wrapping error says it then.
  if (!closed && !closedUnder(err)) fail(err && err.message ? err.message : String(err));
}

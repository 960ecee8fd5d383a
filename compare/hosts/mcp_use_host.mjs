// An application embedding mcp-use's TypeScript client (npm mcp-use, MCPClient + MCPSession).
//
// It is evidence: everything mcp-use put on the wire was caused by the few calls below, as its
// documentation shows them (file:line in mcp-use 1.34.6's dist/). Usage (the host contract,
// README.md here):
//
//   node mcp_use_host.mjs --plan PLAN.json -- SERVER_COMMAND...
//   node mcp_use_host.mjs --plan PLAN.json --url URL
//
// The first has mcp-use start the server on stdio (a `command` server config); the second has
// it connect to a server already listening at URL (a `url` server config), below.
//
// mcp-use is loaded from the target's own npm tree, tools/npm/mcp-use-ts/ under
// $MCP_COMPARE_TOOLS (default ../../../tools from this file), where `mcp-compare tools install`
// put the pinned version.
//
// The calls:
// - `MCPClient` from the package's `mcp-use/client` export (package.json "exports"): its main
//   entry, which the README imports from, also loads the agent, which needs LangChain, an
//   optional peer dependency a client-only application does not install; both entries hold
//   the same class (dist/index.js and dist/src/client.js import it from chunk-3XAZE4TX.js);
// - `new MCPClient({mcpServers: {peer: {command, args, env}}}, {onSampling, onElicitation})`
//   (dist/src/client.d.ts:51-88 and its inline-configuration example); for a plan that
//   subscribes, `onNotification` too (client.d.ts:83-87), below;
// - `client.createSession('peer', false)`, then `session.connect()` and `session.initialize()`,
//   the sequence its MCPSession.initialize() documentation shows (dist/chunk-3XAZE4TX.js:120-135);
// - roots through the session's connector: `session.connector.setRoots(roots)`
//   (dist/src/connectors/base.d.ts:131-145), before connecting (it then only stores them: no
//   client, no notification, dist/chunk-V64O255P.js:179-187) and again for each change, when
//   it sends notifications/roots/list_changed;
// - `session.listTools()` and `session.callTool(name, {})`;
// - scripted requests (the plan's session.requests, README.md here): each through the
//   session's own methods (dist/src/session.d.ts:229-511), make() below says which; mcp-use has
//   a call for every kind. A close is `client.close()`, the call its documentation says to make
//   when done with the client (dist/src/client.d.ts:405-440).
//
// What mcp-use decides itself, whatever the application passes:
// - its stdio connector always declares `roots: {listChanged: true}` (dist/chunk-7R56RSZ6.js:
//   129-133, "Always advertise roots capability") and answers roots/list from its list, empty
//   unless the application set one (dist/chunk-V64O255P.js:198-208); its HTTP connector too
//   (dist/chunk-3XAZE4TX.js:1669-1678);
// - MCPClient drops a server config's `roots` when it builds that connector
//   (dist/chunk-3XAZE4TX.js:2361-2370), hence setRoots() on the session's connector;
// - with an elicitation callback it declares both form and url (dist/chunk-7R56RSZ6.js:137);
// - setRoots() on a connected session always notifies: a plan change with `notify: false`
//   exits 3.
// mcp-use sends anonymous telemetry unless MCP_USE_ANONYMIZED_TELEMETRY=false
// (dist/chunk-FOGBXW3W.js:543): a cell has no network, so the host sets it before loading.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exits, parseArgs, readPlan } from './plan_check.mjs';
import { makeRequests, recordNotification, subscribes, UPDATED } from './session_record.mjs';

const HOST = 'mcp-use host';
const { fail, refuse } = exits(HOST);
const SERVER = 'peer';
const TARGET = 'mcp-use-ts';
const here = dirname(fileURLToPath(import.meta.url));
const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', '..', '..', 'tools');

// One export of the package (its "import" condition) in the target's own tree, as Node would
// resolve `mcp-use/client` if the package sat beside this file.
async function importExport(name, subpath) {
  const root = join(tools, 'npm', TARGET, 'node_modules', ...name.split('/'));
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    fail(`${name} is not installed under ${tools}/npm/${TARGET}; run: mcp-compare tools install`);
  }
  const entry = pkg.exports?.[subpath]?.import;
  if (typeof entry !== 'string') fail(`${name} ${pkg.version} exports no ${subpath}`);
  return import(pathToFileURL(join(root, entry)).href);
}

// One root: the platform's file URI for the folder, named for it.
const asRoot = (folder) => ({ uri: pathToFileURL(resolve(folder)).href, name: basename(folder) });

const opts = parseArgs(process.argv.slice(2), refuse);
const { plan, problem } = readPlan(opts.planPath);
if (problem) refuse(problem);
const features = plan.features;
if ((features.roots?.changes ?? []).some((c) => !c.notify)) {
  process.stderr.write(`${HOST}: unsupported: roots: a change without notification: `
    + 'connector.setRoots() always sends notifications/roots/list_changed once connected\n');
  process.exit(3);
}

process.env.MCP_USE_ANONYMIZED_TELEMETRY ??= 'false';
const { MCPClient } = await importExport('mcp-use', './client');

// One callback per feature the plan names; an absent feature gets none, so mcp-use's own
// default is what gets measured.
const callbacks = {};
if (features.elicitation) {
  const answer = features.elicitation.answer;
  callbacks.onElicitation = async () => answer;
}
if (features.sampling) {
  const answer = features.sampling.answer;
  callbacks.onSampling = async () => answer;
}
// A plan that subscribes: MCPClient's notification callback, which its connector makes the
// SDK Client's fallbackNotificationHandler once connected (dist/chunk-V64O255P.js:50-52,
// 87-113): it is handed every notification without a handler of its own, the JSON-RPC
// message as the SDK's transport read it; a resource update's params are recorded.
if (subscribes(plan)) {
  callbacks.onNotification = (notification) => {
    if (notification.method === UPDATED) recordNotification(plan, notification.params);
  };
}

// One stdio server. An application passes its server's configured environment; the harness
// configures the peer through ours, so all of it is passed on.
//
// With a URL, one HTTP server instead: `{url}`, the server config mcp-use documents for a
// remote server (HttpServerConfig, dist/src/config.d.ts:59-71; its client configuration guide:
// "provide ... url for HTTP"), with none of its options (headers, fetch, authToken,
// authProvider, transport, preferSse, disableSseFallback). MCPClient builds its HttpConnector
// from it (dist/chunk-3XAZE4TX.js:2349-2377, 1993-2016), which connects with the SDK's
// StreamableHTTPClientTransport (:1789-1815: `new StreamableHTTPClientTransport(new URL(url),
// {authProvider, fetch, requestInit: {headers}, reconnectionOptions})`, authProvider and fetch
// undefined here, `headers` mcp-use's own empty map, the reconnection options mcp-use's, equal
// to the SDK's defaults; the tree's @modelcontextprotocol/sdk 1.26.0, dist/esm/client/
// streamableHttp.js:24-35) and falls back to the deprecated HTTP+SSE transport itself when that
// fails (:1726-1787). Its client info, capabilities and handlers are the stdio connector's
// (:1669-1678, 1830-1831, 1874-1876). Every request on the wire is that transport's, or
// mcp-use's; none of it is ours.
const server = opts.url
  ? { url: opts.url }
  : {
    command: opts.server[0],
    args: opts.server.slice(1),
    env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
  };
const client = new MCPClient({ mcpServers: { [SERVER]: server } }, callbacks);

// The server closing shows as the SDK's ConnectionClosed error (code -32000) on a pending
// request, or, for a request made after the close, as the SDK's plain Error('Not connected')
// (@modelcontextprotocol/sdk 1.26.0 dist/esm/shared/protocol.js:612, 783: its transport is
// gone). mcp-use wraps neither.
const CONNECTION_CLOSED = -32000;
function closedUnder(err) {
  for (let e = err; e; e = e.cause) {
    if (e.code === CONNECTION_CLOSED || e.message === 'Not connected') return true;
  }
  return false;
}

// One MCPSession method per kind of scripted request (README.md here), each as its
// documentation shows it; the value it returns (the SDK Client's, which mcp-use hands on
// unreshaped, dist/chunk-V64O255P.js:331-514) is recorded as JSON.stringify writes it.
const LISTS = {
  // An array of tools: one page, mcp-use passes no cursor and takes none
  // (dist/chunk-3XAZE4TX.js:237-239, dist/chunk-V64O255P.js:359-372).
  tools: async () => ({ tools: await session.listTools() }),
  // One page; {prompts: []} without asking when the server declared no prompts
  // (dist/chunk-V64O255P.js:485-504). The page's nextCursor, which listPrompts() cannot take
  // back, is not an item.
  prompts: async () => ({ prompts: (await session.listPrompts()).prompts }),
  // The session's helper that follows every nextCursor (dist/chunk-3XAZE4TX.js:301-303,
  // dist/chunk-V64O255P.js:392-424); {resources: []} without asking when the server declared
  // no resources.
  resources: async () => ({ resources: (await session.listAllResources()).resources }),
  // One page: listResourceTemplates() takes request options, no cursor
  // (dist/chunk-V64O255P.js:425-432).
  resource_templates: async () => ({
    resourceTemplates: (await session.listResourceTemplates()).resourceTemplates,
  }),
};
async function make(request) {
  if ('list' in request) return LISTS[request.list]();
  if ('call' in request) return session.callTool(request.call, request.arguments ?? {}); // :270
  if ('read' in request) return session.readResource(request.read); // chunk-3XAZE4TX.js:352
  if ('subscribe' in request) return session.subscribeToResource(request.subscribe); // :367
  if ('unsubscribe' in request) {
    return session.unsubscribeFromResource(request.unsubscribe); // chunk-3XAZE4TX.js:381
  }
  if ('get_prompt' in request) {
    return session.getPrompt(request.get_prompt, request.arguments ?? {}); // :411
  }
  if ('close' in request) {
    // MCPClient.close() (dist/chunk-3XAZE4TX.js:2580-2586) closes every session through
    // closeSession() (:812-833): session.disconnect(), the connector's cleanupResources()
    // (dist/chunk-V64O255P.js:265-274, 527-557). That is the SDK Client's close(), whose
    // StdioClientTransport.close() (@modelcontextprotocol/sdk 1.26.0 dist/esm/client/
    // stdio.js:137-172) ends the server's stdin, waits up to 2 s for it to close, then SIGTERM,
    // 2 s more, then SIGKILL; then the connection manager's stop, whose transport.close() finds
    // no process left (dist/chunk-7R56RSZ6.js:56-66). Each step logs its error and raises none,
    // so the record is always ok. Over HTTP, the HttpConnector's cleanupResources() first sends
    // the SDK transport's terminateSession(), an HTTP DELETE with the session id (dist/
    // chunk-3XAZE4TX.js:1942-1956; @modelcontextprotocol/sdk 1.26.0 dist/esm/client/
    // streamableHttp.js:431-456), then the SDK Client's close(), whose transport close() aborts
    // its GET stream (:280-287).
    return client.close();
  }
  // complete: the SDK's CompleteRequestParams, passed on as given (chunk-3XAZE4TX.js:336).
  const { ref, argument } = request.complete;
  const reference = ref.type === 'ref/prompt'
    ? { type: ref.type, name: ref.name }
    : { type: ref.type, uri: ref.name };
  return session.complete({ ref: reference, argument });
}

const roots = (features.roots?.folders ?? []).map(asRoot);
let session;
try {
  session = await client.createSession(SERVER, false);
  if (features.roots) await session.connector.setRoots(roots); // not connected: stored only
  await session.connect(); // spawns the server; the SDK's initialize + notifications/initialized
  await session.initialize(); // mcp-use's own tools/list
  if (plan.session.call_tools) {
    for (const tool of await session.listTools()) {
      try {
        await session.callTool(tool.name, {});
      } catch (err) {
        if (closedUnder(err)) throw err;
        process.stderr.write(`${HOST}: tools/call ${tool.name} failed: ${err.message}\n`);
      }
    }
  }
  // Each scripted request's outcome, recorded (session_record.mjs): the server closing ends the
  // session here as everywhere else, thrown on unrecorded (exit 0 below); a close request ends
  // the process once its outcome is recorded.
  if (await makeRequests(plan, make, { closing: (err) => closedUnder(err) })) process.exit(0);
} catch (err) {
  // The server hanging up, even mid-request, is the normal end of a session.
  if (closedUnder(err)) process.exit(0);
  fail(err && err.message ? err.message : String(err));
}

// Each change of the plan fires once, when its signal file appears in the control folder. The
// timer is unref'd: once the server has closed, nothing of the session keeps Node alive, and
// it ends by itself (exit 0), whether or not every change has fired.
let pending = [...(features.roots?.changes ?? [])];
if (pending.length) {
  const timer = setInterval(async () => {
    const due = pending.filter((c) => existsSync(join(plan.control, c.signal)));
    if (!due.length) return;
    pending = pending.filter((c) => !due.includes(c));
    if (!pending.length) clearInterval(timer);
    for (const change of due) {
      for (const folder of change.add_folders) {
        mkdirSync(folder, { recursive: true });
        roots.push(asRoot(folder));
      }
      try {
        await session.connector.setRoots([...roots]); // sends notifications/roots/list_changed
      } catch (err) {
        if (!closedUnder(err)) fail(`setRoots failed: ${err.message}`);
      }
    }
  }, 50);
  timer.unref();
}

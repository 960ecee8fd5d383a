// An application embedding the official TypeScript SDK's client (@modelcontextprotocol/sdk).
//
// It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
// reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):
//
//   node ts_sdk_host.mjs --plan PLAN.json -- SERVER_COMMAND...
//   node ts_sdk_host.mjs --plan PLAN.json --url URL
//
// The first starts the server on stdio (StdioClientTransport); the second connects to a server
// already listening at URL through the SDK's Streamable HTTP client transport, the one its
// client examples use for a remote server, at its defaults (see `transport` below).
//
// The SDK is loaded from the project's tools folder ($MCP_COMPARE_TOOLS, default ../../../tools
// from this file), where `mcp-compare tools install` put the pinned version. The plan is checked
// against host-plan.schema.json beside this file, so its shape is said once for every host, by
// a small reader of the few keywords that schema uses (check() below, as host_plan.py does for
// the Python hosts): ajv, which the SDK depends on, took about 0.3 s to load and compile on
// every cell, more than the SDK's client. A keyword check() does not know is refused loudly.
//
// Each client feature of the plan is a capability declared in the Client's options plus a
// request handler, as the SDK documents it: Client.setRequestHandler refuses a handler for
// roots/list, elicitation/create or sampling/createMessage whose capability was not declared
// (assertRequestHandlerCapability, dist/esm/client/index.js:398-418 in 1.32.2), and it
// validates elicitation and sampling requests and results itself (index.js:169-267). A
// feature the plan leaves out is neither declared nor handled: the SDK's default is measured.
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importFrom as importFromTools } from './node_import.mjs';
import { exits, parseArgs, readPlan } from './plan_check.mjs';
import { makeRequests, recordNotification, subscribes } from './session_record.mjs';

const HOST = 'ts-sdk host';
// Pages read of one list at most: a bound on a server that never stops handing out cursors.
const MAX_PAGES = 50;
const { fail, refuse } = exits(HOST);
const here = dirname(fileURLToPath(import.meta.url));
const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', '..', '..', 'tools');

const importFrom = (name, subpath) => importFromTools(tools, name, subpath, fail);

const opts = parseArgs(process.argv.slice(2), refuse);
// The plan, checked against host-plan.schema.json by the reader the Node hosts share.
const { plan, problem } = readPlan(opts.planPath);
if (problem) refuse(problem);
const features = plan.features;
const { Client } = await importFrom('@modelcontextprotocol/sdk', 'client');
const { StdioClientTransport } = await importFrom('@modelcontextprotocol/sdk', 'client/stdio.js');
const { StreamableHTTPClientTransport } = opts.url
  ? await importFrom('@modelcontextprotocol/sdk', 'client/streamableHttp.js')
  : {};
const {
  ListRootsRequestSchema,
  ElicitRequestSchema,
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} = await importFrom('@modelcontextprotocol/sdk', 'types.js');

// The application's roots: file URLs made by Node's own helper (which percent-encodes spaces,
// '#' and non-ASCII letters), named by the folder's base name.
const asRoot = (folder) => {
  const path = resolve(folder);
  return { uri: pathToFileURL(path).href, name: basename(path) };
};
const roots = features.roots ? features.roots.folders.map(asRoot) : [];

// The capabilities this application declares: one per feature of the plan, with the
// sub-capabilities the SDK lets the application choose (listChanged; form and url modes).
const capabilities = {};
if (features.roots) capabilities.roots = features.roots.list_changed ? { listChanged: true } : {};
if (features.elicitation) {
  capabilities.elicitation = {};
  if (features.elicitation.form) capabilities.elicitation.form = {};
  if (features.elicitation.url) capabilities.elicitation.url = {};
}
if (features.sampling) capabilities.sampling = {};

const client = new Client({ name: 'mcp-compare-ts-host', version: '1.0.0' }, { capabilities });
if (features.roots) {
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [...roots] }));
}
if (features.elicitation) {
  const answer = features.elicitation.answer;
  client.setRequestHandler(ElicitRequestSchema, async () => answer);
}
if (features.sampling) {
  const answer = features.sampling.answer;
  client.setRequestHandler(CreateMessageRequestSchema, async () => answer);
}
// A plan that subscribes: the SDK's notification handler for resource updates
// (Protocol.setNotificationHandler, dist/esm/shared/protocol.js:941-947 in 1.32.2), handed the
// notification its schema parsed; its params are recorded.
if (subscribes(plan)) {
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    recordNotification(plan, notification.params);
  });
}

// The server closing the connection is the normal end of a session: exit 0. Not while our own
// close request runs: the SDK calls onclose from inside client.close() (when the server process
// closes), before the call returns and its outcome is recorded. Over Streamable HTTP the SDK's
// transport calls onclose only from its own close() (dist/esm/client/streamableHttp.js:294-301
// in 1.32.2): a server that is done is not a closed connection to it, so the host does not end
// by itself then and the harness ends it (the -http target's `ends: harness`).
let closed = false;
let closeAsked = false;
client.onclose = () => {
  closed = true;
  if (!closeAsked) process.exit(0);
};

// Every item of one list. The SDK has no helper that reads every page: an application passes
// each nextCursor back to its list call until a page comes without one (an empty string is a
// cursor too).
const LISTS = {
  tools: ['listTools', 'tools'],
  prompts: ['listPrompts', 'prompts'],
  resources: ['listResources', 'resources'],
  resource_templates: ['listResourceTemplates', 'resourceTemplates'],
};
async function whole(name) {
  const [call, member] = LISTS[name];
  const items = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client[call](cursor === undefined ? undefined : { cursor });
    items.push(...result[member]);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

// One Client method per kind of scripted request (README.md here), each as the SDK documents
// it; the value it returns is recorded as JSON.stringify writes it.
async function make(request) {
  if ('list' in request) return { [LISTS[request.list][1]]: await whole(request.list) };
  if ('call' in request) {
    return client.callTool({ name: request.call, arguments: request.arguments ?? {} });
  }
  if ('read' in request) return client.readResource({ uri: request.read });
  if ('subscribe' in request) return client.subscribeResource({ uri: request.subscribe });
  if ('unsubscribe' in request) return client.unsubscribeResource({ uri: request.unsubscribe });
  if ('get_prompt' in request) {
    return client.getPrompt({ name: request.get_prompt, arguments: request.arguments ?? {} });
  }
  if ('close' in request) {
    // Client.close() is Protocol.close(), which closes its transport (dist/esm/shared/
    // protocol.js:525-530 in 1.32.2). StdioClientTransport.close() (client/stdio.js:143-178)
    // ends the server's stdin, waits up to 2 s for the process to close, then SIGTERM, up to
    // 2 s more, then SIGKILL, without waiting after it. Over HTTP,
    // StreamableHTTPClientTransport.close() (client/streamableHttp.js:294-301) aborts its
    // requests in flight and its GET stream and calls onclose; it sends no DELETE (that is its
    // separate terminateSession(), :446-471, which the host does not call).
    closeAsked = true;
    return client.close();
  }
  const { ref, argument } = request.complete;
  const reference =
    ref.type === 'ref/prompt' ? { type: ref.type, name: ref.name } : { type: ref.type, uri: ref.name };
  return client.complete({ ref: reference, argument });
}

// The SDK's stdio transport. An application passes its server's configured environment; the
// harness configures the peer through ours, so all of it is passed on.
//
// With a URL: `new StreamableHTTPClientTransport(new URL(url))`, as the client examples its
// README lists connect to a remote server (README.md "Client examples":
// src/examples/client/simpleStreamableHttp.ts), with no options (dist/esm/client/
// streamableHttp.js:24-41 in 1.32.2: no requestInit, no authProvider, no sessionId, its
// default reconnection options). Every HTTP request is the transport's own:
// each message a POST with Accept "application/json, text/event-stream" and the session id and
// negotiated protocol version it keeps (:69-88, 302-431; Client.connect hands it the version,
// dist/esm/client/index.js:299-300), and once notifications/initialized is accepted, a GET
// for the server's stream (:384-391, 89-127).
const transport = opts.url
  ? new StreamableHTTPClientTransport(new URL(opts.url))
  : new StdioClientTransport({
    command: opts.server[0],
    args: opts.server.slice(1),
    env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
    stderr: 'inherit',
  });

try {
  await client.connect(transport); // initialize + notifications/initialized
  if (plan.session.call_tools) {
    const listed = await whole('tools');
    for (const tool of listed) {
      try {
        await client.callTool({ name: tool.name, arguments: {} });
      } catch (err) {
        process.stderr.write(`${HOST}: tools/call ${tool.name} failed: ${err.message}\n`);
      }
    }
  }
  // Each scripted request's outcome, recorded (session_record.mjs); the server closing ends the
  // process (onclose above), and so does a close request once its outcome is recorded.
  if (await makeRequests(plan, make)) process.exit(0);
} catch (err) {
  if (closed) process.exit(0);
  fail(err && err.message ? err.message : String(err));
}

// Each change of the plan fires once, when its signal file appears in the control folder.
let pending = features.roots ? [...features.roots.changes] : [];
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
      if (!change.notify) continue;
      try {
        await client.sendRootsListChanged();
      } catch (err) {
        fail(`notifications/roots/list_changed failed: ${err.message}`);
      }
    }
  }, 50);
}

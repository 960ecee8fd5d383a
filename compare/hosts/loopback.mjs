// Preloaded into the gateways a chain starts and the servers played over HTTP (node --import):
// a server whose listen() names no host binds 127.0.0.1 instead of every interface. Only the
// address changes; what the program relays or serves, and how, is untouched. Some programs
// (supergateway, the Everything server) offer no host option. Where MCP_COMPARE_LISTEN_LOG
// names a file, each listen() call appends what the program itself asked for there (the host
// it named, or null: every interface), so that its own default is measured, not exposed.
import fs from 'node:fs';
import net from 'node:net';

const log = process.env.MCP_COMPARE_LISTEN_LOG;
const listen = net.Server.prototype.listen;

function note(host, port) {
  if (!log) return;
  try {
    fs.appendFileSync(log, JSON.stringify({ host: host ?? null, port: port ?? null }) + '\n');
  } catch {
    // the record is evidence, never a reason for the program to fail
  }
}

net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    note(typeof second === 'string' ? second : null, Number(first));
    if (typeof second !== 'string') args.splice(1, 0, '127.0.0.1');
  } else if (first && typeof first === 'object' && !first.path) {
    note(first.host, first.port);
    if (first.host === undefined) args[0] = { ...first, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};

// Starts a chain of two MCP gateways joined by HTTP on a free 127.0.0.1 port, for proxy
// targets whose host side and server side are different processes (stdio -> HTTP -> stdio).
//
//   node chain.mjs [--ready-timeout SECONDS] -- INNER_COMMAND... --then OUTER_COMMAND...
//
// Every "@PORT@" in either command is replaced by the port. The inner command (the gateway
// that serves HTTP and starts the server behind it) runs first, with its stdout sent to our
// stderr so nothing but the outer command's output reaches the host. Once something accepts
// connections on 127.0.0.1:PORT, the outer command (the gateway that speaks stdio to the host)
// runs with our stdin, stdout and stderr. When the outer one exits, or we are signalled, the
// whole process group (we lead it when started by the harness) is ended: SIGTERM, then SIGKILL.
//
// Node children are started with --import loopback.mjs (beside this file), which makes a
// listen() that names no host bind 127.0.0.1, so no gateway listens beyond this machine.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

function parse(argv) {
  let timeout = 20;
  let rest = argv;
  if (rest[0] === '--ready-timeout') {
    timeout = Number(rest[1]);
    rest = rest.slice(2);
  }
  const then = rest.indexOf('--then');
  if (rest[0] !== '--' || then < 2 || then === rest.length - 1) {
    process.stderr.write('usage: chain.mjs [--ready-timeout S] -- INNER... --then OUTER...\n');
    process.exit(2);
  }
  return { timeout, inner: rest.slice(1, then), outer: rest.slice(then + 1) };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function leadsGroup() {
  // /proc/self/stat: fields after the last ')' are state, ppid, pgrp, ...
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[2]) === process.pid;
}

const { timeout, inner, outer } = parse(process.argv.slice(2));
const children = [];
let ending = false;

function signalAll(sig) {
  if (leadsGroup()) {
    try {
      process.kill(-process.pid, sig);
    } catch {}
  } else {
    for (const child of children) {
      try {
        child.kill(sig);
      } catch {}
    }
  }
}

function end(code) {
  if (ending) return;
  ending = true;
  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT']) process.on(sig, () => {});
  signalAll('SIGTERM');
  setTimeout(() => {
    signalAll('SIGKILL');
    process.exit(code);
  }, 2500).unref();
  const alive = () => children.some((c) => c.exitCode === null && c.signalCode === null);
  const poll = setInterval(() => {
    if (!alive()) {
      clearInterval(poll);
      process.exit(code);
    }
  }, 50);
}

for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT']) process.on(sig, () => end(128 + 15));

const port = await freePort();
const fill = (args) => args.map((a) => a.replaceAll('@PORT@', String(port)));
const loopback = pathToFileURL(join(HERE, 'loopback.mjs')).href;
const env = {
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${loopback}`.trim(),
};
process.stderr.write(`chain: inner on 127.0.0.1:${port}: ${fill(inner).join(' ')}\n`);
const first = spawn(inner[0], fill(inner).slice(1), { stdio: ['ignore', 2, 2], env });
children.push(first);
first.on('exit', (code, sig) => {
  process.stderr.write(`chain: inner exited (${code ?? sig})\n`);
  end(1);
});
first.on('error', (err) => {
  process.stderr.write(`chain: cannot start the inner command: ${err.message}\n`);
  end(1);
});
const deadline = Date.now() + timeout * 1000;
while (!(await accepts(port))) {
  if (ending) break;
  if (Date.now() > deadline) {
    process.stderr.write(`chain: nothing listens on 127.0.0.1:${port} after ${timeout} s\n`);
    end(1);
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
if (!ending) {
  process.stderr.write(`chain: outer: ${fill(outer).join(' ')}\n`);
  const second = spawn(outer[0], fill(outer).slice(1), { stdio: 'inherit', env });
  children.push(second);
  second.on('exit', (code, sig) => end(code ?? (sig ? 1 : 0)));
  second.on('error', (err) => {
    process.stderr.write(`chain: cannot start the outer command: ${err.message}\n`);
    end(1);
  });
}

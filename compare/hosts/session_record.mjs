// The session record for the Node hosts (README.md here): each request of the plan's
// session.requests in turn, its outcome one JSON line of <control>/session.jsonl as soon as it
// ends; an error does not stop the next. Said once for every Node host: each passes its
// library's calls and how it tells that the session is over.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export const kindOf = (request) => Object.keys(request).find((k) => k !== 'arguments');
const oneLine = (text) => text.split(/\s+/).join(' ').trim();

// The JSON-RPC code of an error: the first integer code down its cause chain (a library may
// wrap the SDK's error in one of its own, as Mastra does).
export function codeOf(err) {
  for (let e = err; e; e = e.cause) if (Number.isInteger(e.code)) return e.code;
  return undefined;
}

// make(request): the library's value for one request. closing(err): whether the session is
// over, asked before each request (no error: the script stops there) and of an error a request
// raised (then thrown on, unrecorded: the server closing is the session's normal end, not an
// outcome of the request). refusal(value): the error text of a failure the library returned as
// a value instead of throwing it, else null.
//
// A close request (the library's own call that ends the session, made by make()) is the last
// of a script: its outcome is recorded once the call has returned, whatever it raised (the
// connection it closed is then over by our own doing, not the server's), and the script stops
// there. Returns true then, so the host exits 0 at once.
export async function makeRequests(plan, make, { closing = () => false, refusal = () => null } = {}) {
  const record = join(plan.control, 'session.jsonl');
  for (const [step, request] of (plan.session.requests ?? []).entries()) {
    if (closing()) return;
    const entry = { step, request: kindOf(request) };
    try {
      const value = await make(request);
      const refused = refusal(value);
      Object.assign(entry, refused ? { ok: false, error: oneLine(refused) } : { ok: true, result: value ?? {} });
    } catch (err) {
      if (entry.request !== 'close' && closing(err)) throw err;
      const type = err?.name || err?.constructor?.name || 'Error';
      Object.assign(entry, { ok: false, error: oneLine(`${type}: ${err?.message ?? String(err)}`) });
      const code = codeOf(err);
      if (code !== undefined) entry.code = code;
    }
    appendFileSync(record, `${JSON.stringify(entry)}\n`);
    if (entry.request === 'close') return true;
  }
}

// The notification a plan with a subscribe request records (README.md, the session record).
export const UPDATED = 'notifications/resources/updated';

// Whether the plan subscribes to a resource, so the host registers its library's handler for
// resource updates before it connects.
export const subscribes = (plan) => (plan.session.requests ?? []).some((r) => 'subscribe' in r);

// Append one resource update the library handed our handler (params: what it handed) to the
// session record, when it arrives.
export function recordNotification(plan, params) {
  appendFileSync(join(plan.control, 'session.jsonl'), `${JSON.stringify({ notification: UPDATED, params: params ?? {} })}\n`);
}

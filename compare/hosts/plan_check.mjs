// The host plan, read and checked for a Node host (the contract: README.md here).
//
// The plan is checked against host-plan.schema.json beside this file, so its shape is said
// once for every host, by a small reader of the few keywords that schema uses (check() below,
// as host_plan.py does for the Python hosts); a keyword it does not know is refused loudly.
// Every Node host imports it from here, with the command line they all take and their two
// ways out (parseArgs, exits).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

// The keywords check() reads, and the ones that only annotate.
const CHECKED = new Set(['type', 'const', 'enum', 'pattern', 'minLength', 'minItems', 'items',
  '$ref', 'properties', 'required', 'additionalProperties']);
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$defs']);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const TYPES = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  boolean: (v) => typeof v === 'boolean',
};

// The first way `value` breaks `schema` ("key WHERE: what"), or null. A schema keyword the
// reader cannot read throws: that is our bug, not a malformed plan.
function check(value, schema, root, where) {
  const key = `key ${where || '(top level)'}`;
  const unknown = Object.keys(schema).filter((k) => !CHECKED.has(k) && !ANNOTATIONS.has(k));
  if (unknown.length || (schema.additionalProperties ?? false) !== false) {
    throw new Error(`host-plan.schema.json uses ${unknown.join(', ') || 'additionalProperties'}, which check() cannot read`);
  }
  if (schema.$ref) return check(value, root.$defs[schema.$ref.replace('#/$defs/', '')], root, where);
  const at = (sub) => (where ? `${where}.${sub}` : String(sub));
  if (schema.type && !TYPES[schema.type](value)) {
    return `${key}: ${JSON.stringify(value).slice(0, 40)} is not of type ${schema.type}`;
  }
  if ('const' in schema && value !== schema.const) return `${key}: ${schema.const} was expected`;
  if (schema.enum && !schema.enum.includes(value)) {
    return `${key}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`;
  }
  if (typeof value === 'string') {
    if (value.length < (schema.minLength ?? 0)) return `${key}: ${JSON.stringify(value)} is too short`;
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) {
      return `${key}: ${JSON.stringify(value)} does not match ${schema.pattern}`;
    }
  }
  if (Array.isArray(value)) {
    if (value.length < (schema.minItems ?? 0)) return `${key}: too few items`;
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], schema.items ?? {}, root, at(i));
      if (problem) return problem;
    }
  }
  if (isObject(value)) {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(value, name)) return `${key}: '${name}' is a required property`;
    }
    if (schema.additionalProperties === false) {
      const extra = Object.keys(value).filter((k) => !Object.hasOwn(properties, k)).sort();
      if (extra.length) return `${key}: unknown key '${extra[0]}'`;
    }
    for (const [name, sub] of Object.entries(properties)) {
      if (Object.hasOwn(value, name)) {
        const problem = check(value[name], sub, root, at(name));
        if (problem) return problem;
      }
    }
  }
  return null;
}

// The plan at `path`, or the reason it is refused (a malformed plan: the host exits 2 with it
// on one line). `knownOptions` are the option names this host accepts.
export function readPlan(path, knownOptions = []) {
  let plan;
  try {
    plan = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return { problem: `cannot read the plan ${path}: ${err.message}` };
  }
  const schema = JSON.parse(readFileSync(join(here, 'host-plan.schema.json'), 'utf8'));
  const problem = check(plan, schema, schema, '');
  if (problem) return { problem: `malformed plan ${path}: ${problem}` };
  const unknown = Object.keys(plan.options).filter((k) => !knownOptions.includes(k));
  if (unknown.length) {
    return { problem: `unknown option ${unknown[0]} (known: ${knownOptions.join(', ') || 'none'})` };
  }
  return { plan };
}

// A Node host's two ways out, its messages prefixed with `host`: fail() when the SDK or the
// server went wrong (exit 1), refuse() for a malformed plan or command line (one line, exit 2:
// the contract).
export function exits(host) {
  return {
    fail(message) {
      process.stderr.write(`${host}: ${message}\n`);
      process.exit(1);
    },
    refuse(message) {
      process.stderr.write(`${host}: ${message.split(/\s+/).join(' ')}\n`);
      process.exit(2);
    },
  };
}

// The command line every host takes: --plan PATH -- SERVER_COMMAND... (start the server on
// stdio), or --plan PATH --url URL (connect to a server already listening, over the SDK's
// Streamable HTTP client); anything else is refused through `refuse`. `server` is the command
// (empty with a URL), `url` the URL (null with a command).
export function parseArgs(argv, refuse) {
  const usage = 'usage: --plan PATH -- SERVER_COMMAND... | --plan PATH --url URL';
  if (argv.length === 4 && argv[0] === '--plan' && argv[2] === '--url') {
    return { planPath: argv[1], server: [], url: argv[3] };
  }
  const cut = argv.indexOf('--');
  if (cut < 0 || cut === argv.length - 1) {
    refuse(`${usage} (missing "-- SERVER_COMMAND...")`);
  }
  const own = argv.slice(0, cut);
  if (own.length !== 2 || own[0] !== '--plan') {
    refuse(`${usage} (got ${own.join(' ') || 'nothing'})`);
  }
  return { planPath: own[1], server: argv.slice(cut + 1), url: null };
}

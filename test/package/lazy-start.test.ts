// What a start of the built command loads, as a host spawns it, up to the moment it
// serves: a stdio server loads neither the HTTP side (node:http, the listener's file) nor
// node:crypto (a random id or a hash is asked for only later, if ever), and `serve` does
// not load the workspace's shell. The bundle would otherwise hoist them to the top of the
// chunk that requires them on demand (see scripts/bundle.js). Each child reports the
// built-in modules it loaded and the package files it required; the HTTP row shows that
// the report sees them at all.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  APP,
  appProject,
  COMMONJS_APP,
  ensureBuilt,
  killChildren,
  ROOT,
  startAgenttool,
  startNode,
  stdioOpening,
  tempDir,
} from '../cli/helpers';

const PACKAGE = join(ROOT, 'dist/pkg');

interface Loaded {
  readonly builtins: readonly string[];
  readonly files: readonly string[];
}

/**
 * A preload that writes to `report` what the process had loaded by its exit or, when
 * `servingLine`, by the line on stderr that says it serves, whichever comes first. A
 * workspace is read at that line: it readies its sandbox (loading what a command needs)
 * 100 ms later, on a timer set just before it.
 */
function reporter(dir: string, report: string, servingLine = false): string {
  const file = join(dir, 'report-loads.js');
  writeFileSync(
    file,
    `const fs = require('node:fs');
let taken = false;
const take = () => {
  if (taken) return;
  taken = true;
  fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify({
    builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)),
    files: Object.keys(require.cache),
  }));
};
const watch = (stream, mark) => {
  const write = stream.write;
  stream.write = function (chunk, ...rest) {
    if (!taken && String(chunk).includes(mark)) take();
    return write.call(this, chunk, ...rest);
  };
};
${servingLine ? "watch(process.stderr, 'agenttool: serving ');" : ''}
process.on('exit', take);\n`,
  );
  return file;
}

const MESSAGES = stdioOpening({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'x' } },
});

/**
 * Runs `agenttool <args>` (or, with `app`, `node <args>` in that folder) over stdio
 * through a list and a call, then reads its report.
 */
async function loadsOverStdio(
  args: readonly string[],
  servingLine = false,
  app?: string,
  cacheHome?: string,
): Promise<Loaded> {
  const dir = tempDir();
  const report = join(dir, 'loaded.json');
  // A cache home of its own (unless given): the caches of these starts stay out of the user's.
  const env = {
    NODE_OPTIONS: `--require ${reporter(dir, report, servingLine)}`,
    XDG_CACHE_HOME: cacheHome ?? join(dir, 'cache'),
  };
  const server =
    app === undefined ? startAgenttool(args, { env }) : startNode(args, { env, cwd: app });
  server.stdin.write(MESSAGES);
  await waitForAnswer(server.process.stdout!, 3);
  server.stdin.end();
  const ran = await server.done;
  expect(ran.code).toBe(0);
  return JSON.parse(readFileSync(report, 'utf8')) as Loaded;
}

function waitForAnswer(stdout: NodeJS.ReadableStream, id: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString();
      if (seen.includes(`"id":${id}`)) {
        stdout.off('data', onData);
        resolve();
      }
    };
    stdout.on('data', onData);
  });
}

const packageFiles = (loaded: Loaded): string[] =>
  loaded.files.filter((f) => f.startsWith(PACKAGE)).map((f) => relative(PACKAGE, f));

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

test('a stdio serve loads neither the HTTP side nor node:crypto nor the workspace', async () => {
  const loaded = await loadsOverStdio(['serve', APP]);
  expect(loaded.builtins).not.toContain('http');
  expect(loaded.builtins).not.toContain('crypto');
  // Nor what the command's other parts need: commander's external subcommands spawn, and
  // `init` asks questions on a terminal.
  expect(loaded.builtins).not.toContain('child_process');
  expect(loaded.builtins).not.toContain('readline');
  // Nor node:fs/promises (eight modules of Node's): a record file's or an --out file's
  // writes read node:fs's `promises` when they come.
  expect(loaded.builtins).not.toContain('fs/promises');
  const files = packageFiles(loaded);
  expect(files).toContain('cli.js');
  expect(files).not.toContain('mcp-listener.js');
  expect(files).not.toContain('shell.js');
  expect(files).not.toContain('workspace.js');
});

test("an app's stdio server loads neither the HTTP side nor node:crypto nor node:child_process", async () => {
  // The MCP client's stdio transport spawns servers, and the bundle holds it in the chunk
  // an app's server loads: node:child_process is loaded with the first server spawned.
  const app = appProject('app.cjs', COMMONJS_APP);
  const loaded = await loadsOverStdio(['app.cjs'], false, app);
  expect(loaded.builtins).not.toContain('http');
  expect(loaded.builtins).not.toContain('crypto');
  expect(loaded.builtins).not.toContain('child_process');
  const files = packageFiles(loaded);
  expect(files).toContain('mcp.js');
  expect(files).not.toContain('mcp-listener.js');
});

test('a stdio workspace loads the workspace but neither the HTTP side nor node:crypto', async () => {
  const loaded = await loadsOverStdio(['workspace', tempDir()], true);
  expect(loaded.builtins).not.toContain('http');
  expect(loaded.builtins).not.toContain('crypto');
  // Nor node:perf_hooks (and its nine modules), which the first read of `performance`
  // loads: the app's start times its hooks with process.hrtime.
  expect(loaded.builtins).not.toContain('perf_hooks');
  // Nor node:fs/promises until a file tool or a command's start reads node:fs's `promises`.
  expect(loaded.builtins).not.toContain('fs/promises');
  const files = packageFiles(loaded);
  expect(files).toContain('workspace.js');
  expect(files).not.toContain('mcp-listener.js');
});

test("a workspace whose sandbox's probe passed here before serves before it spawns anything", async () => {
  // The first start probes before it serves (node:child_process, loaded by then: the
  // report sees it); the next, finding the same conditions, serves first and probes with
  // its warm-up.
  const cacheHome = join(tempDir(), 'cache');
  const first = await loadsOverStdio(['workspace', tempDir()], true, undefined, cacheHome);
  expect(first.builtins).toContain('child_process');
  const next = await loadsOverStdio(['workspace', tempDir()], true, undefined, cacheHome);
  expect(next.builtins).not.toContain('child_process');
  expect(packageFiles(next)).toContain('workspace.js');
});

interface HeapSnapshot {
  readonly snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
}

/**
 * The closures named `names` in a heap snapshot, by name: a class exists as a closure
 * only once the module that declares it has run.
 */
function closuresNamed(snapshot: HeapSnapshot, names: readonly string[]): Map<string, number> {
  const fields = snapshot.snapshot.meta.node_fields;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const closure = snapshot.snapshot.meta.node_types[0].indexOf('closure');
  const counts = new Map(names.map((name) => [name, 0]));
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    if (snapshot.nodes[i + typeAt] !== closure) continue;
    const name = snapshot.strings[snapshot.nodes[i + nameAt]!]!;
    const count = counts.get(name);
    if (count !== undefined) counts.set(name, count + 1);
  }
  return counts;
}

/**
 * The SDK's schemas that the bundle builds on first read (scripts/lazy-sdk-schemas.js),
 * and of them those built, by their variables: the types module's (a function
 * `<name>$lazy` each, the chunk's variable `<name>`) or the 2025 era builder's (a function
 * `<name>$eraLazy` each, the builder's variable `<name>$eraBuilt`), built where the
 * variable holds an object, not undefined.
 */
function lazySchemas(
  snapshot: HeapSnapshot,
  of: 'types' | 'era',
): { all: Set<string>; built: Set<string> } {
  const { meta } = snapshot.snapshot;
  const nodeFields = meta.node_fields.length;
  const [typeAt, nameAt, edgeCountAt] = ['type', 'name', 'edge_count'].map((field) =>
    meta.node_fields.indexOf(field),
  ) as [number, number, number];
  const edgeFields = meta.edge_fields.length;
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((field) =>
    meta.edge_fields.indexOf(field),
  ) as [number, number, number];
  const closure = meta.node_types[0].indexOf('closure');
  const object = meta.node_types[0].indexOf('object');
  const context = meta.edge_types[0].indexOf('context');
  const lazyFunction = of === 'types' ? /^[\w$]+Schema\$lazy$/ : /^[\w$]+\$eraLazy$/;
  const variableOf = (name: string): string =>
    of === 'types'
      ? name.slice(0, -'$lazy'.length)
      : `${name.slice(0, -'$eraLazy'.length)}$eraBuilt`;
  const all = new Set<string>();
  for (let i = 0; i < snapshot.nodes.length; i += nodeFields) {
    const name = snapshot.strings[snapshot.nodes[i + nameAt]!]!;
    if (snapshot.nodes[i + typeAt] === closure && lazyFunction.test(name))
      all.add(variableOf(name));
  }
  const built = new Set<string>();
  let edge = 0;
  for (let i = 0; i < snapshot.nodes.length; i += nodeFields) {
    for (let j = 0; j < snapshot.nodes[i + edgeCountAt]!; j++, edge += edgeFields) {
      if (snapshot.edges[edge + edgeTypeAt] !== context) continue;
      const name = snapshot.strings[snapshot.edges[edge + edgeNameAt]!]!;
      const to = snapshot.edges[edge + toAt]!;
      if (all.has(name) && snapshot.nodes[to + typeAt] === object) built.add(name);
    }
  }
  return { all, built };
}

/** The 2026-07-28 era's request `_meta`, which each request carries (no initialize). */
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'host', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026-07-28 host's discover, list and call over stdio. */
const MESSAGES_2026 = [
  { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META_2026 } },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META_2026 } },
  {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'x' }, _meta: META_2026 },
  },
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join('');

const served = new Map<string, Promise<HeapSnapshot>>();

/**
 * A heap snapshot of the built `serve` at its exit, after `messages` over stdio (a host's
 * opening, a list and a call, answered through id 3; taken once for the tests that read it).
 */
function servedSnapshot(messages = MESSAGES): Promise<HeapSnapshot> {
  let taken = served.get(messages);
  if (taken === undefined) {
    taken = (async () => {
      const dir = tempDir();
      const snapshot = join(dir, 'exit.heapsnapshot');
      const preload = join(dir, 'snapshot-at-exit.js');
      writeFileSync(
        preload,
        `process.on('exit', () => require('node:v8').writeHeapSnapshot(${JSON.stringify(snapshot)}));\n`,
      );
      const server = startAgenttool(['serve', APP], {
        env: { NODE_OPTIONS: `--require ${preload}` },
      });
      server.stdin.write(messages);
      await waitForAnswer(server.process.stdout!, 3);
      server.stdin.end();
      expect((await server.done).code).toBe(0);
      return JSON.parse(readFileSync(snapshot, 'utf8')) as HeapSnapshot;
    })();
    served.set(messages, taken);
  }
  return taken;
}

test("a served tool call loads no ajv, neither the SDK validator's nor agenttool's", async () => {
  // The MCP SDK's default JSON Schema validator carries a copy of ajv of its own with
  // three dialects (classes Ajv, Ajv2019, Ajv2020); agenttool's own ajv checks only the
  // schemas its arguments classes do not describe. A decorated tool's call needs neither.
  // Read in a heap snapshot at exit, after a list and a call; the server's own class is
  // there to show that the snapshot's closures are read at all.
  const counts = closuresNamed(await servedSnapshot(), [
    'Ajv',
    'Ajv2019',
    'Ajv2020',
    'McpToolServer',
  ]);
  expect(counts.get('McpToolServer')).toBeGreaterThan(0);
  expect([counts.get('Ajv'), counts.get('Ajv2019'), counts.get('Ajv2020')]).toEqual([0, 0, 0]);
}, 60_000);

test("a served list and call build few of the SDK's type schemas", async () => {
  // The SDK's protocol module defines some 180 (its neutral types and OAuth's) and built
  // them all as it loaded; a server reads few. Measured 2026-12-06: 16 of 183 built (31
  // while the core module derived the elicitation form's keys as it loaded).
  const { all, built } = lazySchemas(await servedSnapshot(), 'types');
  expect(all.size).toBeGreaterThanOrEqual(160);
  expect(built.size).toBeLessThan(all.size / 4);
  // Those read are built: the stdio transport reads each message with this one.
  expect(built.has('JSONRPCMessageSchema')).toBe(true);
  // Never read by a server: the OAuth token response.
  expect(all.has('OAuthTokensSchema')).toBe(true);
  expect(built.has('OAuthTokensSchema')).toBe(false);
  // Nor the elicitation form's, from which the SDK's core module derived, as it loaded,
  // the keys a form may hold (now on the first elicitation with a schema of its own).
  for (const form of ['ElicitRequestFormParamsSchema', 'BooleanSchemaSchema']) {
    expect(all.has(form)).toBe(true);
    expect(built.has(form)).toBe(false);
  }
}, 60_000);

test("a served list and call build the 2025 era's schemas they look up, not the era's whole set", async () => {
  // The SDK builds the era's set (some 140) on its first request, to look up the one it
  // needs. Measured 2026-12-06: 43 of 143 built by an initialize, a list and a call.
  const { all, built } = lazySchemas(await servedSnapshot(), 'era');
  expect(all.size).toBeGreaterThanOrEqual(120);
  expect(built.size).toBeLessThan(all.size / 2);
  expect(built.has('ListToolsRequestSchema$1$eraBuilt')).toBe(true);
  expect(built.has('CallToolRequestSchema$1$eraBuilt')).toBe(true);
  // Never asked for by a server that was not sent one: a sampling request.
  expect(all.has('CreateMessageRequestSchema$1$eraBuilt')).toBe(true);
  expect(built.has('CreateMessageRequestSchema$1$eraBuilt')).toBe(false);
}, 60_000);

test("a served 2026-07-28 discover, list and call build that era's schemas they look up, not its whole set", async () => {
  // Only the era's builder that a request needs runs: the 2025 one's functions are not
  // made at all here. Measured 2026-12-06: 19 of 137 built by a discover and a list.
  const { all, built } = lazySchemas(await servedSnapshot(MESSAGES_2026), 'era');
  expect(all.size).toBeGreaterThanOrEqual(100);
  expect(built.size).toBeLessThan(all.size / 2);
  expect(built.size).toBeGreaterThan(0);
}, 60_000);

test('the SDK validator with its engines loaded on first use validates in each dialect', () => {
  // The bundle's transform of the SDK's ajv provider (scripts/bundle.js), applied to the
  // installed SDK's module and run beside the two modules it imports.
  const sdkDist = join(ROOT, 'node_modules/@modelcontextprotocol/server/dist');
  const provider = readdirSync(sdkDist).find((f) => /^ajvProvider-[\w-]+\.mjs$/.test(f))!;
  const code = readFileSync(join(sdkDist, provider), 'utf8');
  const dir = tempDir();
  for (const [, imported] of code.matchAll(/from "\.\/([\w-]+\.mjs)"/g)) {
    copyFileSync(join(sdkDist, imported!), join(dir, imported!));
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's script, plain CommonJS
  const { withLazyAjvEngines } = require(join(ROOT, 'scripts/bundle.js')) as {
    withLazyAjvEngines(code: string, id: string): string;
  };
  writeFileSync(join(dir, 'provider.mjs'), withLazyAjvEngines(code, provider));
  const check = `
    const provider = await import(${JSON.stringify(join(dir, 'provider.mjs'))});
    const validator = new provider.n();
    const object = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const run = (schema, value) => {
      const result = validator.getValidator(schema)(value);
      return result.valid ? 'valid' : result.errorMessage;
    };
    console.log(JSON.stringify({
      exports: Object.keys(provider).sort(),
      number: [run(object, { n: 1 }), run(object, { n: 'x' })],
      email: run({ type: 'string', format: 'email' }, 'not an address'),
      draft2019: run({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...object }, {}),
      draft07: run({ $schema: 'http://json-schema.org/draft-07/schema#', ...object }, { n: true }),
    }));`;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
    encoding: 'utf8',
  });
  expect(ran.stderr).toBe('');
  expect(JSON.parse(ran.stdout)).toEqual({
    exports: ['n', 'r'],
    number: ['valid', 'data/n must be number'],
    email: 'data must match format "email"',
    draft2019: "data must have required property 'n'",
    draft07: 'data/n must be number',
  });
});

test('serving HTTP loads node:http and the listener (the report sees them)', async () => {
  const dir = tempDir();
  const report = join(dir, 'loaded.json');
  const server = startAgenttool(['serve', APP, '--http', '127.0.0.1:0'], {
    env: { NODE_OPTIONS: `--require ${reporter(dir, report)}` },
  });
  await server.waitForStderr(/over Streamable HTTP at http:\/\/127\.0\.0\.1:\d+\/mcp\n/);
  server.process.kill('SIGINT');
  expect((await server.done).code).toBe(0);
  const loaded = JSON.parse(readFileSync(report, 'utf8')) as Loaded;
  expect(loaded.builtins).toContain('http');
  expect(packageFiles(loaded)).toContain('mcp-listener.js');
});

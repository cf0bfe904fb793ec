// The bundle's rewrite of zod's schemas module (scripts/bundle.js, withLaterZodFastpass):
// an object schema compiles its parser of its own (`new Function`, zod's "fastpass") on
// its ninth synchronous parse instead of its first, and every parse, before and after,
// gives what the installed zod gives. Run on a copy of the installed zod's ES modules with
// only that file rewritten, beside the installed zod itself, in a child process.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killChildren, ROOT, tempDir } from '../cli/helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's script, plain CommonJS
const { withLaterZodFastpass, ZOD_FASTPASS_AFTER } = require(join(ROOT, 'scripts/bundle.js')) as {
  withLaterZodFastpass(code: string, id: string): string;
  ZOD_FASTPASS_AFTER: number;
};

const ZOD_V4 = join(ROOT, 'node_modules/zod/v4');

/** A copy of the installed zod's v4 modules with the bundle's rewrite of its schemas module. */
function rewrittenZod(): string {
  const dir = tempDir();
  cpSync(ZOD_V4, join(dir, 'v4'), {
    recursive: true,
    filter: (source) => !/\.(d\.ts|d\.cts|cjs)$/.test(source),
  });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const schemas = join(dir, 'v4/core/schemas.js');
  writeFileSync(schemas, withLaterZodFastpass(readFileSync(schemas, 'utf8'), schemas));
  return join(dir, 'v4/classic/index.js');
}

/**
 * Parses the same values with `zod` (a module path), PARSES times each, counting the
 * parsers compiled (`new Function` with a body) before each round.
 */
const CHILD = `
let compiled = 0;
const RealFunction = globalThis.Function;
globalThis.Function = new Proxy(RealFunction, {
  construct(target, args) {
    if (args.length > 1) compiled++;
    return Reflect.construct(target, args);
  },
});
const { z } = await import(process.argv[1]);
const message = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number().int()]),
  method: z.string(),
  params: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }).optional(),
});
const strict = z.strictObject({ n: z.number(), tags: z.array(z.string()).default([]) });
const loose = z.looseObject({ kind: z.enum(['a', 'b']) });
const rest = z
  .object({ a: z.string().optional(), b: z.number().default(3), c: z.string().nullable().optional() })
  .catchall(z.number());
const values = [
  [message, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } }, extra: true }],
  [message, { jsonrpc: '1.0', id: 1.5, method: 7 }],
  [strict, { n: 1 }],
  [strict, { n: 1, other: 2 }],
  [loose, { kind: 'b', more: [1] }],
  [loose, { kind: 'c' }],
  [rest, { a: undefined, more: 1 }],
  [rest, { c: null, b: 'x', more: 'no', last: 2 }],
];
// Each value's own keys in order, undefined kept apart from absent (JSON would drop both).
const described = (value) =>
  value === undefined
    ? { undefined: true }
    : Array.isArray(value)
      ? value.map(described)
      : typeof value === 'object' && value !== null
        ? Object.entries(value).map(([key, inner]) => [key, described(inner)])
        : value;
const rounds = [];
for (let i = 0; i < Number(process.argv[2]); i++) {
  const before = compiled;
  const results = values.map(([schema, value]) => {
    const result = schema.safeParse(value);
    return result.success
      ? { data: described(result.data) }
      : { issues: described(result.error.issues) };
  });
  rounds.push({ compiledBefore: before, results });
}
console.log(JSON.stringify({ rounds, compiled }));
`;

interface Round {
  readonly compiledBefore: number;
  readonly results: readonly unknown[];
}

function parsed(zod: string, parses: number): { rounds: Round[]; compiled: number } {
  const ran = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', CHILD, zod, String(parses)],
    { encoding: 'utf8' },
  );
  expect(ran.stderr).toBe('');
  return JSON.parse(ran.stdout) as { rounds: Round[]; compiled: number };
}

test("an object schema compiles zod's fastpass on its ninth parse, every result the installed zod's", () => {
  const parses = ZOD_FASTPASS_AFTER + 4;
  const installed = parsed(join(ZOD_V4, 'classic/index.js'), parses);
  const rewritten = parsed(rewrittenZod(), parses);
  // The installed zod compiles its parsers on the first parse (the three objects, and the
  // message's params, reached by the valid message only).
  expect(installed.rounds[1]!.compiledBefore).toBe(installed.compiled);
  expect(installed.compiled).toBeGreaterThanOrEqual(4);
  // The rewritten one parses eight times without (each object twice a round: 2i parses
  // before round i), then compiles as many.
  expect(rewritten.rounds.map((round) => round.compiledBefore > 0)).toEqual(
    Array.from({ length: parses }, (_, i) => 2 * i > ZOD_FASTPASS_AFTER),
  );
  expect(rewritten.compiled).toBe(installed.compiled);
  expect(rewritten.rounds.map((round) => round.results)).toEqual(
    installed.rounds.map((round) => round.results),
  );
  // The values (their keys in order, undefined apart from absent) and the issues are
  // those of a parse that succeeded and one that failed.
  const issueAt = (path: string[]) => ({
    issues: expect.arrayContaining([expect.arrayContaining([['path', path]])]),
  });
  expect(installed.rounds[0]!.results).toEqual([
    {
      data: [
        ['jsonrpc', '2.0'],
        ['id', 1],
        ['method', 'tools/call'],
        [
          'params',
          [
            ['name', 'x'],
            ['arguments', [['a', 1]]],
          ],
        ],
      ],
    },
    issueAt(['jsonrpc']),
    {
      data: [
        ['n', 1],
        ['tags', []],
      ],
    },
    {
      issues: [
        expect.arrayContaining([
          ['code', 'unrecognized_keys'],
          ['keys', ['other']],
        ]),
      ],
    },
    {
      data: [
        ['kind', 'b'],
        ['more', [1]],
      ],
    },
    issueAt(['kind']),
    {
      data: [
        ['a', { undefined: true }],
        ['b', 3],
        ['more', 1],
      ],
    },
    issueAt(['b']),
  ]);
});

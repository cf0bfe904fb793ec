// The built package's text (scripts/bundle.js): every JavaScript file is ASCII, since
// Node reads a module with any other character as two-byte text, which every start then
// decodes and hands V8 at twice the cost; the build refuses a file that is not, naming
// where. The bundle's CommonJS modules' functions are out of parentheses, which V8
// would compile as their chunk loads (withLazyCommonJs). And a chunk's exports that
// cannot change are plain properties, not getters (withPlainExports).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFunction } from 'node:vm';
import { ensureBuilt, ROOT } from '../cli/helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's script, plain CommonJS
const { nonAscii } = require(join(ROOT, 'scripts/bundle.js')) as {
  nonAscii(text: string): string | undefined;
};

/** One of the bundle's rewrites on `code`, in Node (it loads rolldown's parser, an ES module). */
function rewritten(rewrite: 'withLazyCommonJs' | 'withPlainExports', code: string): string {
  const run = spawnSync(
    process.execPath,
    [
      '-e',
      `process.stdout.write(require('./scripts/bundle.js').${rewrite}(require('node:fs').readFileSync(0, 'utf8')))`,
    ],
    { cwd: ROOT, input: code, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

const withLazyCommonJs = (code: string): string => rewritten('withLazyCommonJs', code);

const PACKAGE = join(ROOT, 'dist/pkg');

beforeAll(() => ensureBuilt(), 300_000);

test('every JavaScript file the bundle wrote is ASCII', () => {
  const files = readdirSync(PACKAGE, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.js'),
  );
  expect(files).toContain('cli.js');
  expect(files.filter((file) => file.startsWith('chunks/')).length).toBeGreaterThan(3);
  const found = files.flatMap((file) => {
    const problem = nonAscii(readFileSync(join(PACKAGE, file), 'utf8'));
    return problem === undefined ? [] : [`${file}:${problem}`];
  });
  expect(found).toEqual([]);
});

test('a character outside ASCII is named with its line, column and code point', () => {
  expect(nonAscii('const a = 1;\n// ok\n')).toBeUndefined();
  expect(nonAscii('const a = 1;\nconst b = "a — b";\n')).toBe('2:14: U+2014 is not ASCII');
  expect(nonAscii('x😀')).toBe('1:2: U+1F600 is not ASCII');
});

test('a CommonJS module of the bundle is compiled when first required, not as its chunk loads', () => {
  const chunk = [
    'var require_a = /* @__PURE__ */ __commonJSMin(((exports) => {',
    '\texports.a = (() => 1)();',
    '}));',
    'var require_b = /* @__PURE__ */ runtime.__commonJSMin(((exports, module) => {',
    '\tmodule.exports = "__commonJSMin(((";',
    '}));',
    'var init_c = __esmMin((() => {',
    '\tc = 1;',
    '}));',
  ].join('\n');
  expect(withLazyCommonJs(chunk)).toBe(
    [
      'var require_a = /* @__PURE__ */ __commonJSMin((exports) => {',
      '\texports.a = (() => 1)();',
      '});',
      'var require_b = /* @__PURE__ */ runtime.__commonJSMin((exports, module) => {',
      '\tmodule.exports = "__commonJSMin(((";',
      '});',
      // An ES module's function runs as the chunk loads: left for V8 to compile at once.
      'var init_c = __esmMin((() => {',
      '\tc = 1;',
      '}));',
    ].join('\n'),
  );
  // Calls without parentheses of the function's own are left as they are; a helper
  // renamed in a chunk that has two is unwrapped too, at the right place after text
  // outside ASCII (a kept comment, a tagged template's raw text: rolldown leaves both).
  const other = [
    '/*! (c) \u00e9t\u00e9 \u2014 \u{1F600} */',
    'const raw = String.raw`\u2014\u{1F600}`;',
    'var require_c = __commonJSMin((exports) => {});',
    'var require_d = __commonJSMin(exports => {});',
    'var require_e = __commonJSMin$1(((exports) => {',
    '\texports.e = 1;',
    '}));',
  ].join('\n');
  expect(withLazyCommonJs(other)).toBe(
    other
      .replace('__commonJSMin$1(((exports) => {', '__commonJSMin$1((exports) => {')
      .replace(/}\)\);$/, '});'),
  );
  // Written another way, the build stops rather than keep the function eager unnoticed.
  expect(() =>
    withLazyCommonJs('var require_f = __commonJSMin(/* f */ ((exports) => {}));'),
  ).toThrow("a CommonJS module's function written as __commonJSMin(/* f */ (");
  const built = readdirSync(join(PACKAGE, 'chunks'))
    .map((file) => readFileSync(join(PACKAGE, 'chunks', file), 'utf8'))
    .join('\n');
  expect(built).toContain('__commonJSMin((exports');
  expect(built).not.toMatch(/__commonJSMin(?:\$\d+)?\(\(\(/);
});

const getter = (name: string, local: string): string =>
  [
    `Object.defineProperty(exports, "${name}", {`,
    '\tenumerable: true,',
    '\tget: function() {',
    `\t\treturn ${local};`,
    '\t}',
    '});',
  ].join('\n');

test("a chunk's export of a binding that never changes is a plain property, not a getter", () => {
  const chunk = [
    'const require_other = require("./other.js");',
    'function run() { return 1; }',
    'const limit = 3;',
    'var Failure = class extends Error {};',
    'var lazy;',
    'var init_lazy = __esmMin(() => { lazy = 2; });',
    'let decorated = class {};',
    'decorated = __decorate([], decorated);',
    'function later() { let renamed = 1; renamed = 2; return renamed; }',
    'var renamed = 5;',
    getter('run', 'run'),
    getter('limit', 'limit'),
    getter('Failure', 'Failure'),
    getter('lazy', 'lazy'),
    getter('decorated', 'decorated'),
    getter('renamed', 'renamed'),
    getter('forwarded', 'require_other'),
    getter('early', 'declaredAfter'),
    'const declaredAfter = 4;',
  ].join('\n');
  const out = rewritten('withPlainExports', chunk);
  expect(out).toContain('exports.run = run;');
  expect(out).toContain('exports.limit = limit;');
  expect(out).toContain('exports.Failure = Failure;');
  // A live binding stays a getter: assigned when its lazy module runs, or decorated.
  expect(out).toContain(getter('lazy', 'lazy'));
  expect(out).toContain(getter('decorated', 'decorated'));
  // A name assigned in any scope is kept as a getter (the rewrite does not resolve scopes).
  expect(out).toContain(getter('renamed', 'renamed'));
  expect(out).toContain('exports.forwarded = require_other;');
  // Read before its declaration it would throw: kept.
  expect(out).toContain(getter('early', 'declaredAfter'));
  // The rewritten chunk runs as CommonJS and exports what it did.
  const module = { exports: {} as Record<string, unknown> };
  compileFunction(out, ['exports', 'require', '__esmMin', '__decorate'])(
    module.exports,
    () => ({}),
    (fn: () => void) => fn,
    (_: unknown, target: unknown) => target,
  );
  expect(Object.keys(module.exports).sort()).toEqual(
    ['Failure', 'decorated', 'early', 'forwarded', 'lazy', 'limit', 'renamed', 'run'].sort(),
  );
  expect(Object.getOwnPropertyDescriptor(module.exports, 'run')).toMatchObject({
    enumerable: true,
    writable: true,
  });
});

test("the built chunks' functions are read as plain properties, as another chunk reads them", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built package, CommonJS
  require(join(PACKAGE, 'index.js'));
  const chunks = Object.keys(require.cache).filter((file) =>
    file.startsWith(join(PACKAGE, 'chunks')),
  );
  expect(chunks.length).toBeGreaterThan(2);
  const getters = chunks.flatMap((file) => {
    const exported = require.cache[file]!.exports as object;
    return Object.entries(Object.getOwnPropertyDescriptors(exported))
      .filter(([, descriptor]) => descriptor.get !== undefined)
      .map(([name]) => name);
  });
  const plain = chunks.flatMap((file) =>
    Object.values(require.cache[file]!.exports as Record<string, unknown>).filter(
      (value) => typeof value === 'function',
    ),
  );
  expect(plain.length).toBeGreaterThan(100);
  // The getters left are the bundled SDK's lazily made exports (its schemas, its classes
  // made on first use), bound to names its modules assign when they first run.
  expect(getters).not.toContain('currentContext');
  expect(getters).not.toContain('runWithContext');
  expect(getters.length).toBeLessThan(30);
});

/** The package a path names (after its last node_modules), or undefined. */
function packageNamed(file: string): string | undefined {
  const at = file.lastIndexOf('node_modules/');
  if (at === -1) return undefined;
  const parts = file.slice(at + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** The words each license's text holds, by the license's SPDX name. */
const TERMS: Record<string, string> = {
  MIT: 'Permission is hereby granted',
  ISC: 'Permission to use, copy, modify, and/or distribute',
  '0BSD': 'Permission to use, copy, modify, and/or distribute',
  'Apache-2.0': 'Apache License',
  'BSD-2-Clause': 'Redistribution and use in source and binary forms',
  'BSD-3-Clause': 'Redistribution and use in source and binary forms',
};

test('the package carries the license of every package whose code the bundle holds', () => {
  const notices = readFileSync(join(PACKAGE, 'third-party-licenses.txt'), 'utf8');
  const entries = [
    ...notices.matchAll(/^== ((?:@[^/\s]+\/)?[^@\s]+)@(\S+) \((.+?)\)(.*) ==$/gm),
  ].map(([, name, version, license, rest]) => ({
    name: name!,
    version: version!,
    license: license!,
    inside: /, inside (\S+?)(?:,|$)/.exec(rest!)?.[1],
  }));
  // Every package a chunk has a module of, by the path rolldown writes above each module,
  // at the version installed.
  const files = readdirSync(PACKAGE, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.js'),
  );
  const modules = files.flatMap((file) =>
    [...readFileSync(join(PACKAGE, file), 'utf8').matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)].map(
      ([, module]) => module!,
    ),
  );
  const direct = new Set(modules.flatMap((module) => packageNamed(module) ?? []));
  expect(direct).toContain('zod');
  expect(direct).toContain('@modelcontextprotocol/server');
  const missing = [...direct].filter((name) => {
    const { version } = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { version: string };
    return !entries.some((entry) => entry.name === name && entry.version === version);
  });
  expect(missing).toEqual([]);
  // And what the SDK's files bundled here carry inside them from their own build (their
  // bundler's regions name each package), as inside the SDK.
  const sdkFiles = modules.filter((module) =>
    module.includes('@modelcontextprotocol/server/dist/'),
  );
  expect(sdkFiles.length).toBeGreaterThan(0);
  const embedded = new Set(
    sdkFiles.flatMap((module) =>
      [...readFileSync(join(ROOT, module), 'utf8').matchAll(/^\/\/#region (\S+)/gm)].flatMap(
        ([, region]) => packageNamed(region!) ?? [],
      ),
    ),
  );
  expect(embedded).toContain('ajv');
  const notInside = [...embedded].filter(
    (name) =>
      !entries.some(
        (entry) => entry.name === name && (entry.inside !== undefined || direct.has(name)),
      ),
  );
  expect(notInside).toEqual([]);
  expect(entries.find((entry) => entry.name === 'ajv' && entry.inside !== undefined)?.inside).toBe(
    '@modelcontextprotocol/server',
  );
  // Each with its text: the words of its license.
  const sections = notices.split(/^== /m).slice(1);
  expect(sections).toHaveLength(entries.length);
  const withoutTerms = sections.flatMap((section, i) => {
    const words = TERMS[entries[i]!.license];
    return words !== undefined && section.includes(words)
      ? []
      : [`${entries[i]!.name} (${entries[i]!.license})`];
  });
  expect(withoutTerms).toEqual([]);
});

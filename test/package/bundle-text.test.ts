// The built package's text (scripts/bundle.js): every JavaScript file is ASCII, since
// Node reads a module with any other character as two-byte text, which every start then
// decodes and hands V8 at twice the cost; the build refuses a file that is not, naming
// where. And the bundle's CommonJS modules' functions are out of parentheses, which V8
// would compile as their chunk loads (withLazyCommonJs).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's script, plain CommonJS
const { nonAscii } = require(join(ROOT, 'scripts/bundle.js')) as {
  nonAscii(text: string): string | undefined;
};

/** The bundle's withLazyCommonJs on `code`, in Node (it loads rolldown's parser, an ES module). */
function withLazyCommonJs(code: string): string {
  const run = spawnSync(
    process.execPath,
    [
      '-e',
      "process.stdout.write(require('./scripts/bundle.js').withLazyCommonJs(require('node:fs').readFileSync(0, 'utf8')))",
    ],
    { cwd: ROOT, input: code, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

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

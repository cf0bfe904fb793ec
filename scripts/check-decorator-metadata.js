// Type-checks the project (tsconfig.json, as `tsc --noEmit` does) and holds the decorator
// metadata that Jest's transpile-only mode emits (ts-jest with
// isolatedModules: ts.transpileModule, one file at a time) to what tsc emits with the
// whole program, for every file tsconfig.json compiles. The tests run on the former;
// the package is built with the latter. Exits 1 when a value would differ at run time.
//
// The texts differ where a single file cannot tell what a name is: for a type that
// names something imported or global, transpileModule emits a guard,
// `typeof (_a = typeof X !== "undefined" && X) === "function" ? _a : Object`, which is X
// when X is a function at run time and Object otherwise, where tsc emits X for a class
// and Object for a name that is only a type. Any other difference (an imported enum,
// which tsc writes as Number or String and the guard as Object) is reported.
//
// One program does both: emitting decorator metadata runs the type checker anyway, so
// `npm run check` pays for one whole-program check, not two. Type errors are printed as
// tsc prints them, and end the run before the metadata is compared.
'use strict';
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const parsed = ts.getParsedCommandLineOfConfigFile(
  path.join(root, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  },
);
const options = {
  ...parsed.options,
  noEmit: false,
  declaration: false,
  sourceMap: false,
  inlineSourceMap: false,
};

const program = ts.createProgram(parsed.fileNames, options);
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const host = {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => root,
    getNewLine: () => ts.sys.newLine,
  };
  const format = process.stdout.isTTY
    ? ts.formatDiagnosticsWithColorAndContext
    : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, host));
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (errors > 0) {
    console.error(`type-check: ${errors} error${errors === 1 ? '' : 's'}`);
    process.exit(1);
  }
}
const emitted = new Map();
program.emit(undefined, (fileName, text, _bom, _onError, sources) => {
  if (fileName.endsWith('.js') && sources?.[0] !== undefined)
    emitted.set(sources[0].fileName, text);
});

/** Every `__metadata("design:…", value)` of a file: its kind and the value's text. */
function metadataOf(text) {
  const sites = [];
  const opening = /__metadata\("design:(type|paramtypes|returntype)", /g;
  for (let match = opening.exec(text); match !== null; match = opening.exec(text)) {
    let i = opening.lastIndex;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') {
        if (depth === 0) break;
        depth--;
      }
    }
    const value = text.slice(opening.lastIndex, i).replace(/\s+/g, ' ');
    sites.push({ kind: match[1], values: match[1] === 'paramtypes' ? items(value) : [value] });
  }
  return sites;
}

/** The items of an array literal's text, split at its top-level commas. */
function items(text) {
  const inner = text.replace(/^\[/, '').replace(/\]$/, '');
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (inner.trim() !== '') out.push(inner.slice(start).trim());
  return out;
}

const GUARD =
  /^typeof \(_\w+ = typeof ([\w.$]+) !== "undefined" && \1\) === "function" \? _\w+ : Object$/;

/** Whether two emitted values are the same at run time. */
function sameValue(full, isolated) {
  if (full === isolated) return true;
  const guard = GUARD.exec(isolated);
  if (guard === null) return false;
  const name = guard[1];
  // tsc saw a class: the guard yields the same function.
  if (full === name) return true;
  // tsc saw a name that is only a type: the guard yields Object, unless a global
  // function of that name exists at run time.
  return full === 'Object' && !name.includes('.') && typeof globalThis[name] !== 'function';
}

let sites = 0;
const differences = [];
for (const fileName of parsed.fileNames) {
  const full = emitted.get(fileName);
  if (full === undefined) continue;
  const isolated = ts.transpileModule(ts.sys.readFile(fileName), {
    compilerOptions: { ...options, isolatedModules: true },
    fileName,
  }).outputText;
  const expected = metadataOf(full);
  const actual = metadataOf(isolated);
  sites += expected.length;
  const where = path.relative(root, fileName);
  if (expected.length !== actual.length) {
    differences.push(`${where}: ${expected.length} metadata sites, transpiled ${actual.length}`);
    continue;
  }
  expected.forEach((site, k) => {
    const other = actual[k];
    const same =
      site.kind === other.kind &&
      site.values.length === other.values.length &&
      site.values.every((value, v) => sameValue(value, other.values[v]));
    if (!same) {
      differences.push(
        `${where}: design:${site.kind} ${site.values.join(', ')} | transpiled ${other.values.join(', ')}`,
      );
    }
  });
}

if (differences.length > 0) {
  console.error(
    `decorator metadata: ${differences.length} of ${sites} differ between tsc and Jest's transpile-only mode:`,
  );
  for (const difference of differences) console.error(`  ${difference}`);
  console.error('Declare the type where it is used, or give @Param an explicit type.');
  process.exit(1);
}
console.log(
  `type-check: no errors; decorator metadata: ${sites} sites in ${emitted.size} files, the same under transpile-only`,
);

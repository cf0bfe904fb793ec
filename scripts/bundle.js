// Bundles the package's JavaScript into dist/pkg/: one file per public entry and the
// command, sharing chunks, with the MCP SDK (and its zod) and the small dependencies
// inside. A fresh process then reads a few files instead of hundreds, tree-shaken of what
// agenttool never uses (zod's 40 locales among them), and Node's compile cache can keep
// them. tsc still writes dist/src (the declarations the package ships, and the JavaScript
// the repository's own scripts and tests run); this script writes only dist/pkg.
//
// Each source is transpiled alone by TypeScript (ts.transpileModule, the compiler the
// tests run on; scripts/check-decorator-metadata.js holds its decorator metadata to
// tsc's), to ES modules so that rolldown can tree-shake, and the output is CommonJS.
//
// Kept outside, loaded from node_modules: Node's built-ins, the optional peers (a
// framework an app does not use is never loaded), reflect-metadata and tsyringe (their
// registries must be the one copy the app's own decorators write to), and what only some
// starts need: the SDK's client (an app that serves tools never loads it; one that
// connects loads it as before), jose (OAuth), ioredis (scale-out), the sandbox runtime.
//
// Five parts of the bundled dependencies are rewritten as they are bundled, each found as
// written or the build stops: zod's failed parse result (withSharedFailure), zod's object
// parsers compiled once a schema is parsed again and again (withLaterZodFastpass), the
// SDK's ajv loaded on first use (withLazyAjvEngines), its type schemas built on first read
// (scripts/lazy-sdk-schemas.js), and commander's node:child_process required on use
// (withLazyChildProcess).
//
// The command's bin is a small launcher written beside the bundle (launcher()): it turns on
// Node's compile cache before the bundle loads, so that a start after the first reads
// compiled code instead of parsing 2 MB of JavaScript again.
//
// Usage: node scripts/bundle.js
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { withLazySdkSchemas } = require('./lazy-sdk-schemas');
const { replaceEachOnce } = require('./replace-once');

const ROOT = path.join(__dirname, '..');
const SRC = path.join(ROOT, 'src');
const OUT = path.join(ROOT, 'dist', 'pkg');

/** Output name (without .js) → source, for each public entry and the command. */
const ENTRIES = {
  index: 'index.ts',
  mcp: 'mcp/index.ts',
  di: 'di/index.ts',
  shell: 'shell/index.ts',
  workspace: 'workspace/index.ts',
  testing: 'testing/index.ts',
  // agenttool/nest is `nest.js`, written below: its peers are checked before the entry's
  // chunks load them (a bundle requires what it leaves outside before anything runs).
  'nest-peers': 'nest/peer.ts',
  'nest-entry': 'nest/index.ts',
  'ai-sdk': 'ai-sdk/index.ts',
  'openai-agents': 'openai-agents/index.ts',
  cli: 'cli/main.ts',
  // Not a public entry: the HTTP listener (and node:http under it), which McpToolServer
  // requires only when it serves HTTP.
  'mcp-listener': 'mcp/server/listener/index.ts',
  // Not a public entry: the command's one dynamic import() (of module files), apart so
  // that cli.js has none and gets the code cache (see code-cache.js).
  'import-file': 'cli/import-file.ts',
  // Not a public entry: the repository guard's check after a kill outright, which a
  // process's janitor runs with node (src/shell/janitor.ts finds it here).
  'guard-after-exit': 'shell/guard-after-exit.ts',
};

/**
 * A `require()` in our sources of another entry's source is a load on demand (the
 * command's workspace, the server's HTTP side). Left to the bundler it would be inlined
 * into the requiring chunk, whose external requires (node:http, node:child_process,
 * node:crypto) are hoisted to its top and so paid by every start. It stays a require of
 * the entry's output file instead, written relative to the chunk it lands in.
 */
const ON_DEMAND = 'agenttool-on-demand:';
const ENTRY_OF_SOURCE = new Map(
  Object.entries(ENTRIES).map(([name, source]) => [path.join(SRC, source), name]),
);

/** The entry named by `source` required from `importer`, if it is one of ours. */
function onDemandEntry(source, importer) {
  const own = SELF[source];
  if (own !== undefined) return ENTRY_OF_SOURCE.get(path.join(SRC, own));
  if (!source.startsWith('.') || importer === undefined) return undefined;
  const base = path.resolve(path.dirname(importer), source);
  return ENTRY_OF_SOURCE.get(`${base}.ts`) ?? ENTRY_OF_SOURCE.get(path.join(base, 'index.ts'));
}

/** The package's own specifiers (tsconfig's `paths`), resolved to their sources. */
const SELF = {
  agenttool: 'index.ts',
  ...Object.fromEntries(
    Object.entries(ENTRIES)
      .filter(
        ([name]) =>
          ![
            'index',
            'cli',
            'nest-peers',
            'nest-entry',
            'mcp-listener',
            'import-file',
            'guard-after-exit',
          ].includes(name),
      )
      .map(([name, source]) => [`agenttool/${name}`, source]),
  ),
  'agenttool/nest': ENTRIES['nest-entry'],
};

const EXTERNAL = [
  /^node:/,
  /^(fs|path|os|crypto|child_process|events|stream|util|net|http|https|url|zlib|tty|readline|worker_threads|async_hooks|buffer|string_decoder|querystring|assert|dns|perf_hooks|process|timers|v8|vm)(\/.*)?$/,
  /^reflect-metadata(\/.*)?$/,
  /^tsyringe(\/.*)?$/,
  /^ioredis(\/.*)?$/,
  /^jose(\/.*)?$/,
  // Loaded only when a remote tool declares an output schema with patterns: left out of
  // the chunk every start parses.
  /^re2js(\/.*)?$/,
  /^@modelcontextprotocol\/client(\/.*)?$/,
  /^@anthropic-ai\/sandbox-runtime(\/.*)?$/,
  /^@nestjs\//,
  /^@openai\/agents(\/.*)?$/,
  /^@opentelemetry\//,
  /^ai(\/.*)?$/,
  /^class-validator(\/.*)?$/,
  /^class-transformer(\/.*)?$/,
  /^rxjs(\/.*)?$/,
];

function compilerOptions() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  return {
    ...parsed.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    inlineSourceMap: false,
    noEmit: false,
    isolatedModules: true,
  };
}

/**
 * zod's failed `safeParse` result, as zod 4.6 writes it: an object literal with its own
 * getter and setter for `error`, closures over the parse's issues and context. V8 gives
 * each such object a hidden class of its own, made in the old generation, which holds
 * those closures: whatever the parse failed on (a whole request or answer) then outlives
 * every young collection until a full one. The SDK fails several of them on every
 * request (it tells a message's kind by trying schemas: four a 2026-07-28 call), so each
 * served request left some 5 KB for the old generation, and young collections took
 * about twice as long. The bundle's zod (the SDK's, inside; an app's own zod is not
 * touched) gets the alternative zod's own comment names: one shared accessor, the state
 * in a property that is not enumerable. The result reads the same (`success`, `error`
 * own and enumerable, the error built on first read, a replacement taking its place).
 */
const ZOD_PARSE = `${path.sep}node_modules${path.sep}zod${path.sep}v4${path.sep}core${path.sep}parse.js`;
const ZOD_FAILURE = `function failure(Err, issues, ctx) {
    let error;
    return {
        success: false,
        get error() {
            if (!error) {
                error = new Err(issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())));
                // finalizeIssue drops \`input\`, so the built error holds nothing; keeping the raw issues past this point pins the parsed value for the life of the result
                issues = undefined;
                ctx = undefined;
            }
            return error;
        },
        set error(e) {
            error = e;
            // a replacement makes the getter's branch unreachable, so the captures have to go here too
            issues = undefined;
            ctx = undefined;
        },
    };
}`;
const SHARED_FAILURE = `const FAILURE_STATE = Symbol("agenttool.zodFailure");
const FAILURE_ERROR = {
    enumerable: true,
    configurable: true,
    get() {
        const state = this[FAILURE_STATE];
        if (state.issues !== undefined) {
            state.error = new state.Err(state.issues.map((iss) => util.finalizeIssue(iss, state.ctx, core.config())));
            state.issues = undefined;
            state.ctx = undefined;
        }
        return state.error;
    },
    set(error) {
        const state = this[FAILURE_STATE];
        state.error = error;
        state.issues = undefined;
        state.ctx = undefined;
    },
};
function failure(Err, issues, ctx) {
    const result = { success: false };
    Object.defineProperty(result, FAILURE_STATE, { value: { Err, issues, ctx, error: undefined } });
    Object.defineProperty(result, "error", FAILURE_ERROR);
    return result;
}`;

/** zod's parse module with {@link SHARED_FAILURE}; a zod whose text differs stops the build. */
function withSharedFailure(code, id) {
  return replaceEachOnce(code, [[ZOD_FAILURE, SHARED_FAILURE]], {
    where: id,
    what: "zod's parse module",
    lookAt: "scripts/bundle.js's ZOD_FAILURE",
  });
}

/**
 * The SDK's default JSON Schema validator (its own copy of ajv and ajv-formats, three
 * dialects) is built from a module that evaluates all of ajv as it loads: 3-4 ms of every
 * start, for a validator agenttool's server never asks for (its arguments are checked by
 * its own ajv, on first use; the SDK's would check an elicitation answer, which our
 * calls read themselves). The engines now load with the first default instance made.
 * The module's unused `Ajv` export goes, so that a later import of it stops the build
 * rather than reading an engine not yet loaded. Every text replaced must be found once,
 * as written here: an SDK that writes it otherwise stops the build.
 */
const AJV_PROVIDER = /\/@modelcontextprotocol\/(server|client)\/dist\/ajvProvider-[\w-]+\.mjs$/;
const LAZY_AJV_ENGINES = [
  [
    `var import_ajv = require_ajv();
var import__2019 = require__2019();
var import__2020 = require__2020();
var import_dist = /* @__PURE__ */ __toESM(require_dist(), 1);`,
    `var import_ajv, import__2019, import__2020, import_dist;
function loadAjvEngines() {
	if (import_dist !== undefined) return;
	import_ajv = require_ajv();
	import__2019 = require__2019();
	import__2020 = require__2020();
	import_dist = /* @__PURE__ */ __toESM(require_dist(), 1);
}`,
  ],
  [
    'const addFormats = import_dist.default;',
    'function addFormats(...args) {\n\tloadAjvEngines();\n\treturn import_dist.default(...args);\n}',
  ],
  [
    'createDefaultAjvInstance(import__2020.Ajv2020)',
    'createDefaultAjvInstance((loadAjvEngines(), import__2020.Ajv2020))',
  ],
  [
    'createDefaultAjvInstance(import__2019.Ajv2019)',
    'createDefaultAjvInstance((loadAjvEngines(), import__2019.Ajv2019))',
  ],
  [
    'createDefaultAjvInstance(import_ajv.Ajv)',
    'createDefaultAjvInstance((loadAjvEngines(), import_ajv.Ajv))',
  ],
  ['const Ajv = import_ajv.Ajv;\n', ''],
  [
    'export { AjvJsonSchemaValidator as n, addFormats as r, Ajv as t };',
    'export { AjvJsonSchemaValidator as n, addFormats as r };',
  ],
];

/** The SDK's ajv provider with its engines loaded on first use ({@link LAZY_AJV_ENGINES}). */
function withLazyAjvEngines(code, id) {
  return replaceEachOnce(code, LAZY_AJV_ENGINES, {
    where: id,
    what: "the SDK's ajv provider",
    lookAt: "scripts/bundle.js's LAZY_AJV_ENGINES",
  });
}

/**
 * zod compiles a parser of its own for each object schema (`new Function`, its "fastpass")
 * the first time the schema parses: code no code cache keeps, compiled again by every
 * start, for schemas a start parses once or a few times (the SDK's message envelope,
 * `initialize`, the first list): 3.5 ms of `serve`'s start to its first `tools/list`
 * (docs/benchmarks.md). The bundle's zod (the SDK's; an app's own zod is not touched) now
 * compiles it on a schema's ninth synchronous parse, once the schema has shown it is
 * parsed again and again; the first eight take zod's own path without it, the one an
 * async parse or `jitless` takes, with the same result. Exact texts, each found once.
 */
const ZOD_SCHEMAS = `${path.sep}node_modules${path.sep}zod${path.sep}v4${path.sep}core${path.sep}schemas.js`;
const ZOD_FASTPASS_AFTER = 8;
const ZOD_FASTPASS_LATER = [
  [
    '    let fastpass;\n    const isObject = util.isObject;',
    '    let fastpass;\n    let parsedWithoutFastpass = 0;\n    const isObject = util.isObject;',
  ],
  [
    '        if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true) {',
    `        if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true && (fastpass !== undefined || ++parsedWithoutFastpass > ${ZOD_FASTPASS_AFTER})) {`,
  ],
];

/** zod's schemas module with an object's fastpass compiled later ({@link ZOD_FASTPASS_LATER}). */
function withLaterZodFastpass(code, id) {
  return replaceEachOnce(code, ZOD_FASTPASS_LATER, {
    where: id,
    what: "zod's schemas module",
    lookAt: "scripts/bundle.js's ZOD_FASTPASS_LATER",
  });
}

/** The chunks whose SDK schemas were made lazy (scripts/lazy-sdk-schemas.js): one, each build. */
const lazySdkChunks = [];

/**
 * commander requires node:child_process as it loads (1 ms of every start of the command),
 * for the external subcommands the command does not have: it is required when one runs.
 */
const COMMANDER_COMMAND = `${path.sep}node_modules${path.sep}commander${path.sep}lib${path.sep}command.js`;
const COMMANDER_CHILD_PROCESS = [
  "const childProcess = require('node:child_process');",
  "const childProcess = {\n  spawn: (...args) => require('node:child_process').spawn(...args),\n};",
];

/** commander's command module with node:child_process required on use; exact text, once. */
function withLazyChildProcess(code, id) {
  const uses = code.match(/\bchildProcess\b/g)?.length ?? 0;
  const spawns = code.match(/\bchildProcess\.spawn\(/g)?.length ?? 0;
  if (uses !== spawns + 1) {
    throw new Error(
      `${id}: commander uses node:child_process otherwise than by childProcess.spawn (${uses - 1} uses, ${spawns} spawns); look at scripts/bundle.js's COMMANDER_CHILD_PROCESS again`,
    );
  }
  return replaceEachOnce(code, [COMMANDER_CHILD_PROCESS], {
    where: id,
    what: "commander's command module",
    lookAt: "scripts/bundle.js's COMMANDER_CHILD_PROCESS",
  });
}

/** Each rewrite of a dependency's module: its name, the module it rewrites, how. */
const REWRITES = [
  { name: 'zod', rewrites: (id) => id.endsWith(ZOD_PARSE), rewrite: withSharedFailure },
  {
    name: 'zod-fastpass',
    rewrites: (id) => id.endsWith(ZOD_SCHEMAS),
    rewrite: withLaterZodFastpass,
  },
  { name: 'ajv', rewrites: (id) => AJV_PROVIDER.test(id), rewrite: withLazyAjvEngines },
  {
    name: 'commander',
    rewrites: (id) => id.endsWith(COMMANDER_COMMAND),
    rewrite: withLazyChildProcess,
  },
];
/**
 * The rewrites made in this build: each must be, so that a dependency whose files moved
 * stops the build rather than going out unchanged.
 */
const rewritten = new Set();

/** How many CommonJS modules' functions withLazyCommonJs took out of parentheses. */
let lazyCommonJs = 0;

/** rolldown's helper for a CommonJS module, `$1` and on where a chunk has two of them. */
const COMMONJS_HELPER = /^__commonJSMin(?:\$\d+)?$/;

/**
 * `code` with its CommonJS modules' functions out of the parentheses rolldown writes
 * around them (`__commonJSMin(((exports, module) => {...}))`). V8 compiles a function in
 * parentheses as its file loads, guessing it is called at once, and a code cache made
 * after a start then holds it; a CommonJS module's function runs when the module is
 * first required, and a served start requires none of the bundle's but commander's (ajv,
 * its formats and URI parser are loaded on first use, in agenttool's copy and in the
 * SDK's own). Compiled anyway, they made a third of the SDK chunk's code cache, which
 * every start deserializes whole (docs/benchmarks.md). The ES modules' functions
 * (`__esmMin`) stay as they are: a start runs nearly all of them (jsonc-parser's, in
 * cli.js, run for `install` alone). rolldown's output pass after renderChunk (its
 * dead-code minify) prints the functions as they are left here. Throws where a call's
 * function is written another way (the build would otherwise keep it eager unnoticed).
 */
function withLazyCommonJs(code) {
  if (!code.includes('__commonJSMin')) return code;
  const { parseAst } = require('rolldown/parseAst');
  const cuts = [];
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    if (node.type === 'CallExpression' && node.arguments.length === 1) {
      const { callee } = node;
      const name = callee.type === 'MemberExpression' ? callee.property.name : callee.name;
      const [module] = node.arguments;
      if (COMMONJS_HELPER.test(name ?? '') && module.type === 'ArrowFunctionExpression') {
        const before = code.slice(callee.end, module.start);
        const after = code.slice(module.end, node.end);
        // The call's parentheses and the function's own, nothing between them.
        if (before === '((' && after === '))') cuts.push(module.start - 1, module.end);
        else if (before !== '(' || after !== ')') {
          throw new Error(
            `a CommonJS module's function written as ${code.slice(node.start, module.start + 20)}...; look at withLazyCommonJs in scripts/bundle.js again`,
          );
        }
      }
    }
    for (const key of Object.keys(node)) if (key !== 'type') visit(node[key]);
  };
  visit(parseAst(code));
  lazyCommonJs += cuts.length / 2;
  let out = '';
  let from = 0;
  for (const at of cuts.sort((a, b) => a - b)) {
    out += code.slice(from, at);
    from = at + 1;
  }
  return out + code.slice(from);
}

/** How many chunk exports withPlainExports turned into plain properties (the build checks). */
let plainExports = 0;

/**
 * `code` with each export of a binding that never changes written as a plain property
 * (`exports.name = local;`) instead of the getter rolldown writes for every export of a
 * chunk (`Object.defineProperty(exports, "name", { enumerable: true, get: function() {
 * return local; } })`). Every use of a function from another chunk reads it through that
 * getter: a call more on each, run by the interpreter until V8 compiles it, and compiled
 * as a function of its own (21 of them on a served call's path, of some 200 of ours that
 * Maglev compiles over a fresh process's first calls; docs/benchmarks.md). Kept as
 * getters: exports of a binding assigned anywhere in the chunk (a live binding may
 * change; rolldown's lazy modules declare `var name;` and assign it when they first
 * run) and of one declared after the getter. The property is written where the getter was, at the
 * chunk's end, so a chunk that reads another in a cycle sees what it saw before.
 */
function withPlainExports(code) {
  if (!code.includes('Object.defineProperty(exports, ')) return code;
  const { parseAst } = require('rolldown/parseAst');
  const program = parseAst(code);
  /** Each top-level binding that cannot change, with where it holds its value from. */
  const fixed = new Map();
  for (const node of program.body) {
    if (node.type === 'FunctionDeclaration' && node.id) fixed.set(node.id.name, 0);
    else if (node.type === 'ClassDeclaration' && node.id) fixed.set(node.id.name, node.end);
    else if (node.type === 'VariableDeclaration') {
      // A `var` or `let` with a value is fixed too if nothing in the chunk assigns that
      // name again (rolldown writes classes as `var Name = class ...`).
      for (const declarator of node.declarations) {
        if (declarator.id.type !== 'Identifier') continue;
        if (node.kind === 'const' || declarator.init !== null) {
          fixed.set(declarator.id.name, node.end);
        }
      }
    }
  }
  for (const name of assignedNames(program)) fixed.delete(name);
  const edits = [];
  for (const node of program.body) {
    const local = plainExportOf(node);
    if (local === undefined) continue;
    const from = fixed.get(local.binding);
    if (from === undefined || from > node.start) continue;
    edits.push({
      start: node.start,
      end: node.end,
      text: `exports.${local.name} = ${local.binding};`,
    });
  }
  plainExports += edits.length;
  let out = '';
  let at = 0;
  for (const edit of edits) {
    out += code.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + code.slice(at);
}

/**
 * Every name an assignment or an update (`=`, `+=`, `++`) in `program` writes to, in any
 * scope: a name shadowed in a function counts too, which only keeps a getter more.
 */
function assignedNames(program) {
  const names = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    if (node.type === 'AssignmentExpression' && node.left.type === 'Identifier') {
      names.add(node.left.name);
    } else if (node.type === 'UpdateExpression' && node.argument.type === 'Identifier') {
      names.add(node.argument.name);
    }
    for (const key of Object.keys(node)) if (key !== 'type') visit(node[key]);
  };
  visit(program);
  return names;
}

/**
 * The export name and local binding of `Object.defineProperty(exports, "name", {
 * enumerable: true, get: function() { return local; } })` as rolldown writes it, or
 * undefined for any other statement.
 */
function plainExportOf(node) {
  if (node.type !== 'ExpressionStatement') return undefined;
  const call = node.expression;
  if (call.type !== 'CallExpression' || call.arguments.length !== 3) return undefined;
  const { callee } = call;
  if (
    callee.type !== 'MemberExpression' ||
    callee.object.type !== 'Identifier' ||
    callee.object.name !== 'Object' ||
    callee.property.name !== 'defineProperty'
  ) {
    return undefined;
  }
  const [target, key, descriptor] = call.arguments;
  if (target.type !== 'Identifier' || target.name !== 'exports') return undefined;
  if (key.type !== 'Literal' || typeof key.value !== 'string') return undefined;
  if (!/^[A-Za-z_$][\w$]*$/.test(key.value)) return undefined;
  if (descriptor.type !== 'ObjectExpression' || descriptor.properties.length !== 2) {
    return undefined;
  }
  const [enumerable, get] = descriptor.properties;
  if (enumerable.key?.name !== 'enumerable' || enumerable.value?.value !== true) return undefined;
  if (get.key?.name !== 'get' || get.value?.type !== 'FunctionExpression') return undefined;
  const body = get.value.body.body;
  if (body.length !== 1 || body[0].type !== 'ReturnStatement') return undefined;
  const returned = body[0].argument;
  if (returned?.type !== 'Identifier') return undefined;
  return { name: key.value, binding: returned.name };
}

/** The rolldown plugin that maps the package's own specifiers and transpiles TypeScript. */
function typescript() {
  const options = compilerOptions();
  return {
    name: 'agenttool-typescript',
    resolveId(source, importer, extra) {
      if (extra.kind === 'require-call') {
        const entry = onDemandEntry(source, importer);
        if (entry !== undefined) return { id: `${ON_DEMAND}${entry}`, external: true };
      }
      // jsonc-parser's main is a UMD build that requires its parts at run time: its ES
      // module build bundles.
      if (source === 'jsonc-parser') return require.resolve('jsonc-parser/lib/esm/main.js');
      const own = SELF[source];
      return own === undefined ? null : path.join(SRC, own);
    },
    transform(code, id) {
      const dependency = REWRITES.find(({ rewrites }) => rewrites(id));
      if (dependency !== undefined) {
        rewritten.add(dependency.name);
        modifiedPackages.add(packageOf(id).name);
        return { code: dependency.rewrite(code, id), moduleType: 'js' };
      }
      if (!id.endsWith('.ts') || id.endsWith('.d.ts')) return null;
      const out = ts.transpileModule(code, { compilerOptions: options, fileName: id });
      return { code: out.outputText, moduleType: 'js' };
    },
    renderChunk(code, chunk) {
      // The chunk that holds the SDK's protocol module: its schemas built on first read.
      if (code.includes('\tfor (const key of SPEC_SCHEMA_KEYS) register(')) {
        lazySdkChunks.push(chunk.fileName);
        code = withLazySdkSchemas(code, chunk.fileName);
        modifiedPackages.add('@modelcontextprotocol/server').add('@modelcontextprotocol/core');
      }
      code = withPlainExports(withLazyCommonJs(code));
      if (!code.includes(ON_DEMAND)) return code;
      const from = path.dirname(chunk.fileName);
      const pattern = new RegExp(`(["'])${ON_DEMAND}([\\w-]+)\\1`, 'g');
      return code.replace(pattern, (_match, quote, entry) => {
        const relative = path.posix.relative(from, `${entry}.js`);
        return `${quote}${relative.startsWith('.') ? relative : `./${relative}`}${quote}`;
      });
    },
  };
}

async function bundle() {
  const { rolldown } = await import('rolldown');
  fs.rmSync(OUT, { recursive: true, force: true });
  lazySdkChunks.length = 0;
  lazyCommonJs = 0;
  plainExports = 0;
  rewritten.clear();
  modifiedPackages.clear();
  const build = await rolldown({
    input: Object.fromEntries(
      Object.entries(ENTRIES).map(([name, source]) => [name, path.join(SRC, source)]),
    ),
    external: EXTERNAL,
    platform: 'node',
    resolve: { conditionNames: ['node', 'import', 'default'] },
    plugins: [typescript()],
    logLevel: 'warn',
    // The TypeScript transform takes most of the build by design; no report of it.
    checks: { pluginTimings: false },
  });
  const { output } = await build.write({
    dir: OUT,
    format: 'cjs',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // The command's shebang comes from its source.
    sourcemap: false,
    // ASCII only, and no JSDoc: Node reads a file with a character past U+00FF as
    // two-byte text, and every start reads, copies and hands V8 each file whole (see
    // nonAscii).
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
  });
  await build.close();
  const missed = REWRITES.map(({ name }) => name).filter((name) => !rewritten.has(name));
  if (missed.length > 0) {
    throw new Error(
      `the bundle's rewrite of ${missed.join(', ')} found no module to rewrite; look at scripts/bundle.js again`,
    );
  }
  if (lazySdkChunks.length !== 1) {
    throw new Error(
      `expected one chunk with the SDK's protocol module, found ${lazySdkChunks.length}: ${lazySdkChunks.join(', ')}; look at scripts/lazy-sdk-schemas.js again`,
    );
  }
  if (lazyCommonJs === 0) {
    throw new Error(
      "found no CommonJS module in parentheses (rolldown's __commonJSMin); look at withLazyCommonJs in scripts/bundle.js again",
    );
  }
  if (plainExports === 0) {
    throw new Error(
      'found no chunk export written as a getter (Object.defineProperty(exports, ...)); look at withPlainExports in scripts/bundle.js again',
    );
  }
  writeThirdPartyLicenses(output);
  writeWrappers();
}

/**
 * Where `text` has a character outside ASCII (`line:column: U+XXXX`), or undefined. Node
 * reads a module whose text has one past U+00FF as two-byte text: the SDK's 1.6 MB chunk
 * then took twice as long to read and 0.8 ms more to compile from its code cache, for a
 * few dashes and ellipses in its comments and messages (docs/benchmarks.md). ASCII is
 * the rule kept. Rolldown escapes them but in a tagged template's text and a kept
 * comment, which the build then refuses.
 */
function nonAscii(text) {
  const at = text.search(/[^\x00-\x7f]/);
  if (at === -1) return undefined;
  const before = text.slice(0, at).split('\n');
  const code = text.codePointAt(at).toString(16).toUpperCase().padStart(4, '0');
  return `${before.length}:${before.at(-1).length + 1}: U+${code} is not ASCII`;
}

/** The file of dist/pkg that carries the licenses of the code the bundle holds. */
const THIRD_PARTY_LICENSES = 'third-party-licenses.txt';
/** A package's license and notice files, by the names packages give them. */
const LICENSE_FILE = /^(licen[cs]e|copying|notice|third[-_ ]?party[-_ ]?notices?)([-.][\w.-]+)?$/i;
/**
 * The packages whose files this build changes as it bundles them (the REWRITES, the SDK's
 * schemas made lazy): Apache-2.0 asks a modified file to say so.
 */
const modifiedPackages = new Set();

/**
 * The package a module's path lies in (after its last node_modules, with `sep` between
 * its parts): its name, its folder, and the path before that node_modules; or undefined.
 */
function packageOf(file, sep = path.sep) {
  const marker = `${sep}node_modules${sep}`;
  const at = file.lastIndexOf(marker);
  if (at === -1) return undefined;
  const parts = file.slice(at + marker.length).split(sep);
  const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  const dir = [file.slice(0, at + marker.length - 1), ...name.split('/')].join(sep);
  return { name, dir, before: file.slice(0, at + 1) };
}

/**
 * The packages a published bundle carries inside it, named by the regions its bundler
 * marks (`//#region ../node_modules/.pnpm/ajv@8.18.0/node_modules/ajv/dist/...`): each
 * name (after the region's last node_modules), with the version pnpm's folder gives
 * where it is that package's folder.
 */
function embeddedPackages(text) {
  const found = [];
  for (const [, region] of text.matchAll(/^\/\/#region (\S+)/gm)) {
    const embedded = packageOf(region, '/');
    if (embedded === undefined) continue;
    const { name, before } = embedded;
    const folder = /(?:^|\/)\.pnpm\/([^/]+)\/$/.exec(before)?.[1]?.replace('+', '/');
    const version =
      folder?.startsWith(`${name}@`) === true
        ? folder.slice(name.length + 1).split('_')[0]
        : undefined;
    found.push({ name, version });
  }
  return found;
}

/** A package's license as its manifest says it (a string, an old object or list), or UNKNOWN. */
function licenseOf(manifest) {
  if (typeof manifest.license === 'string') return manifest.license;
  if (typeof manifest.license?.type === 'string') return manifest.license.type;
  if (Array.isArray(manifest.licenses)) return manifest.licenses.map((l) => l.type).join(' OR ');
  return 'UNKNOWN';
}

/**
 * Writes dist/pkg/third-party-licenses.txt: for each package whose code the bundle holds,
 * its name, version, license and the texts of its license and notice files, which its
 * license asks a copy to carry (MIT, BSD, Apache), and whether this build changed its
 * files. That is each package rolldown took a module of, and each package a bundled file
 * carries inside it already by its bundler's regions (the MCP SDK's dist holds ajv,
 * ajv-formats, fast-uri and others), with the text of the copy installed here (its
 * version said where it differs). Stops the build where a module comes from outside
 * node_modules and src, or a package has no license file to carry or is not installed.
 */
function writeThirdPartyLicenses(output) {
  const packages = new Map();
  const add = (dir, version, within) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const key = `${manifest.name}@${version ?? manifest.version}`;
    const known = packages.get(key);
    if (known !== undefined) {
      // Bundled from node_modules too: not only inside another package.
      if (within === undefined) known.within = undefined;
      return;
    }
    const files = fs
      .readdirSync(dir)
      .filter((name) => LICENSE_FILE.test(name))
      .sort();
    if (files.length === 0) {
      throw new Error(
        `${manifest.name} (${dir}) is in the bundle but has no license file to carry; look at writeThirdPartyLicenses in scripts/bundle.js`,
      );
    }
    packages.set(key, {
      key,
      name: manifest.name,
      license: licenseOf(manifest),
      within,
      installed:
        version === undefined || version === manifest.version ? undefined : manifest.version,
      texts: files.map((name) => fs.readFileSync(path.join(dir, name), 'utf8').trim()),
    });
  };
  const ids = output.flatMap((file) => (file.type === 'chunk' ? file.moduleIds : []));
  for (const id of ids) {
    if (id.startsWith('\0') || id.startsWith(SRC + path.sep)) continue;
    const own = packageOf(id);
    if (own === undefined) {
      throw new Error(
        `the bundle holds ${id}, neither agenttool's source nor an installed package's: whose license does it carry? Look at writeThirdPartyLicenses in scripts/bundle.js`,
      );
    }
    add(own.dir, undefined, undefined);
    for (const { name, version } of embeddedPackages(fs.readFileSync(id, 'utf8'))) {
      if (name === own.name) continue;
      let dir;
      for (let from = own.dir; dir === undefined; from = path.dirname(from)) {
        const candidate = path.join(from, 'node_modules', ...name.split('/'));
        if (fs.existsSync(path.join(candidate, 'package.json'))) dir = candidate;
        else if (path.dirname(from) === from) {
          throw new Error(
            `${own.name}'s files carry ${name}${version === undefined ? '' : `@${version}`}, which is not installed here to take its license from; look at writeThirdPartyLicenses in scripts/bundle.js`,
          );
        }
      }
      add(dir, version, own.name);
    }
  }
  const entries = [...packages.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  const text = [
    'agenttool bundles code of the packages below into dist/pkg (scripts/bundle.js); each',
    "comes with its license and notice files as its package has them (for code a package's",
    'own build carries, those of the copy installed where agenttool was built). The build',
    "changes some of their files as it bundles them, as each entry says (scripts/bundle.js's",
    'REWRITES, scripts/lazy-sdk-schemas.js).',
    '',
    ...entries.flatMap(({ key, name, license, within, installed, texts }) => [
      [
        `== ${key} (${license})`,
        within === undefined ? '' : `, inside ${within}`,
        within === undefined && modifiedPackages.has(name) ? ", modified by agenttool's build" : '',
        installed === undefined ? '' : `, text of the installed ${installed}`,
        ' ==',
      ].join(''),
      '',
      ...texts.flatMap((body) => [body, '']),
    ]),
  ].join('\n');
  fs.writeFileSync(path.join(OUT, THIRD_PARTY_LICENSES), text);
}

/** The `agenttool` bin: an older Node named, then agenttool/code-cache, then the command. */
const launcher = () => `#!/usr/bin/env node
'use strict';
// The agenttool command (written by scripts/bundle.js): Node's compile cache on, then the command.
// An older Node (npm only warns of the engines field) is named rather than failing on a missing API.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    \`agenttool: needs Node 22.13 or later; this is Node \${process.versions.node} (\${process.execPath})\\n\`,
  );
  process.exit(1);
}
// Node's compile cache on, and the package's own files compiled with a code cache made
// after a start (see code-cache.js).
require('./code-cache-entry.js');
require('./cli.js');
`;

/**
 * agenttool/code-cache, for the build named `build` whose files `importers` make a dynamic
 * `import()`: Node's compile cache turned on where it is not, then the package's files
 * compiled with code caches. The compile cache it turns on lives in the user's cache
 * folder, not in the shared temporary one where another user could plant code for it
 * (NODE_COMPILE_CACHE still chooses, and NODE_DISABLE_COMPILE_CACHE=1 turns it off; a
 * folder that cannot be written only costs the speed). The shell's sandbox keeps it
 * read-only (src/shell/sandbox-policy.ts), as it does the package's own code.
 */
const codeCacheEntry = (build, importers) => `'use strict';
// agenttool/code-cache (written by scripts/bundle.js): required before the rest of the
// package, it has the package's files compiled with a code cache made after a start
// (see code-cache.js and code-cache-entry.d.ts).
const { enableCompileCache, getCompileCacheDir } = require('node:module');
const { homedir } = require('node:os');
const { isAbsolute, join } = require('node:path');
const { installCodeCache, ownedFolder } = require('./code-cache.js');
const BUILD = ${JSON.stringify(build)};
const IMPORTERS = ${JSON.stringify(importers)};
if (getCompileCacheDir?.() === undefined && enableCompileCache !== undefined) {
  const xdg = process.env.XDG_CACHE_HOME;
  let cache;
  try {
    cache = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  } catch {
    // no home folder: Node's compile cache stays off, and so does the code cache
  }
  if (cache !== undefined) {
    // Node's compile cache is code the next start runs too: only in a folder of the user's alone.
    const owned = ownedFolder(join(cache, 'agenttool', 'node-compile-cache'), join(cache, 'agenttool'));
    if (owned.folder !== undefined) enableCompileCache(owned.folder);
    else if (/\\bagenttool\\b/.test(process.env.NODE_DEBUG ?? '')) {
      process.stderr.write(\`agenttool: compile cache off: \${owned.refused}\\n\`);
    }
  }
}
exports.codeCacheFolder = installCodeCache(__dirname, BUILD, IMPORTERS);
`;

/** agenttool/nest: a missing NestJS peer is named before anything requires it. */
const NEST_ENTRY = `'use strict';
// agenttool/nest (written by scripts/bundle.js): the NestJS peers checked, then the entry.
require('./nest-peers.js').checkNestPeers();
module.exports = require('./nest-entry.js');
`;

/** The bundle's files, paths relative to it written with `/`, in a stable order. */
function outputFiles(dir = OUT) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) =>
      entry.isDirectory()
        ? outputFiles(path.join(dir, entry.name))
        : [path.relative(OUT, path.join(dir, entry.name)).split(path.sep).join('/')],
    );
}

/**
 * The build's name for code-cache.js: a hash of every file the bundle wrote, so that a
 * cache made for one build is never used for another.
 */
function buildId() {
  const hash = require('node:crypto').createHash('sha256');
  for (const file of outputFiles()) hash.update(file).update(fs.readFileSync(path.join(OUT, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Whether an ESTree node (or anything under it) is a dynamic `import()`. */
function hasImport(node) {
  if (node === null || typeof node !== 'object') return false;
  if (node.type === 'ImportExpression') return true;
  return Object.values(node).some((value) =>
    Array.isArray(value)
      ? value.some(hasImport)
      : value !== null && typeof value === 'object' && typeof value.type === 'string'
        ? hasImport(value)
        : false,
  );
}

/**
 * The files of the bundle that make a dynamic `import()`: code-cache.js leaves them to
 * Node, since a script compiled apart can import only through an experimental hook of
 * Node's (which warns on every use).
 */
function dynamicImporters() {
  const { parseAst } = require('rolldown/parseAst');
  return outputFiles().filter(
    (file) =>
      file.endsWith('.js') && hasImport(parseAst(fs.readFileSync(path.join(OUT, file), 'utf8'))),
  );
}

function writeWrappers() {
  fs.copyFileSync(path.join(__dirname, 'code-cache.js'), path.join(OUT, 'code-cache.js'));
  fs.writeFileSync(path.join(OUT, 'nest.js'), NEST_ENTRY);
  const build = buildId();
  const importers = dynamicImporters();
  fs.writeFileSync(path.join(OUT, 'code-cache-entry.js'), codeCacheEntry(build, importers));
  fs.copyFileSync(
    path.join(__dirname, 'code-cache-entry.d.ts'),
    path.join(OUT, 'code-cache-entry.d.ts'),
  );
  // Every file ASCII before the launcher is written: it is what tells a later start
  // (scripts/start-build.js) that the build is done.
  const texts = outputFiles()
    .filter((name) => name.endsWith('.js'))
    .map((file) => [file, fs.readFileSync(path.join(OUT, file), 'utf8')]);
  for (const [file, text] of [...texts, ['agenttool.js', launcher()]]) {
    const problem = nonAscii(text);
    if (problem !== undefined)
      throw new Error(`${file}:${problem}; look at scripts/bundle.js again`);
  }
  fs.writeFileSync(path.join(OUT, 'agenttool.js'), launcher(), { mode: 0o755 });
}

module.exports = {
  bundle,
  OUT,
  nonAscii,
  withLazyAjvEngines,
  withLazyCommonJs,
  withLaterZodFastpass,
  withPlainExports,
  ZOD_FASTPASS_AFTER,
};

if (require.main === module) {
  bundle().catch((error) => {
    process.stderr.write(`bundle: ${error.stack ?? error}\n`);
    process.exit(1);
  });
}

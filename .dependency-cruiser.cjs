// The house rules of src/, checked by dependency-cruiser in `npm run check` (`npm run
// arch`) and shown as a picture by `npm run arch:graph`. See docs/contributing.md.
//
// - no import circles anywhere in src/;
// - the layers of DESIGN.md: core imports nothing of ours; decorators, executor and mcp
//   import core only; di composes them; the shell, the workspace, the CLI and the
//   framework adapters and the testing entry use the public entries (`agenttool`,
//   `agenttool/mcp`, ...) only;
// - a room (any folder of src/ with an index.ts) is entered through its index: no deep
//   import from outside it (but the executor's into core, and core's OpenTelemetry loader,
//   whose types must stay out of the declarations the entries reach);
// - nothing imports an adapter (nest, ai-sdk, openai-agents), and nothing but an adapter
//   loads a framework;
// - the root entry pulls in nothing of mcp or di, nor their libraries;
// - the samples use the public entries only.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = process.cwd();

/** What each layer below the entries may import besides itself. */
const LAYERS = {
  core: [],
  decorators: ['core'],
  executor: ['core'],
  mcp: ['core'],
  di: ['core', 'decorators', 'executor', 'mcp'],
};
/** The layers built on the public entries, and the entries each may use besides the root's. */
const ON_ENTRIES = {
  shell: ['mcp', 'di'],
  workspace: ['mcp', 'di', 'shell'],
  cli: ['mcp', 'di', 'shell', 'workspace'],
  testing: ['mcp', 'di'],
  nest: ['mcp', 'di'],
  'ai-sdk': ['mcp', 'di'],
  'openai-agents': ['mcp', 'di'],
};
const ADAPTERS = ['nest', 'ai-sdk', 'openai-agents'];
/** Packages only an adapter may load: the frameworks and their MCP middleware. */
const FRAMEWORKS =
  '^node_modules/(@nestjs/|ai/|@ai-sdk/|@openai/agents|express/|fastify/|hono/|@hono/|@modelcontextprotocol/(express|fastify|hono)/)';
/** Imports of the entries `agenttool`, `agenttool/<entry>`: through tsconfig's paths. */
const THROUGH_ENTRY = ['aliased-tsconfig-paths'];

/**
 * Why the executor may import core's files past its index: a CommonJS index
 * re-exports through getters, about 8 ns per access, and a batch reads them for every
 * job (see src/executor/batch.ts).
 */
const HOT_PATHS = ['^src/executor/'];

/**
 * Core's one file imported by path from anywhere: the OpenTelemetry API's loader, whose
 * declarations name `@opentelemetry/api`, an optional peer. Every entry's declarations
 * reach core's index, and a project compiled with `skipLibCheck: false` without the peer
 * could not resolve that name.
 */
const CORE_SIDE_DOORS = ['^src/core/otel\\.ts$'];

/** Every folder under src/ (but src/ itself) that has an index.ts: the rooms. */
function rooms(dir = path.join(ROOT, 'src')) {
  if (!fs.existsSync(dir)) return [];
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = path.join(dir, entry.name);
    if (fs.existsSync(path.join(full, 'index.ts'))) {
      found.push(path.relative(ROOT, full).split(path.sep).join('/'));
    }
    found.push(...rooms(full));
  }
  return found;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const layerPaths = (names) => names.map((name) => `^src/${escape(name)}/`);

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `${layer} imports ${allowed.length === 0 ? 'nothing of ours' : `only ${allowed.join(', ')}`} (DESIGN.md's layers)`,
  severity: 'error',
  from: { path: `^src/${escape(layer)}/` },
  to: { path: '^src/', pathNot: layerPaths([layer, ...allowed]) },
}));

const entryRules = Object.entries(ON_ENTRIES).flatMap(([layer, entries]) => {
  const names = ['agenttool', ...entries.map((entry) => `agenttool/${entry}`)];
  const allowed = ['^src/index\\.ts$', ...entries.map((e) => `^src/${escape(e)}/index\\.ts$`)];
  const from = { path: `^src/${escape(layer)}/` };
  return [
    {
      name: `entries-only-${layer}`,
      comment: `${layer} uses agenttool's public entries only (${names.join(', ')})`,
      severity: 'error',
      from,
      to: { path: '^src/', pathNot: [`^src/${escape(layer)}/`, ...allowed] },
    },
    {
      name: `entries-by-name-${layer}`,
      comment: `${layer} names an entry as agenttool/<entry>, not by a relative path`,
      severity: 'error',
      from,
      to: { path: allowed, dependencyTypesNot: THROUGH_ENTRY },
    },
  ];
});

const roomRules = rooms().map((room) => ({
  name: `room-index-${room.replace(/^src\//, '').replace(/\//g, '-')}`,
  comment: `${room} is entered through its index.ts`,
  severity: 'error',
  from: {
    pathNot: [`^${escape(room)}/`, ...(room === 'src/core' ? HOT_PATHS : [])],
  },
  to: {
    path: `^${escape(room)}/`,
    pathNot: [`^${escape(room)}/index\\.ts$`, ...(room === 'src/core' ? CORE_SIDE_DOORS : [])],
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles in src/: move the shared type or function to where it belongs',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    ...entryRules,
    ...roomRules,
    {
      name: 'no-adapter-imports',
      comment: 'Nothing imports an adapter (nest, ai-sdk, openai-agents) but the adapter itself',
      severity: 'error',
      from: { path: '^(src/[^/]+)/' },
      to: { path: layerPaths(ADAPTERS), pathNot: '^$1/' },
    },
    {
      name: 'frameworks-in-adapters-only',
      comment: 'Only an adapter loads a framework, so an app without one never does',
      severity: 'error',
      from: { path: '^src/', pathNot: layerPaths(ADAPTERS) },
      to: { path: FRAMEWORKS },
    },
    {
      name: 'root-entry-stays-light',
      comment: 'The root entry pulls in nothing of mcp or di, nor their libraries',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: {
        path: '^src/(mcp|di)/|^node_modules/(@modelcontextprotocol/|tsyringe/|commander/)',
        reachable: true,
      },
    },
    {
      name: 'samples-through-entries',
      comment: 'The samples use the public entries only (agenttool, agenttool/<entry>)',
      severity: 'error',
      from: { path: '^samples/' },
      to: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'samples-name-entries',
      comment: 'The samples name an entry as agenttool/<entry>, not by a relative path',
      severity: 'error',
      from: { path: '^samples/' },
      to: { path: '^src/', dependencyTypesNot: THROUGH_ENTRY },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a circle of types is still a circle to a reader.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|docs)/' },
    reporterOptions: {
      // `npm run arch:graph`: the layers as one box each.
      mermaid: { minify: false },
    },
  },
};
